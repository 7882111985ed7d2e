"""Elo: worked examples from the references, then properties.

Partitions: 1v1 win/draw/loss, free-for-all with 3-4 players and ties, 2v2 teams, K schedule edges.
"""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ladder import elo
from ladder.errors import InvalidResultError


@pytest.mark.parametrize(("edge", "expected"), [(0, 0.5), (100, 0.64), (200, 0.76), (400, 0.909)])
def test_expected_score_for_rating_edges(edge: float, expected: float) -> None:
    # ratings-brackets.md 1.1: a 100-point edge gives about 0.64, 200 about 0.76, 400 about 0.909.
    assert elo.expected_score(1500 + edge, 1500) == pytest.approx(expected, abs=0.005)
    assert elo.expected_score(1500, 1500 + edge) == pytest.approx(1 - expected, abs=0.005)


def test_wikipedia_five_game_example() -> None:
    # Wikipedia "Elo rating system": 1613 plays 1609 (L), 1477 (D), 1388 (W), 1586 (W), 1720 (L) with
    # K = 32 and the pre-event rating for every game: sum of E = 2.866566..., new rating 1601.2699.
    games = [(1609, 0.0), (1477, 0.5), (1388, 1.0), (1586, 1.0), (1720, 0.0)]
    total_expected = sum(elo.expected_score(1613, opponent) for opponent, _ in games)
    assert total_expected == pytest.approx(2.866566, abs=1e-6)
    new = 1613 + sum(elo.updated_rating(1613, opponent, score, 32) - 1613 for opponent, score in games)
    assert new == pytest.approx(1601.2699, abs=1e-4)
    assert round(new) == 1601


def test_one_v_one_changes_match_the_textbook_update() -> None:
    changes = elo.rating_changes([1613, 1388], [2, 1], [32, 32])
    assert changes[0] == pytest.approx(elo.updated_rating(1613, 1388, 0.0, 32) - 1613)
    assert changes[0] == pytest.approx(-changes[1])


def test_draw_between_equals_changes_nothing() -> None:
    assert elo.rating_changes([1500, 1500], [1, 1], [20, 20]) == (0.0, 0.0)


def test_free_for_all_is_pairwise_with_k_divided() -> None:
    # Four equal players finishing 1, 2, 3, 4 score 3, 2, 1, 0 pairwise points against an expected 1.5
    # each, and K/(N-1) = 30/3 = 10 per point: +15, +5, -5, -15.
    changes = elo.rating_changes([1500] * 4, [1, 2, 3, 4], [30] * 4)
    assert changes == pytest.approx((15.0, 5.0, -5.0, -15.0))


def test_free_for_all_ties_score_half() -> None:
    # Three equal players, two tied for first: 1.5, 1.5, 0 against 1 expected, K/(N-1) = 10: +5, +5, -10.
    assert elo.rating_changes([1500] * 3, [1, 1, 3], [20] * 3) == pytest.approx((5.0, 5.0, -10.0))


def test_team_game_uses_team_means() -> None:
    # Team A (1600, 1400) has mean 1500 like team B (1550, 1450): each winner +K/2, each loser -K/2.
    changes = elo.rating_changes([1600, 1550, 1400, 1450], [1, 2, 1, 2], [20] * 4, teams=[0, 1, 0, 1])
    assert changes == pytest.approx((10.0, -10.0, 10.0, -10.0))


def test_team_game_with_uneven_means() -> None:
    expected = elo.expected_score(1600, 1500)
    changes = elo.rating_changes([1700, 1500, 1500, 1500], [2, 1, 2, 1], [40, 20, 20, 20], teams=[0, 1, 0, 1])
    assert changes[0] == pytest.approx(40 * (0 - expected))
    assert changes[2] == pytest.approx(20 * (0 - expected))
    assert changes[1] == pytest.approx(20 * expected)


def test_k_schedule() -> None:
    schedule = elo.KSchedule(provisional_games=2, provisional_k=40, established_k=20)
    assert [schedule.k(n) for n in range(4)] == [40, 40, 20, 20]
    assert schedule.is_provisional(1) and not schedule.is_provisional(2)
    with pytest.raises(InvalidResultError):
        elo.KSchedule(provisional_k=-1)


def test_mismatched_lengths_raise() -> None:
    with pytest.raises(InvalidResultError, match="mismatched"):
        elo.rating_changes([1500, 1500], [1], [20, 20])


ratings = st.floats(min_value=0, max_value=3500, allow_nan=False)
ks = st.floats(min_value=0, max_value=64, allow_nan=False)


@st.composite
def games(draw: st.DrawFn) -> tuple[list[float], list[int]]:
    n = draw(st.integers(min_value=2, max_value=4))
    return draw(st.lists(ratings, min_size=n, max_size=n)), draw(st.lists(st.integers(1, n), min_size=n, max_size=n))


@given(games(), ks)
def test_equal_k_is_zero_sum(game: tuple[list[float], list[int]], k: float) -> None:
    rs, ranks = game
    assert math.fsum(elo.rating_changes(rs, ranks, [k] * len(rs))) == pytest.approx(0.0, abs=1e-9)


@given(games(), ks)
def test_a_winner_never_loses_and_a_loser_never_gains(game: tuple[list[float], list[int]], k: float) -> None:
    rs, ranks = game
    changes = elo.rating_changes(rs, ranks, [k] * len(rs))
    for rank, change in zip(ranks, changes, strict=True):
        if rank == min(ranks) and ranks.count(rank) == 1:
            assert change >= 0
        if rank == max(ranks) and ranks.count(rank) == 1:
            assert change <= 0


@given(ratings, ratings, ks)
def test_a_win_never_lowers_a_rating_and_beats_a_draw(a: float, b: float, k: float) -> None:
    win = elo.updated_rating(a, b, 1.0, k)
    draw = elo.updated_rating(a, b, 0.5, k)
    loss = elo.updated_rating(a, b, 0.0, k)
    assert win >= a
    assert loss <= a
    assert loss <= draw <= win
