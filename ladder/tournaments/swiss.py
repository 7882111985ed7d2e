"""Swiss: a fixed number of rounds, pairing players of equal score, never twice the same pair.

This is a documented simplified Swiss, not FIDE's Dutch system (which is an optimisation problem
best left to an external engine such as bbpPairings). Each round:

1. Active entrants are listed by points, then seed.
2. With an odd count the pairing-allocated bye goes to the lowest-listed entrant who has not yet
   had a bye or a forfeit win (a win's worth of points without playing), worth
   ``EventConfig.bye_points``; if pairing the rest fails, the next candidate up is tried.
3. From the top, each unpaired entrant takes the opponent preferred by (smallest score
   difference, then no seat clash - both at the same seat difference of 2 or more -, then the
   Dutch-style "top half meets bottom half" position in the score group),
   backtracking whenever the rest cannot be paired without a rematch. Round 1 is therefore
   1-5, 2-6, 3-7, 4-8 for eight entrants, as in the Dutch system.
4. First seat goes to whoever has the lower seat difference (first seats minus second seats, as
   FIDE's colour difference), else to whoever did not have it last round, else to the
   higher-listed entrant on odd boards and the lower-listed on even boards (FIDE's round-1 colour
   rule with the first seat drawn for seed 1).

If no rematch-free pairing exists (small fields, many rounds) the event ends after the last
complete round, as lichess does when its pairing engine finds none; :attr:`Schedule.note` says so.
Standings: points, Buchholz cut 1, Buchholz, Sonneborn-Berger, pairings won, seed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

from ladder.ids import EntrantId, PairingKey
from ladder.tournaments import series
from ladder.tournaments.bracket import reports_by_pairing
from ladder.tournaments.common import Bye, EventState, Pairing, PairingView, Schedule, Standing
from ladder.tournaments.round_robin import rank_lines
from ladder.tournaments.tiebreaks import tally

__all__ = ["TIEBREAKS", "pair_round", "planned_rounds", "schedule", "standings"]

TIEBREAKS = ("BH-C1", "BH", "SB")
"""Tie-breaks applied after points, in order."""

SEARCH_BUDGET = 200_000
"""Most pairing attempts tried per round before declaring that no pairing exists."""


def planned_rounds(state: EventState) -> int:
    """The number of rounds: the configured one, or ceil(log2(entrants))."""
    return state.config.rounds or max(1, math.ceil(math.log2(max(2, len(state.entrants)))))


def pair_round(
    order: Sequence[EntrantId],
    points: dict[EntrantId, float],
    met: set[frozenset[EntrantId]],
    no_bye: set[EntrantId],
    seat_difference: Mapping[EntrantId, int] | None = None,
) -> tuple[list[tuple[EntrantId, EntrantId]], EntrantId | None] | None:
    """Pairs one round; returns ``(pairs, bye)`` or ``None`` if no rematch-free pairing exists.

    Args:
        order: active entrants, best first (points, then seed).
        points: points so far.
        met: pairs that already met.
        no_bye: entrants who may not receive the bye.
        seat_difference: first seats minus second seats so far; two entrants with the same
            difference of 2 or more are paired only if nothing else works, since one would reach 3.
    """
    difference = seat_difference or {}
    index = {e: i for i, e in enumerate(order)}
    groups = Counter(points[e] for e in order)
    budget = [SEARCH_BUDGET]
    failed: set[frozenset[EntrantId]] = set()

    def preference(top: EntrantId, other: EntrantId) -> tuple[bool, float, int]:
        ideal = index[top] + groups[points[top]] // 2
        mine = difference.get(top, 0)
        clash = mine == difference.get(other, 0) and abs(mine) >= 2
        return (clash, abs(points[top] - points[other]), abs(index[other] - ideal))

    def match(rest: list[EntrantId]) -> list[tuple[EntrantId, EntrantId]] | None:
        if not rest:
            return []
        key = frozenset(rest)
        if key in failed or budget[0] <= 0:
            return None
        budget[0] -= 1
        top = rest[0]
        for other in sorted(rest[1:], key=lambda o: preference(top, o)):
            if frozenset((top, other)) in met:
                continue
            tail = match([e for e in rest if e not in (top, other)])
            if tail is not None:
                return [(top, other), *tail]
        failed.add(key)
        return None

    players = list(order)
    if len(players) % 2 == 0:
        pairs = match(players)
        return None if pairs is None else (pairs, None)
    for candidate in reversed(players):
        if candidate in no_bye:
            continue
        pairs = match([e for e in players if e != candidate])
        if pairs is not None:
            return pairs, candidate
    return None


def schedule(state: EventState) -> Schedule:
    """Derives every round from the reports; publishes rounds until one is undecided."""
    grouped = reports_by_pairing(state)
    withdrawn = state.withdrawn
    seed_of = {e.id: e.seed for e in state.entrants}
    views: list[PairingView] = []
    byes: list[Bye] = []
    seat_difference: Counter[EntrantId] = Counter()
    last_first: set[EntrantId] = set()
    for number in range(1, planned_rounds(state) + 1):
        records = tally(views, byes, state.by_seed)
        points = {e: r.points for e, r in records.items()}
        active = [e for e in state.by_seed if withdrawn.get(e, math.inf) > number]
        order = sorted(active, key=lambda e: (-points[e], seed_of[e]))
        if len(order) < 2:
            return Schedule(tuple(views), tuple(byes), True, "fewer than two entrants left")
        met = {frozenset(v.pairing.participants) for v in views}
        no_bye = {b.entrant for b in byes} | {
            e for e, r in records.items() if any(x.opponent is None and x.result == 1.0 for x in r.encounters)
        }
        paired = pair_round(order, points, met, no_bye, seat_difference)
        if paired is None:
            return Schedule(tuple(views), tuple(byes), True, f"no rematch-free pairing exists for round {number}")
        pairs, bye = paired
        round_first: set[EntrantId] = set()
        open_round = False
        for board, (high, low) in enumerate(pairs, start=1):
            first = _first_seat(high, low, board, seat_difference, last_first)
            seats = (high, low) if first == high else (low, high)
            key = PairingKey(f"R{number}-{board}")
            reports = grouped.get(key, [])
            games = sum(1 for r in reports if not r.forfeited)
            pairing = Pairing(key, number, seats, state.config.best_of, "main", games)
            outcome = series.resolve(pairing, reports, list(withdrawn))
            views.append(PairingView(pairing, outcome))
            open_round = open_round or outcome is None
            seat_difference[first] += 1
            seat_difference[low if first == high else high] -= 1
            round_first.add(first)
        if bye is not None:
            byes.append(Bye(number, bye, state.config.bye_points))
        last_first = round_first
        if open_round:
            return Schedule(tuple(views), tuple(byes), False)
    return Schedule(tuple(views), tuple(byes), True)


def _first_seat(
    high: EntrantId, low: EntrantId, board: int, difference: Counter[EntrantId], last_first: set[EntrantId]
) -> EntrantId:
    if difference[high] != difference[low]:
        return high if difference[high] < difference[low] else low
    if (high in last_first) != (low in last_first):
        return low if high in last_first else high
    return high if board % 2 == 1 else low


def standings(state: EventState) -> tuple[Standing, ...]:
    """Returns the standings: points, BH-C1, BH, SB, pairings won, seed."""
    plan = schedule(state)
    ids = state.by_seed
    records = tally(plan.pairings, plan.byes, ids)
    return rank_lines(ids, records, TIEBREAKS)
