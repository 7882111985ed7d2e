"""Swiss pairs as documented: every round is the best legal pairing by the stated priorities (issue 12, finding 5).

docs/ladder.md: "no rematch; byes only to players without one; no third same seat in a row and seat
difference at most 2 when a legal pairing allows; pairing within score groups when legal (minimise
score differences)". Each round of many seeded random events is judged by ``tests/ladder/swiss_rules.py``,
which writes those rules out independently of the optimiser: against brute force over every legal
pairing for fields of 5-10, and against every two-pair exchange (and bye exchange) for fields up to 64.
"""

from __future__ import annotations

import random

import pytest

from ladder.ids import EntrantId
from ladder.tournaments import Format, Report, next_pairings, record_result, schedule
from ladder.tournaments.swiss import pair_round
from tests.ladder import swiss_rules as rules
from tests.ladder.tournament_helpers import event, play_out, random_decider

E = EntrantId


def test_the_issues_eight_players_in_round_four() -> None:
    # Issue 12: "with 8 players over 4 rounds, a player gets the second seat three rounds running although
    # a legal pairing avoids it, and players are paired across score groups although a legal pairing
    # within them exists". These are round 4's inputs from such an event (seeded play under the old
    # greedy pairing, which paired 7-6, 5-4, 8-1, 2-3: p1 second and p5 first for the third round running,
    # four pairs across score groups).
    r = rules.Round(
        number=4,
        order=["p7", "p4", "p6", "p8", "p1", "p2", "p5", "p3"],
        points={"p1": 1.0, "p2": 1.0, "p3": 0.0, "p4": 2.0, "p5": 1.0, "p6": 2.0, "p7": 3.0, "p8": 2.0},
        met={
            frozenset(p)
            for p in [
                ("p1", "p4"),
                ("p1", "p5"),
                ("p1", "p6"),
                ("p2", "p6"),
                ("p2", "p7"),
                ("p2", "p8"),
                ("p3", "p5"),
                ("p3", "p6"),
                ("p3", "p7"),
                ("p4", "p7"),
                ("p4", "p8"),
                ("p5", "p8"),
            ]
        },
        no_bye=set(),
        seats={
            "p1": [1, -1, -1],
            "p2": [-1, -1, 1],
            "p3": [1, 1, -1],
            "p4": [-1, 1, 1],
            "p5": [-1, 1, 1],
            "p6": [1, -1, 1],
            "p7": [-1, 1, -1],
            "p8": [1, -1, -1],
        },
        pairs=[],
        bye=None,
    )
    old = [("p7", "p6"), ("p5", "p4"), ("p8", "p1"), ("p2", "p3")]
    assert rules.cost(r, old, None, as_seated=True) == (0, 2, 4, 4.0)
    assert rules.best_cost(r) == (0, 0, 2, 2.0)
    paired = pair_round(
        [E(e) for e in r.order],
        {E(e): p for e, p in r.points.items()},
        {frozenset(E(x) for x in m) for m in r.met},
        set(),
        {E(e): s for e, s in r.seats.items()},
    )
    assert paired is not None
    pairs, bye = paired
    assert bye is None and rules.cost(r, pairs, None) == (0, 0, 2, 2.0)


def judge(state: object, *, brute_force: bool) -> int:
    """Checks every round of a finished event; returns how many rounds had to break a seat rule."""
    forced = 0
    for r in rules.rounds(state):  # type: ignore[arg-type]
        assert all(frozenset(p) not in r.met for p in r.pairs), f"round {r.number}: a rematch"
        assert r.bye is None or r.bye not in r.no_bye, f"round {r.number}: a second bye for {r.bye}"
        seated = {e for p in r.pairs for e in p} | ({r.bye} if r.bye else set())
        assert seated == set(r.order) and len(r.pairs) == len(r.order) // 2
        got = rules.cost(r, r.pairs, r.bye)
        # Each pair sits the better way round: the published seats break no more rules than needed.
        assert rules.cost(r, r.pairs, r.bye, as_seated=True) == got, f"round {r.number}: seats given the worse way"
        if brute_force:
            best = rules.best_cost(r)
            assert got == best, f"round {r.number}: {got} but a legal pairing costs {best} ({r.pairs})"
        else:
            for pairs, bye in rules.exchanges(r):
                better = rules.cost(r, pairs, bye)
                assert not better < got, f"round {r.number}: exchanging to {pairs} improves {got} to {better}"
        forced += got[1] > 0
    return forced


@pytest.mark.parametrize("seed", range(30))
def test_small_events_pair_every_round_as_well_as_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    n = 5 + seed % 6  # 5-10 players
    state = play_out(event(Format.SWISS, n, rounds=min(n - 1, 3 + seed % 4)), random_decider(rng, draw_chance=0.15))
    judge(state, brute_force=True)


@pytest.mark.parametrize("seed", range(8))
def test_large_events_admit_no_improving_exchange(seed: int) -> None:
    rng = random.Random(1000 + seed)
    n = rng.randrange(11, 65)
    state = play_out(event(Format.SWISS, n, rounds=rng.randrange(4, 8)), random_decider(rng, draw_chance=0.15))
    judge(state, brute_force=False)


def test_the_issues_field_sizes_keep_the_seat_rules() -> None:
    # The issue probed 9, 16 and 33 players and found rounds breaking the rules "often (51 of 140 rounds
    # at 33 players)". Over 10 seeded 7-round events each, every round is the best legal pairing (brute
    # force at 9; no improving exchange at 16 and 33). A seat rule is broken only where no legal pairing
    # avoids it: that happens in late rounds of the 9-player events, when most pairs have met.
    forced = {}
    for n in (9, 16, 33):
        forced[n] = 0
        for seed in range(10):
            rng = random.Random(n * 100 + seed)
            state = play_out(event(Format.SWISS, n, rounds=7), random_decider(rng, draw_chance=0.1))
            forced[n] += judge(state, brute_force=n <= 9)
    assert forced[16] == forced[33] == 0, forced


def test_same_inputs_same_pairing() -> None:
    rng = random.Random(4)
    state = play_out(event(Format.SWISS, 20, rounds=5), random_decider(rng, draw_chance=0.1))
    again = event(Format.SWISS, 20, rounds=5)
    for report in state.reports:
        again = record_result(again, report)
    assert schedule(again) == schedule(state)


def test_withdrawals_and_forfeits_still_pair_without_rematches() -> None:
    state = event(Format.SWISS, 12, rounds=6)
    rng = random.Random(8)
    decide = random_decider(rng)
    while pending := next_pairings(state):
        for p in pending:
            if rng.random() < 0.1:
                state = record_result(state, Report(p.key, p.key, (1, 2), (p.participants[1],)))  # type: ignore[arg-type]
            else:
                state = record_result(state, Report(p.key, p.key, decide(p, 0)))  # type: ignore[arg-type]
    plan = schedule(state)
    met = [frozenset(v.pairing.participants) for v in plan.pairings]
    assert plan.finished and len(met) == len(set(met))
