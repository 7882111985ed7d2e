"""Swiss: a fixed number of rounds, pairing players of equal score, never twice the same pair.

This is not FIDE's Dutch system (best left to an external engine such as bbpPairings), but each
round is paired by a global optimisation of documented priorities (:func:`pair_round`):

1. Active entrants are listed by points, then seed.
2. The round is a maximum-weight perfect matching over the pairs that have not met, with a bye
   node for an odd field joined to those who have had no bye and no forfeit win (a win's worth of
   points without playing; the bye is worth ``EventConfig.bye_points``). In order of priority:
   the bye to the lowest-listed such entrant; fewest breaks of the seat rules (no third same seat
   in a row, seat difference at most 2); fewest pairs across score groups, then the smallest
   score differences; the Dutch "top half meets bottom half" layout. Round 1 is therefore
   1-5, 2-6, 3-7, 4-8 for eight entrants, as in the Dutch system.
3. First seat goes to the order breaking fewer seat rules, else to whoever has the lower seat
   difference (first seats minus second seats, as FIDE's colour difference), else to whoever did
   not have it last round, else to the higher-listed entrant on odd boards and the lower-listed
   on even boards (FIDE's round-1 colour rule with the first seat drawn for seed 1).

If no rematch-free pairing exists (small fields, many rounds) the event ends after the last
complete round, as lichess does when its pairing engine finds none; :attr:`Schedule.note` says so.
Standings: points, Buchholz cut 1, Buchholz, Sonneborn-Berger, pairings won, seed.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass

import networkx as nx

from ladder.ids import EntrantId, PairingKey
from ladder.tournaments import series
from ladder.tournaments.bracket import reports_by_pairing
from ladder.tournaments.common import Bye, EventState, Pairing, PairingView, Schedule, Standing
from ladder.tournaments.round_robin import rank_lines
from ladder.tournaments.tiebreaks import tally

__all__ = ["TIEBREAKS", "pair_round", "planned_rounds", "schedule", "standings"]

TIEBREAKS = ("BH-C1", "BH", "SB")
"""Tie-breaks applied after points, in order."""

FIRST, SECOND = 1, -1
"""Seat marks in a player's seat history: the first seat, or the second."""


def planned_rounds(state: EventState) -> int:
    """The number of rounds: the configured one, or ceil(log2(entrants))."""
    return state.config.rounds or max(1, math.ceil(math.log2(max(2, len(state.entrants)))))


def seat_faults(history: Sequence[int], seat: int) -> int:
    """How many seat rules a player breaks by taking ``seat`` next: 0, 1 or 2.

    The rules: no third same seat in a row, and a seat difference (first seats minus second
    seats) of at most 2 either way.

    Args:
        history: the player's seats so far, oldest first (:data:`FIRST` or :data:`SECOND`).
        seat: the seat considered.
    """
    faults = 1 if abs(sum(history) + seat) > 2 else 0
    if len(history) >= 2 and history[-1] == history[-2] == seat:
        faults += 1
    return faults


def pair_faults(a: Sequence[int], b: Sequence[int]) -> int:
    """Seat-rule breaks of the better seat order for a pair with seat histories ``a`` and ``b``."""
    return min(seat_faults(a, FIRST) + seat_faults(b, SECOND), seat_faults(a, SECOND) + seat_faults(b, FIRST))


@dataclass(frozen=True, slots=True)
class PairingCost:
    """A round's pairing judged by the documented priorities, most important first (lower is better).

    Rematches and byes to players who had one are not costs: they are never allowed.
    """

    bye_rank: int
    """How far above the bottom of the list the bye went (0: the lowest-listed player)."""
    seat_faults: int
    """Seat-rule breaks (:func:`seat_faults`), each pair seated the better way."""
    floaters: int
    """Pairs whose two players have different scores."""
    score_gap: float
    """Sum of the score differences within pairs."""


def pairing_cost(
    pairs: Sequence[tuple[EntrantId, EntrantId]],
    bye: EntrantId | None,
    order: Sequence[EntrantId],
    points: Mapping[EntrantId, float],
    seats: Mapping[EntrantId, Sequence[int]],
) -> PairingCost:
    """Returns the :class:`PairingCost` of a round's pairing (tests use it to check the optimiser)."""
    return PairingCost(
        bye_rank=0 if bye is None else len(order) - 1 - list(order).index(bye),
        seat_faults=sum(pair_faults(seats.get(a, ()), seats.get(b, ())) for a, b in pairs),
        floaters=sum(1 for a, b in pairs if points[a] != points[b]),
        score_gap=sum(abs(points[a] - points[b]) for a, b in pairs),
    )


def pair_round(
    order: Sequence[EntrantId],
    points: Mapping[EntrantId, float],
    met: Set[frozenset[EntrantId]],
    no_bye: Set[EntrantId],
    seats: Mapping[EntrantId, Sequence[int]] | None = None,
) -> tuple[list[tuple[EntrantId, EntrantId]], EntrantId | None] | None:
    """Pairs one round; returns ``(pairs, bye)`` or ``None`` if no rematch-free pairing exists.

    The pairing is a maximum-weight perfect matching (networkx's blossom algorithm, integer
    weights, so exact) over the pairs that have not met, plus a bye node joined to the players
    who may take the bye. Each edge's weight encodes, in order of priority (each level outweighs
    everything below it put together):

    1. the bye to the lowest-listed player who may take it;
    2. fewest seat-rule breaks (:func:`seat_faults`: no third same seat in a row, seat
       difference at most 2), seating each pair the better way;
    3. fewest pairs across score groups, then the smallest sum of score differences;
    4. the Dutch "top half meets bottom half" layout within a score group (so round 1 with eight
       is 1-5, 2-6, 3-7, 4-8), then the list order.

    Args:
        order: active entrants, best first (points, then seed).
        points: points so far.
        met: pairs that already met (never paired again).
        no_bye: entrants who may not receive the bye (they had one, or a forfeit win).
        seats: each entrant's seats so far, oldest first (:data:`FIRST`/:data:`SECOND`).

    Returns:
        Pairs as (higher-listed, lower-listed), in board order (by the higher-listed player), and
        the bye; the same inputs always give the same pairing.
    """
    history = seats or {}
    key = (
        tuple(order),
        tuple(points[e] for e in order),
        frozenset(m for m in met if m <= set(order)),
        frozenset(e for e in no_bye if e in set(order)),
        tuple(tuple(history.get(e, ())) for e in order),
    )
    return _pair_cached(key)


