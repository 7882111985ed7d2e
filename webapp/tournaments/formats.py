"""The boundary between tournaments and the pure format functions in ``ladder.tournaments``.

The service layer asks five things of a format, over the plain data stored in
``Tournament.state`` (``EventState.to_json()``): build the state (:func:`start`), list the games to
play now (:func:`ready_games`), record a game's result (:func:`record`), forget a disputed game
(:func:`forget`) and say whether the event is over (:func:`is_finished`); pages also read the
standings (:func:`standings_after`). Entrants are bot version ids, as text inside the ladder.
This module converts between the two worlds and holds no pairing logic itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from ladder import tournaments as lt
from ladder.errors import ConflictError, InvalidEventError, InvalidResultError
from ladder.ids import EntrantId, EventId, MatchId
from referee.core.contract import GameInfo
from webapp.api import DomainError

FORMATS = {
    "single_elim": lt.Format.SINGLE_ELIMINATION,
    "double_elim": lt.Format.DOUBLE_ELIMINATION,
    "round_robin": lt.Format.ROUND_ROBIN,
    "swiss": lt.Format.SWISS,
    "pods": lt.Format.POD_SWISS,
}
"""Our format names to the ladder's."""


class PodOptions(TypedDict, total=False):
    """The pod sizes of a ``pods`` event, passed to :class:`ladder.tournaments.EventConfig` only for that format."""

    pod_sizes: tuple[int, ...]


class FormatRefused(DomainError):
    """The format functions refused the operation (bad configuration, conflicting result...)."""

    default_code = "format_refused"


@dataclass(frozen=True)
class ReadyGame:
    """One game the format wants played now."""

    slot: str
    """The pairing key (``"W1-2"``, ``"L3-1"``, ``"GF1"``, ``"R2-4"``); games of a series share it."""
    round: int
    """Round number from 1, within its bracket."""
    game_in_series: int
    """1-based game number within the series."""
    participants: tuple[int, ...]
    """Bot version ids, in seat order for this game (seats rotate within a series)."""


def table_sizes(format: str, info: GameInfo) -> tuple[int, ...]:
    """Returns the table sizes a ``format`` event of the game ``info`` describes seats, preferred first.

    Duel formats seat two. Pods seat three or more, every seat for itself: the sizes of
    ``info.seat_counts`` from 3 up that no team split always applies to, the ladder's preferred
    sizes first, then the larger.

    Raises:
        FormatRefused: the game has no table of the sizes the format needs; the message names the game's.
    """
    if format != "pods":
        if 2 not in info.seat_counts:
            raise FormatRefused(f"{format} pairs duels, but {info.name} is played by {info.seats_text()} seats")
        return (2,)
    always_teams = {split.seats for split in info.teams if split.when is None}
    free = {n for n in info.seat_counts if n >= 3 and n not in always_teams}
    sizes = tuple(n for n in info.table_sizes if n in free) + tuple(sorted(free - set(info.table_sizes), reverse=True))
    if not sizes:
        raise FormatRefused(
            f"pods need a free-for-all table of 3 or more seats; {info.name} is played by {info.seats_text()} seats"
            + (f" and {', '.join(map(str, sorted(always_teams)))} are always teams" if always_teams else "")
        )
    return sizes


def _state(data: dict[str, Any]) -> lt.EventState:
    try:
        return lt.EventState.from_json(data)
    except InvalidEventError as exc:
        raise FormatRefused(f"tournament state is malformed: {exc}") from exc


def start(
    format: str,
    participants: Sequence[int],
    *,
    info: GameInfo,
    best_of: int,
    rounds: int | None,
    event_id: int,
) -> dict[str, Any]:
    """Returns the initial state of an event of ``participants`` (bot version ids, best seed first).

    Pods take their sizes from the game's ``info`` (:func:`table_sizes`).

    Raises:
        FormatRefused: the game has no table for the format, or the ladder rejects the configuration
            or the entrants.
    """
    sizes = table_sizes(format, info)
    try:
        pods: PodOptions = {"pod_sizes": sizes} if format == "pods" else {}
        config = lt.EventConfig(FORMATS[format], best_of=best_of, rounds=rounds or 0, **pods)
        state = lt.new_event(EventId(str(event_id)), config, lt.seed_manual([EntrantId(str(v)) for v in participants]))
    except (InvalidEventError, KeyError) as exc:
        raise FormatRefused(f"cannot start a {format} event: {exc}") from exc
    return state.to_json()


def ready_games(data: dict[str, Any]) -> list[ReadyGame]:
    """Returns the games to play now: the next game of every undecided pairing."""
    if not data:
        return []
    return [
        ReadyGame(
            slot=p.key,
            round=p.round,
            game_in_series=p.games_played + 1,
            participants=tuple(int(e) for e in lt.seats_for_game(p, p.games_played)),
        )
        for p in lt.next_pairings(_state(data))
    ]


def record(
    data: dict[str, Any], slot: str, game_in_series: int, match_id: int, seat_ranks: Sequence[int]
) -> dict[str, Any]:
    """Returns the state with a game's result; recording the same match again changes nothing.

    Raises:
        FormatRefused: the pairing is unknown or decided, or the match was recorded differently.
    """
    state = _state(data)
    pairing = next((v.pairing for v in lt.schedule(state).pairings if v.pairing.key == slot), None)
    if pairing is None:
        raise FormatRefused(f"pairing {slot!r} is not published in this tournament")
    try:
        report = lt.report_from_seats(pairing, game_in_series - 1, MatchId(str(match_id)), list(seat_ranks))
        return lt.record_result(state, report).to_json()
    except (ConflictError, InvalidResultError) as exc:
        raise FormatRefused(str(exc)) from exc


def forget(data: dict[str, Any], match_id: int) -> dict[str, Any]:
    """Returns the state without the result of ``match_id`` (a disputed game to be replayed)."""
    if not data:
        return data
    state = _state(data)
    kept = tuple(r for r in state.reports if r.match_id != str(match_id))
    return dataclasses.replace(state, reports=kept).to_json()


def is_finished(data: dict[str, Any]) -> bool:
    """Whether the event is over."""
    return bool(data) and lt.is_finished(_state(data))


def standings_after(data: dict[str, Any], round_number: int | None = None) -> list[dict[str, Any]]:
    """Returns the standings as plain data, counting only pairings up to ``round_number`` if given."""
    if not data:
        return []
    state = _state(data)
    if round_number is not None:
        rounds = {v.pairing.key: v.pairing.round for v in lt.schedule(state).pairings}
        state = dataclasses.replace(
            state, reports=tuple(r for r in state.reports if rounds.get(r.pairing, 0) <= round_number)
        )
    return [
        {
            "bot_version": int(s.entrant),
            "place": s.rank,
            "points": s.points,
            "played": s.played,
            "wins": s.wins,
            "draws": s.draws,
            "losses": s.losses,
            "tiebreaks": [{"name": n, "value": v} for n, v in s.tiebreaks],
            "status": s.status,
        }
        for s in lt.standings(state)
    ]


def byes(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Returns the byes so far: ``{"round", "bot_version", "points"}``."""
    if not data:
        return []
    return [
        {"round": b.round, "bot_version": int(b.entrant), "points": b.points} for b in lt.schedule(_state(data)).byes
    ]
