"""Pod Swiss: Swiss rounds for free-for-all games (ScrumBrawl), three or four players per pod.

Why this format: a round robin of 4-player pods in which everyone meets everyone exactly once is
a combinatorial design that exists only for some field sizes, while Swiss-style pods work for any
field of three or more and converge on the same idea: play people on your score.

Each round:

1. Active entrants are listed by points, then seed.
2. The field is cut into pods of the allowed sizes (``EventConfig.pod_sizes``, preferred first),
   covering as many entrants as possible: with sizes (4, 3) every field of 6 or more is covered
   exactly, and 5 gives one pod of 4 and a bye. Byes go to the lowest-listed entrants who have
   not had one and are worth ``EventConfig.pod_bye_points``.
3. Pods are filled from the top: the highest unplaced entrant opens a pod and each next seat goes
   to whoever, among the next few unplaced entrants, has met the pod's members least often
   (ties to the higher-listed). Rematches are avoided where possible, not forbidden: with pods of
   four they cannot be in general.
4. Seats: whoever sat furthest from the first seat so far (highest total of past seat numbers)
   sits first, so seat advantage evens out over the event.

Scoring per pod game: the share of pod-mates outscored (ties half), so a pod is worth 0 to 1 at
any size (4 players: 1, 2/3, 1/3, 0). Standings: points, pod Buchholz (per round, the mean final
score of that round's pod-mates; a bye counts the entrant's own score), first places, seed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from ladder.ids import EntrantId, PairingKey
from ladder.tournaments import series
from ladder.tournaments.bracket import reports_by_pairing
from ladder.tournaments.common import Bye, EventState, Pairing, PairingView, Schedule, Standing
from ladder.tournaments.swiss import planned_rounds
from ladder.tournaments.tiebreaks import Record, tally

__all__ = ["plan_pods", "schedule", "standings"]

WINDOW = 3
"""How many extra unplaced entrants below the pod's opener are considered for each seat."""


def plan_pods(players: int, sizes: Sequence[int] = (4, 3)) -> list[int]:
    """Returns pod sizes covering as many of ``players`` as possible, preferred sizes first.

    >>> plan_pods(10)
    [4, 3, 3]
    >>> plan_pods(5)
    [4]
    """
    best: dict[int, list[int]] = {0: []}
    for total in range(1, players + 1):
        options = [best[total - s] + [s] for s in sizes if total - s in best]
        if options:
            # Prefer the plan using the most preferred sizes: compare counts in preference order.
            best[total] = max(options, key=lambda plan: [plan.count(s) for s in sizes])
    covered = max(best)
    return sorted(best[covered], key=lambda s: sizes.index(s))


def schedule(state: EventState) -> Schedule:
    """Derives every round from the reports; publishes rounds until one is undecided."""
    grouped = reports_by_pairing(state)
    withdrawn = state.withdrawn
    seed_of = {e.id: e.seed for e in state.entrants}
    views: list[PairingView] = []
    byes: list[Bye] = []
    meetings: Counter[frozenset[EntrantId]] = Counter()
    seat_total: Counter[EntrantId] = Counter()
    for number in range(1, planned_rounds(state) + 1):
        records = tally(views, byes, state.by_seed)
        active = [e for e in state.by_seed if withdrawn.get(e, math.inf) > number]
        order = sorted(active, key=lambda e: (-records[e].points, seed_of[e]))
        sizes = plan_pods(len(order), state.config.pod_sizes)
        if not sizes:
            return Schedule(tuple(views), tuple(byes), True, "too few entrants left for a pod")
        sitting = _byes(order, len(order) - sum(sizes), {b.entrant for b in byes})
        pool = [e for e in order if e not in sitting]
        open_round = False
        for board, size in enumerate(sizes, start=1):
            pod = [pool.pop(0)]
            while len(pod) < size:
                window = pool[: WINDOW + 1]
                pick = min(window, key=lambda e: (sum(meetings[frozenset((e, m))] for m in pod), pool.index(e)))
                pool.remove(pick)
                pod.append(pick)
            seats = tuple(sorted(pod, key=lambda e: (-seat_total[e], order.index(e))))
            key = PairingKey(f"R{number}-P{board}")
            reports = grouped.get(key, [])
            pairing = Pairing(key, number, seats, 1, "main", sum(1 for r in reports if not r.forfeited))
            outcome = series.resolve(pairing, reports, list(withdrawn))
            views.append(PairingView(pairing, outcome))
            open_round = open_round or outcome is None
            for seat, e in enumerate(seats):
                seat_total[e] += seat
                for other in seats[seat + 1 :]:
                    meetings[frozenset((e, other))] += 1
        for e in sitting:
            byes.append(Bye(number, e, state.config.pod_bye_points))
        if open_round:
            return Schedule(tuple(views), tuple(byes), False)
    return Schedule(tuple(views), tuple(byes), True)


def _byes(order: Sequence[EntrantId], count: int, had: set[EntrantId]) -> list[EntrantId]:
    """The ``count`` lowest-listed entrants without a bye yet (then the lowest-listed, if needed)."""
    fresh = [e for e in reversed(order) if e not in had]
    again = [e for e in reversed(order) if e in had]
    return (fresh + again)[:count]


def pod_buchholz(
    entrant: EntrantId, views: Sequence[PairingView], byes: Sequence[Bye], records: dict[EntrantId, Record]
) -> float:
    """Sum over rounds of the mean final score of the entrant's pod-mates (own score for a bye)."""
    total = 0.0
    for view in views:
        ids = view.pairing.participants
        if view.outcome is None or entrant not in ids:
            continue
        mates = [records[m].points for m in ids if m != entrant]
        total += sum(mates) / len(mates)
    total += sum(records[entrant].points for b in byes if b.entrant == entrant)
    return total


def standings(state: EventState) -> tuple[Standing, ...]:
    """Returns the standings: points, pod Buchholz, first places, seed."""
    plan = schedule(state)
    ids = state.by_seed
    records = tally(plan.pairings, plan.byes, ids)
    firsts: Counter[EntrantId] = Counter()
    for view in plan.pairings:
        if view.outcome is not None and view.outcome.winner_index is not None:
            firsts[view.pairing.participants[view.outcome.winner_index]] += 1
    keys = {e: (records[e].points, pod_buchholz(e, plan.pairings, plan.byes, records), firsts[e]) for e in ids}
    order = sorted(ids, key=lambda e: (-keys[e][0], -keys[e][1], -keys[e][2]))
    return tuple(
        Standing(
            e,
            1 + sum(1 for o in ids if keys[o] > keys[e]),
            *records[e].summary(),
            tiebreaks=(("POD-BH", keys[e][1]), ("FIRSTS", float(keys[e][2]))),
        )
        for e in order
    )
