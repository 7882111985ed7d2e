"""Rating-farming flags (issue 27, "harder to game"): the rule of docs/ladder.md on worked values."""

from __future__ import annotations

import math

import pytest

from ladder.errors import InvalidResultError
from ladder.farming import FarmingRule, Seat, flag_pairs


def duel(
    a: str,
    b: str,
    *,
    a_wins: bool | None,
    author_a: str = "ann",
    author_b: str = "ann",
    elo_a: float = 1500.0,
    elo_b: float = 1500.0,
) -> list[Seat]:
    rank_a, rank_b = (1, 1) if a_wins is None else ((1, 2) if a_wins else (2, 1))
    return [Seat(a, author_a, rank_a, elo_a), Seat(b, author_b, rank_b, elo_b)]


def test_ten_straight_wins_between_equal_ratings_are_flagged_with_the_worked_z() -> None:
    # 10 meetings at p = 0.5: expected 5, variance 10 x 0.25 = 2.5, z = (10 - 5) / sqrt(2.5) = 3.1623.
    flags = flag_pairs([duel("b2", "b1", a_wins=True) for _ in range(10)])
    assert len(flags) == 1
    flag = flags[0]
    assert (flag.author, flag.winner, flag.loser, flag.meetings) == ("ann", "b2", "b1", 10)
    assert flag.points == 10.0 and flag.expected == pytest.approx(5.0)
    assert flag.z == pytest.approx(5.0 / math.sqrt(2.5))
    assert flag.share == 1.0


def test_nine_of_ten_is_below_the_z_threshold() -> None:
    # points 9, expected 5: z = 4 / sqrt(2.5) = 2.53 < 3; the share 0.9 alone does not flag.
    tables = [duel("x", "y", a_wins=True) for _ in range(9)] + [duel("x", "y", a_wins=False)]
    assert flag_pairs(tables) == []
    assert flag_pairs(tables, FarmingRule(min_z=2.5))[0].z == pytest.approx(4.0 / math.sqrt(2.5))


def test_a_stronger_bot_winning_as_its_rating_predicts_is_not_flagged() -> None:
    # Elo 1900 against 1500: p = 1 / (1 + 10^-1) = 0.90909; 10 wins: expected 9.0909,
    # variance 10 x 0.90909 x 0.09091 = 0.82645, z = 0.90909 / 0.90909 = 1.0.
    tables = [duel("strong", "weak", a_wins=True, elo_a=1900.0) for _ in range(10)]
    assert flag_pairs(tables) == []
    assert flag_pairs(tables, FarmingRule(min_z=0.99))[0].z == pytest.approx(1.0)


def test_the_expectation_is_held_at_the_first_meeting_so_the_pairs_own_results_do_not_explain_them() -> None:
    # Ten straight wins between equals, the Elo moving 20 points a game as it would: the first
    # meeting's p = 0.5 stands, so z = 5 / sqrt(2.5) as with fixed ratings.
    tables = [duel("a", "b", a_wins=True, elo_a=1500.0 + 20 * i, elo_b=1500.0 - 20 * i) for i in range(10)]
    assert flag_pairs(tables)[0].z == pytest.approx(5.0 / math.sqrt(2.5))


def test_fewer_meetings_than_the_rule_asks_are_not_flagged() -> None:
    assert flag_pairs([duel("a", "b", a_wins=True) for _ in range(9)]) == []


def test_bots_of_different_authors_and_house_bots_are_never_paired() -> None:
    tables = [duel("a", "b", a_wins=True, author_b="bob") for _ in range(20)]
    tables += [duel("h1", "h2", a_wins=True, author_a="", author_b="") for _ in range(20)]
    assert flag_pairs(tables) == []


def test_pods_score_every_same_author_pair_by_rank_and_ties_count_half() -> None:
    # In a pod, ann's p and q are scored against each other only; bob's seat is not paired.
    pod = [Seat("p", "ann", 1, 1500.0), Seat("bob1", "bob", 2, 1500.0), Seat("q", "ann", 3, 1500.0)]
    tie = [Seat("p", "ann", 1, 1500.0), Seat("q", "ann", 1, 1500.0)]
    flags = flag_pairs([pod] * 12 + [tie] * 2, FarmingRule(min_meetings=14))
    assert len(flags) == 1 and flags[0].winner == "p" and flags[0].points == 13.0  # 12 wins + 2 halves


def test_the_losing_side_of_the_sorted_pair_is_named_winner_when_it_took_the_points() -> None:
    flags = flag_pairs([duel("a", "z", a_wins=False) for _ in range(10)])
    assert flags[0].winner == "z" and flags[0].loser == "a" and flags[0].points == 10.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_meetings": 0}, "min_meetings"),
        ({"min_share": 0.4}, "min_share"),
        ({"min_share": 1.5}, "min_share"),
        ({"min_z": float("nan")}, "min_z"),
    ],
)
def test_a_bad_rule_is_refused_with_the_ladders_error(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(InvalidResultError, match=message):
        FarmingRule(**kwargs)  # type: ignore[arg-type]


def test_bad_ranks_and_ratings_are_refused() -> None:
    with pytest.raises(InvalidResultError, match="rank"):
        flag_pairs([[Seat("a", "ann", 0, 1500.0), Seat("b", "ann", 1, 1500.0)]])
    with pytest.raises(InvalidResultError, match="elo"):
        flag_pairs([[Seat("a", "ann", 1, float("inf")), Seat("b", "ann", 2, 1500.0)]])