@functools.lru_cache(maxsize=4096)
def _pair_cached(
    key: tuple[
        tuple[EntrantId, ...],
        tuple[float, ...],
        frozenset[frozenset[EntrantId]],
        frozenset[EntrantId],
        tuple[tuple[int, ...], ...],
    ],
) -> tuple[list[tuple[EntrantId, EntrantId]], EntrantId | None] | None:
    # Cached because schedule() derives every round again on each call; the key is every input.
    order, score_list, met, no_bye, seat_lists = key
    n = len(order)
    if n < 2:
        return None
    points = dict(zip(order, score_list, strict=True))
    seats = dict(zip(order, seat_lists, strict=True))
    index = {e: i for i, e in enumerate(order)}
    groups = Counter(score_list)
    odd = n % 2 == 1
    if odd and all(e in no_bye for e in order):
        return None
    # Integer levels; each multiplier exceeds the largest possible total of the levels below.
    pairs_count = n // 2 + 1
    position_max = n * n + n
    gap_scale = 1000
    gap_max = max(round(abs(a - b) * gap_scale) for a in score_list for b in score_list) + 1
    m_position = 1
    m_gap = m_position * pairs_count * position_max + 1
    m_float = m_gap * pairs_count * gap_max + 1
    m_seat = m_float * (pairs_count + 1)
    m_bye = m_seat * (2 * pairs_count + 1)
    top = m_bye * (n + 1)
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(n + (1 if odd else 0)))
    for i, a in enumerate(order):
        for j in range(i + 1, n):
            b = order[j]
            if frozenset((a, b)) in met:
                continue
            ideal = i + groups[points[a]] // 2
            cost = (
                m_seat * pair_faults(seats[a], seats[b])
                + m_float * (points[a] != points[b])
                + m_gap * round(abs(points[a] - points[b]) * gap_scale)
                + m_position * (abs(j - ideal) * n + i)
            )
            graph.add_edge(i, j, weight=top - cost)
    if odd:
        for i, a in enumerate(order):
            if a not in no_bye:
                graph.add_edge(i, n, weight=top - m_bye * (n - 1 - i))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) < graph.number_of_nodes():
        return None
    pairs: list[tuple[EntrantId, EntrantId]] = []
    bye: EntrantId | None = None
    for u, v in matching:
        i, j = min(u, v), max(u, v)
        if j == n:
            bye = order[i]
        else:
            pairs.append((order[i], order[j]))
    pairs.sort(key=lambda p: index[p[0]])
    return pairs, bye


def schedule(state: EventState) -> Schedule:
    """Derives every round from the reports; publishes rounds until one is undecided."""
    grouped = reports_by_pairing(state)
    withdrawn = state.withdrawn
    seed_of = {e.id: e.seed for e in state.entrants}
    views: list[PairingView] = []
    byes: list[Bye] = []
    seats_of: dict[EntrantId, list[int]] = {e: [] for e in state.by_seed}
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
        paired = pair_round(order, points, met, no_bye, seats_of)
        if paired is None:
            return Schedule(tuple(views), tuple(byes), True, f"no rematch-free pairing exists for round {number}")
        pairs, bye = paired
        round_first: set[EntrantId] = set()
        open_round = False
        for board, (high, low) in enumerate(pairs, start=1):
            first = _first_seat(high, low, board, seats_of, last_first)
            seats = (high, low) if first == high else (low, high)
            key = PairingKey(f"R{number}-{board}")
            reports = grouped.get(key, [])
            games = sum(1 for r in reports if not r.forfeited)
            pairing = Pairing(key, number, seats, state.config.best_of, "main", games)
            outcome = series.resolve(pairing, reports, list(withdrawn))
            views.append(PairingView(pairing, outcome))
            open_round = open_round or outcome is None
            seats_of[first].append(FIRST)
            seats_of[seats[1]].append(SECOND)
            round_first.add(first)
        if bye is not None:
            byes.append(Bye(number, bye, state.config.bye_points))
        last_first = round_first
        if open_round:
            return Schedule(tuple(views), tuple(byes), False)
    return Schedule(tuple(views), tuple(byes), True)


def _first_seat(
    high: EntrantId, low: EntrantId, board: int, seats: Mapping[EntrantId, Sequence[int]], last_first: set[EntrantId]
) -> EntrantId:
    """Who sits first: the order breaking fewer seat rules, then the lower seat difference, then
    whoever did not sit first last round, then the higher-listed on odd boards."""
    high_first = seat_faults(seats[high], FIRST) + seat_faults(seats[low], SECOND)
    low_first = seat_faults(seats[high], SECOND) + seat_faults(seats[low], FIRST)
    if high_first != low_first:
        return high if high_first < low_first else low
    difference = {e: sum(seats[e]) for e in (high, low)}
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
