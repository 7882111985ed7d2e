"""Issue 27: same-author opponents are never seated at pods and 2v2; the information preference.

Partitions: pods, 2v2 (a four-seat table) and duels; authors known and unknown; a pool where the rule
leaves someone out; settled and new versions; bad options.
"""

import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.errors import InvalidResultError
from ladder.ids import BotId, BotVersionId
from ladder.matchmaking import Candidate, MatchmakingConfig, information, make_matches, max_bonus, urgency

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def bot(
    name: str, rating: float = 1500.0, owner: str | None = None, deviation: float = 50.0, games: int = 200
) -> Candidate:
    return Candidate(BotVersionId(name), BotId(name), rating, deviation, games, 1, NOW - timedelta(minutes=5), owner)


POD = MatchmakingConfig(table_sizes=(4, 3))
TWO_V_TWO = MatchmakingConfig(table_sizes=(4,))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["ann", "bo", "cy", None]), min_size=3, max_size=12), st.integers(0, 2**32))
@pytest.mark.parametrize("config", [POD, TWO_V_TWO, MatchmakingConfig(table_sizes=(4,), preference="information")])
def test_two_bots_of_one_author_never_share_a_pod_or_a_2v2_table(
    config: MatchmakingConfig, owners: list[str | None], seed: int
) -> None:
    pool = [bot(f"v{i}", 1400 + 20 * i, owner) for i, owner in enumerate(owners)]
    owner_of = {c.version: c.owner for c in pool}
    for match in make_matches(pool, [], NOW, random.Random(seed), config):
        known = [owner_of[v] for v in match.seats if owner_of[v] is not None]
        assert len(known) == len(set(known)), (match.seats, known)


def test_the_rule_leaves_one_out_rather_than_seat_two_of_one_author() -> None:
    # Four bots, two of them by "ann": no legal pod of four; a pod of three without one of ann's is made.
    pool = [bot("a1", owner="ann"), bot("a2", owner="ann"), bot("b"), bot("c")]
    for seed in range(20):
        matches = make_matches(pool, [], NOW, random.Random(seed), POD)
        assert len(matches) == 1 and len(matches[0].seats) == 3
        assert {"b", "c"} <= set(matches[0].seats)
    # Without the rule (organisers may turn it off), all four play.
    off = MatchmakingConfig(table_sizes=(4, 3), separate_authors=False)
    assert len(make_matches(pool, [], NOW, random.Random(1), off)[0].seats) == 4


def test_duels_between_one_authors_bots_are_allowed() -> None:
    pool = [bot("a1", owner="ann"), bot("a2", owner="ann")]
    assert len(make_matches(pool, [], NOW, random.Random(0))) == 1


def test_information_is_highest_for_uncertain_and_close_pairs() -> None:
    settled, new = bot("s", 1500.0, deviation=50.0), bot("n", 1500.0, deviation=250.0)
    assert information(new, bot("x", 1500.0, deviation=50.0)) > information(settled, bot("x", 1500.0, deviation=50.0))
    assert information(settled, bot("close", 1520.0)) > information(settled, bot("far", 1900.0))
    assert information(settled, bot("far", 1e9)) == pytest.approx(0.0)
    assert information(new, settled) == pytest.approx(information(settled, new))


def test_information_preference_picks_the_informative_opponent() -> None:
    # A new version near two settled bots: the close one is drawn far more often than the far one.
    config = MatchmakingConfig(preference="information", explore=0.0)
    pool = [bot("new", 1500.0, deviation=250.0, games=0), bot("close", 1550.0), bot("far", 2300.0)]
    picks = [
        next(
            next(iter(set(m.seats) - {"new"}))
            for m in make_matches(pool, [], NOW, random.Random(s), config)
            if "new" in m.seats
        )
        for s in range(100)
    ]
    assert picks.count(BotVersionId("close")) > 80


def test_information_preference_puts_unsettled_versions_first_within_the_bound() -> None:
    config = MatchmakingConfig(preference="information")
    assert urgency(bot("n", deviation=350.0, games=20), NOW, config) > urgency(bot("s", games=20), NOW, config) + 3.0
    assert max_bonus(config) == pytest.approx(2.0 + 1.0 + 3.0 + 0.01)
    assert max_bonus(MatchmakingConfig()) == pytest.approx(2.0 + 1.0 + 0.01)


@pytest.mark.parametrize(
    "kwargs", [{"preference": "elo"}, {"information_weight": -1.0}, {"information_weight": float("nan")}], ids=str
)
def test_bad_options_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidResultError):
        MatchmakingConfig(**kwargs)  # type: ignore[arg-type]
