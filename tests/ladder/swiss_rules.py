"""The Swiss pairing rules of docs/ladder.md, written out independently of ``ladder.tournaments.swiss``.

Used by the Swiss tests to judge a round's pairing against the best legal pairing: by brute force
over every rematch-free pairing for small fields, by two-pair exchanges for large ones. Nothing here
imports the optimiser under test.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from ladder.tournaments import EventState, schedule

Cost = tuple[int, int, int, float]
"""(bye rank from the bottom, seat-rule breaks, pairs across score groups, sum of score differences)."""


@dataclass(frozen=True)
class Round:
    """What a round was paired from, rebuilt from the published schedule, and how it was paired."""

    number: int
    order: list[str]
    points: dict[str, float]
    met: set[frozenset[str]]
    no_bye: set[str]
    seats: dict[str, list[int]]
    pairs: list[tuple[str, str]]
    """In seat order (first seat first)."""
    bye: str | None


def breaks(history: Sequence[int], seat: int) -> int:
    """Rule breaks of taking ``seat`` (+1 first, -1 second): a third same seat in a row; a seat
    difference (first seats minus second seats) beyond 2."""
    third = len(history) >= 2 and history[-1] == seat and history[-2] == seat
    return int(third) + int(abs(sum(history) + seat) > 2)


def cost(r: Round, pairs: Sequence[tuple[str, str]], bye: str | None, *, as_seated: bool = False) -> Cost:
    """The documented priorities of a pairing; pairs are seated the better way unless ``as_seated``."""
    seat_breaks = 0
    for a, b in pairs:
        given = breaks(r.seats[a], +1) + breaks(r.seats[b], -1)
        swapped = breaks(r.seats[a], -1) + breaks(r.seats[b], +1)
        seat_breaks += given if as_seated else min(given, swapped)
    return (
        0 if bye is None else len(r.order) - 1 - r.order.index(bye),
        seat_breaks,
        sum(1 for a, b in pairs if r.points[a] != r.points[b]),
        sum(abs(r.points[a] - r.points[b]) for a, b in pairs),
    )


def legal_pairings(r: Round) -> Iterator[tuple[list[tuple[str, str]], str | None]]:
    """Every rematch-free pairing of the round, with a bye (to someone without one) for odd fields."""
    people = list(r.order)
    byes: list[str | None] = [None]
    if len(people) % 2:
        byes = [p for p in people if p not in r.no_bye]

    def match(rest: list[str]) -> Iterator[list[tuple[str, str]]]:
        if not rest:
            yield []
            return
        a = rest[0]
        for b in rest[1:]:
            if frozenset((a, b)) not in r.met:
                for tail in match([x for x in rest if x not in (a, b)]):
                    yield [(a, b), *tail]

    for bye in byes:
        for pairs in match([p for p in people if p != bye]):
            yield pairs, bye


def exchanges(r: Round) -> Iterator[tuple[list[tuple[str, str]], str | None]]:
    """Every legal pairing one exchange away: two pairs swap partners, or the bye swaps with a player."""
    pairs = [tuple(p) for p in r.pairs]
    for i, j in itertools.combinations(range(len(pairs)), 2):
        (a, b), (c, d) = pairs[i], pairs[j]
        for new in (((a, c), (b, d)), ((a, d), (b, c))):
            if all(frozenset(p) not in r.met for p in new):
                yield [p for k, p in enumerate(pairs) if k not in (i, j)] + list(new), r.bye
    if r.bye is not None:
        for i, (a, b) in enumerate(pairs):
            for stay, leave in ((a, b), (b, a)):
                if leave not in r.no_bye and frozenset((stay, r.bye)) not in r.met:
                    yield [p for k, p in enumerate(pairs) if k != i] + [(stay, r.bye)], leave


def rounds(state: EventState, bye_points: float = 1.0) -> list[Round]:
    """Rebuilds each published round's inputs from the schedule (events without forfeits or withdrawals)."""
    plan = schedule(state)
    seed = {e.id: e.seed for e in state.entrants}
    points = dict.fromkeys(seed, 0.0)
    seats: dict[str, list[int]] = {e: [] for e in seed}
    met: set[frozenset[str]] = set()
    had_bye: set[str] = set()
    out = []
    numbers = sorted({v.pairing.round for v in plan.pairings} | {b.round for b in plan.byes})
    for number in numbers:
        views = [v for v in plan.pairings if v.pairing.round == number]
        bye = next((b.entrant for b in plan.byes if b.round == number), None)
        order = sorted(seed, key=lambda e: (-points[e], seed[e]))
        pairs = [(v.pairing.participants[0], v.pairing.participants[1]) for v in views]
        out.append(
            Round(
                number,
                order,
                dict(points),
                set(met),
                set(had_bye),
                {e: list(s) for e, s in seats.items()},
                pairs,
                bye,
            )
        )
        for v in views:
            first, second = v.pairing.participants
            seats[first].append(+1)
            seats[second].append(-1)
            met.add(frozenset((first, second)))
            if v.outcome is not None:
                for e, p in zip(v.pairing.participants, v.outcome.points, strict=True):
                    points[e] += p
        if bye is not None:
            points[bye] += bye_points
            had_bye.add(bye)
    return out


def best_cost(r: Round) -> Cost | None:
    """The best cost over every legal pairing (brute force), or ``None`` if none exists."""
    return min((cost(r, pairs, bye) for pairs, bye in legal_pairings(r)), default=None)


def unordered(pairs: Mapping[int, tuple[str, str]] | Sequence[tuple[str, str]]) -> set[frozenset[str]]:
    return {frozenset(p) for p in (pairs.values() if isinstance(pairs, Mapping) else pairs)}
