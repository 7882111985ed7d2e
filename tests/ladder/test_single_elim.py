"""Single elimination: seeding layouts, byes, series, third place, forfeits, and play-out properties.

Partitions: power-of-two fields and fields with byes; best-of-1 and best-of-3; with and without a
third-place match; forfeits and withdrawals; random results.
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.errors import InvalidEventError
from ladder.ids import EntrantId, MatchId
from ladder.tournaments import Format, Report, is_finished, next_pairings, record_result, schedule, standings, withdraw
from ladder.tournaments.bracket import seeding_order
from tests.ladder.tournament_helpers import better_seed_wins, event, play_out, random_decider, seed_number


def test_seeding_order_8_and_16() -> None:
    # ratings-brackets.md 4.1 (OEIS A208569, brackets-manager inner_outer).
    assert seeding_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert seeding_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    with pytest.raises(InvalidEventError):
        seeding_order(12)


def round_pairs(state: object, rnd: int) -> set[tuple[int, ...]]:
    views = schedule(state).pairings  # type: ignore[arg-type]
    return {
        tuple(sorted(seed_number(e) for e in v.pairing.participants))
        for v in views
        if v.pairing.round == rnd and v.pairing.bracket == "winners"
    }


@pytest.mark.parametrize("size", [8, 16, 32])
def test_better_seeds_winning_pair_seeds_summing_to_field_plus_one(size: int) -> None:
    state = play_out(event(Format.SINGLE_ELIMINATION, size), better_seed_wins)
    m = size
    rnd = 1
    while m >= 2:
        assert all(sum(pair) == m + 1 for pair in round_pairs(state, rnd))
        m //= 2
        rnd += 1
    assert round_pairs(state, rnd - 1) == {(1, 2)}
    assert [s.entrant for s in standings(state)][:2] == ["p1", "p2"]


def test_twelve_entrants_byes_to_the_top_four() -> None:
    # ratings-brackets.md 4.1: 12 entrants, seeds 1-4 get byes, round 1 is 8-9, 5-12, 7-10, 6-11.
    state = event(Format.SINGLE_ELIMINATION, 12)
    first = [tuple(seed_number(e) for e in p.participants) for p in next_pairings(state)]
    assert first == [(8, 9), (5, 12), (7, 10), (6, 11)]
    state = play_out(state, better_seed_wins)
    assert round_pairs(state, 2) == {(1, 8), (4, 5), (2, 7), (3, 6)}
    assert len(schedule(state).pairings) == 11


def test_third_place_match_and_final_standings() -> None:
    state = play_out(event(Format.SINGLE_ELIMINATION, 8, third_place=True), better_seed_wins)
    table = standings(state)
    assert [(s.entrant, s.rank) for s in table[:4]] == [("p1", 1), ("p2", 2), ("p3", 3), ("p4", 4)]
    assert {s.rank for s in table[4:]} == {5}
    assert table[0].status == "champion" and table[1].status == "final" and table[2].status == "third place"


def test_best_of_three_series_and_deciding_games_after_draws() -> None:
    state = event(Format.SINGLE_ELIMINATION, 2, best_of=3)
    (pairing,) = next_pairings(state)
    state = record_result(state, Report(pairing.key, MatchId("g1"), (1, 2)))
    state = record_result(state, Report(pairing.key, MatchId("g2"), (1, 1)))
    state = record_result(state, Report(pairing.key, MatchId("g3"), (2, 1)))
    # One win each and a draw after three games: a knock-out series goes on.
    (pairing,) = next_pairings(state)
    assert pairing.games_played == 3
    state = record_result(state, Report(pairing.key, MatchId("g4"), (2, 1)))
    assert is_finished(state)
    assert standings(state)[0].entrant == "p2"


def test_forfeit_and_withdrawal_advance_the_opponent() -> None:
    state = event(Format.SINGLE_ELIMINATION, 4)
    first, second = next_pairings(state)
    state = record_result(state, Report(first.key, MatchId("f1"), (1, 2), (first.participants[1],)))
    state = withdraw(state, second.participants[0])
    (final,) = next_pairings(state)
    assert set(final.participants) == {first.participants[0], second.participants[1]}
    assert withdraw(state, second.participants[0]) == state


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.sampled_from([1, 3]), st.booleans(), st.integers(0, 2**32))
def test_every_match_played_once_and_one_champion(n: int, best_of: int, third: bool, seed: int) -> None:
    state = event(Format.SINGLE_ELIMINATION, n, best_of=best_of, third_place=third)
    seen_decided: set[str] = set()
    rng = random.Random(seed)
    decide = random_decider(rng, draw_chance=0.1)
    for _ in range(10_000):
        pending = next_pairings(state)
        if not pending:
            break
        assert not {p.key for p in pending} & seen_decided
        for p in pending:
            report = Report(p.key, MatchId(f"{p.key}/{p.games_played}"), decide(p, p.games_played))
            state = record_result(state, report)
            assert record_result(state, report) == state  # recording twice counts once
        seen_decided |= {v.pairing.key for v in schedule(state).pairings if v.outcome is not None}
    plan = schedule(state)
    assert plan.finished
    keys = [v.pairing.key for v in plan.pairings]
    assert len(keys) == len(set(keys))
    assert len(keys) == n - 1 + (1 if third and n >= 4 else 0)
    table = standings(state)
    assert [s.rank for s in table].count(1) == 1
    assert sorted(s.entrant for s in table) == sorted(EntrantId(f"p{i}") for i in range(1, n + 1))
