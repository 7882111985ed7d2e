"""Pod Swiss for free-for-all games: pod sizes, placement points, seats, byes, and properties.

Partitions: fields of 3 to 30, pods of 4 and 3, byes for a field of 5, tied places, forfeits in a pod.
"""

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.errors import InvalidEventError
from ladder.ids import EntrantId, MatchId
from ladder.tournaments import Format, Report, next_pairings, record_result, schedule, standings
from ladder.tournaments.common import pod_points
from ladder.tournaments.pods import plan_pods
from tests.ladder.tournament_helpers import better_seed_wins, event, play_out, random_decider

IDS = [EntrantId(x) for x in "abcd"]


@pytest.mark.parametrize(
    ("n", "sizes"),
    [
        (3, [3]),
        (4, [4]),
        (5, [4]),
        (6, [3, 3]),
        (7, [4, 3]),
        (8, [4, 4]),
        (9, [3, 3, 3]),
        (10, [4, 3, 3]),
        (13, [4, 3, 3, 3]),
    ],
)
def test_plan_pods(n: int, sizes: list[int]) -> None:
    assert plan_pods(n) == sizes


def test_pod_points_are_worth_zero_to_one_at_any_size() -> None:
    assert pod_points((1, 2, 3, 4), (), IDS) == pytest.approx((1, 2 / 3, 1 / 3, 0))
    assert pod_points((2, 1, 3), (), IDS[:3]) == pytest.approx((0.5, 1, 0))
    assert pod_points((1, 1, 3, 4), (), IDS) == pytest.approx((5 / 6, 5 / 6, 1 / 3, 0))
    assert pod_points((1, 2, 3, 4), (IDS[3],), IDS)[3] == 0


def test_pods_need_three_entrants_and_one_game() -> None:
    with pytest.raises(InvalidEventError):
        event(Format.POD_SWISS, 2)
    with pytest.raises(InvalidEventError):
        event(Format.POD_SWISS, 8, best_of=3)


def test_first_round_and_standings() -> None:
    state = event(Format.POD_SWISS, 8, rounds=3)
    first = next_pairings(state)
    assert [p.participants for p in first] == [("p1", "p2", "p3", "p4"), ("p5", "p6", "p7", "p8")]
    state = play_out(state, better_seed_wins)
    table = standings(state)
    assert table[0].entrant == "p1" and table[0].points == 3.0
    assert sum(s.points for s in table) == pytest.approx(8 * 3 / 2)


def test_field_of_five_gives_one_bye_per_round_to_different_players() -> None:
    state = play_out(event(Format.POD_SWISS, 5, rounds=3), better_seed_wins)
    byes = [b.entrant for b in schedule(state).byes]
    assert len(byes) == 3 and len(set(byes)) == 3


def test_forfeit_in_a_pod() -> None:
    state = event(Format.POD_SWISS, 4, rounds=1)
    (pod,) = next_pairings(state)
    absent = pod.participants[0]
    ranks = (4, 1, 2, 3)
    state = record_result(state, Report(pod.key, MatchId("m"), ranks, (absent,)))
    table = {s.entrant: s for s in standings(state)}
    assert table[absent].points == 0 and table[absent].played == 0


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 30), st.integers(1, 6), st.integers(0, 2**32))
def test_everyone_plays_each_round_and_seats_even_out(n: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    state = play_out(event(Format.POD_SWISS, n, rounds=rounds), random_decider(rng, draw_chance=0.1))
    plan = schedule(state)
    assert plan.finished
    for number in range(1, rounds + 1):
        seated = [e for v in plan.pairings if v.pairing.round == number for e in v.pairing.participants]
        seated += [b.entrant for b in plan.byes if b.round == number]
        assert sorted(seated) == sorted(EntrantId(f"p{i}") for i in range(1, n + 1))
        assert all(len(v.pairing.participants) in (3, 4) for v in plan.pairings)
    byes = Counter(b.entrant for b in plan.byes)
    assert max(byes.values(), default=0) <= max(1, -(-len(plan.byes) // n))
    first_seats = Counter(v.pairing.participants[0] for v in plan.pairings)
    assert max(first_seats.values()) <= max(2, rounds // 2 + 1)
