"""Tournament formats as pure functions of an :class:`EventState`.

The whole API the worker and the web app need::

    state = new_event(event_id, EventConfig(Format.SWISS, rounds=5), seed_by_rating(ratings))
    for pairing in next_pairings(state):          # pairings waiting for games
        ...                                       # play game pairing.games_played, seats from seats_for_game()
    state = record_result(state, report)          # idempotent: the same report twice is a no-op
    state = withdraw(state, entrant)              # remaining pairings become forfeits
    standings(state), is_finished(state), schedule(state)

The state is plain data (:meth:`EventState.to_json` / :meth:`EventState.from_json`); nothing is
random and nothing reads a clock, so the same state always gives the same pairings.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from ladder.errors import ConflictError, InvalidEventError, InvalidResultError
from ladder.ids import EntrantId, EventId, MatchId
from ladder.tournaments import double_elim, pods, round_robin, single_elim, swiss
from ladder.tournaments.common import (
    Bye,
    Entrant,
    EventConfig,
    EventState,
    Format,
    GrandFinal,
    Pairing,
    PairingView,
    Report,
    Schedule,
    SeriesOutcome,
    Standing,
    Withdrawal,
    check_report_shape,
    seats_for_game,
    seed_by_rating,
    seed_manual,
    validate_entrants,
)

__all__ = [
    "Bye",
    "Entrant",
    "EventConfig",
    "EventState",
    "Format",
    "GrandFinal",
    "Pairing",
    "PairingView",
    "Report",
    "Schedule",
    "SeriesOutcome",
    "Standing",
    "is_finished",
    "new_event",
    "next_pairings",
    "record_result",
    "report_from_seats",
    "schedule",
    "seats_for_game",
    "seed_by_rating",
    "seed_manual",
    "standings",
    "withdraw",
]

_FORMATS: dict[Format, tuple[Callable[[EventState], Schedule], Callable[[EventState], tuple[Standing, ...]]]] = {
    Format.SINGLE_ELIMINATION: (single_elim.schedule, single_elim.standings),
    Format.DOUBLE_ELIMINATION: (double_elim.schedule, double_elim.standings),
    Format.ROUND_ROBIN: (round_robin.schedule, round_robin.standings),
    Format.SWISS: (swiss.schedule, swiss.standings),
    Format.POD_SWISS: (pods.schedule, pods.standings),
}


def new_event(event: EventId, config: EventConfig, entrants: Sequence[Entrant]) -> EventState:
    """Creates an event with no results.

    Raises:
        InvalidEventError: if entrants are too few (2, or 3 for pods) or ids or seeds repeat.
    """
    minimum = min(config.pod_sizes) if config.format is Format.POD_SWISS else 2
    validate_entrants(entrants, max(2, minimum))
    return EventState(event, config, tuple(sorted(entrants, key=lambda e: e.seed)))


def schedule(state: EventState) -> Schedule:
    """Returns every pairing published so far with its outcome, the byes, and whether it is over."""
    return _FORMATS[state.config.format][0](state)


def next_pairings(state: EventState) -> tuple[Pairing, ...]:
    """Returns the pairings that need games now (empty when the event is over or waiting)."""
    return schedule(state).pending


def is_finished(state: EventState) -> bool:
    """Whether the event is over."""
    return schedule(state).finished


def standings(state: EventState) -> tuple[Standing, ...]:
    """Returns the standings, best first (provisional until :func:`is_finished`)."""
    return _FORMATS[state.config.format][1](state)


def record_result(state: EventState, report: Report) -> EventState:
    """Returns the state with ``report`` recorded.

    Recording a report whose match id is already recorded, with the same content, returns the
    state unchanged, so a retried worker task never counts a game twice.

    Raises:
        ConflictError: if the match id was recorded with other content, or the pairing is decided.
        InvalidResultError: if the pairing is unknown or not yet published, or the report does not fit it.
    """
    for known in state.reports:
        if known.match_id == report.match_id:
            if known == report:
                return state
            raise ConflictError(f"match {report.match_id!r} was already recorded as {known!r}")
    view = next((v for v in schedule(state).pairings if v.pairing.key == report.pairing), None)
    if view is None:
        raise InvalidResultError(f"pairing {report.pairing!r} is not published in event {state.event!r}")
    if view.outcome is not None:
        raise ConflictError(f"pairing {report.pairing!r} is already decided")
    check_report_shape(report, view.pairing)
    return dataclasses.replace(state, reports=(*state.reports, report))


def withdraw(state: EventState, entrant: EntrantId) -> EventState:
    """Returns the state with ``entrant`` withdrawn; withdrawing twice changes nothing.

    Their undecided two-entrant pairings become forfeit losses; round-based formats stop pairing
    them from the next round on. A pending pod is still played by the others (report the
    absentee in :attr:`Report.forfeited`).

    Raises:
        InvalidEventError: if ``entrant`` is not in the event.
    """
    if entrant not in {e.id for e in state.entrants}:
        raise InvalidEventError(f"{entrant!r} is not an entrant of {state.event!r}")
    if entrant in state.withdrawn:
        return state
    current = max((v.pairing.round for v in schedule(state).pairings), default=0)
    return dataclasses.replace(state, withdrawals=(*state.withdrawals, Withdrawal(entrant, current + 1)))


def report_from_seats(
    pairing: Pairing,
    game_index: int,
    match_id: MatchId,
    seat_ranks: Sequence[int],
    forfeited: Sequence[EntrantId] = (),
) -> Report:
    """Builds a report from a game's ranks by seat (the engine's ``Outcome.ranks``).

    Args:
        pairing: the pairing the game belongs to.
        game_index: which game of the series it was (seats from :func:`seats_for_game`).
        match_id: the match.
        seat_ranks: rank per seat of that game.
        forfeited: participants who forfeited.

    Raises:
        InvalidResultError: if the number of ranks does not fit the pairing.
    """
    seats = seats_for_game(pairing, game_index)
    if len(seat_ranks) != len(seats):
        raise InvalidResultError(f"ranks {list(seat_ranks)!r} do not fit seats {seats!r}")
    by_entrant = dict(zip(seats, seat_ranks, strict=True))
    return Report(pairing.key, match_id, tuple(by_entrant[e] for e in pairing.participants), tuple(forfeited))
