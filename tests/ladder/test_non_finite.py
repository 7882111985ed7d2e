"""Issue 12, finding 6: ratings refuse NaN, infinity and out-of-range parameters with the ladder's error.

"A NaN stored Elo silently turns the opponent's new rating into NaN; KSchedule and Glicko2Config accept
NaN; volatility 0 raises a bare ValueError." Every entry point of the ratings is tried with each bad
number; the error is :class:`InvalidResultError` (a :class:`LadderError`) and its message names the value.
"""

import math
import re
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ladder import elo, glicko2
from ladder import plackett_luce as pl
from ladder.errors import InvalidResultError, LadderError
from ladder.glicko2 import Glicko2Config, Glicko2Rating
from ladder.history import HistoryEntry, RatingConfig, VersionRating, rate_game, replay
from ladder.ids import BotVersionId, GameName, MatchId
from ladder.results import GameResult

NAN, INF = math.nan, math.inf
BAD = [NAN, INF, -INF]
T0 = datetime(2026, 3, 1, tzinfo=UTC)
G = GameName("g")


def rated(version: str, elo_value: float = 1500.0, **glicko: float) -> VersionRating:
    return VersionRating(BotVersionId(version), G, elo_value, 30, Glicko2Rating(**glicko), T0)


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_a_stored_non_finite_elo_is_refused_not_spread(bad: float) -> None:
    # The case: a NaN Elo read back from storage (here: JSON) used to make the opponent's new
    # rating NaN. It is refused where it enters, and naming it.
    data = rated("a").to_json() | {"elo": bad}
    with pytest.raises(InvalidResultError, match=f"Elo of 'a'.*{bad!r}"):
        VersionRating.from_json(data)
    with pytest.raises(InvalidResultError, match="Glicko-2 deviation"):
        VersionRating.from_json(rated("a").to_json() | {"deviation": bad})
    row = rate_game(GameResult(MatchId("m1"), G, (BotVersionId("a"), BotVersionId("b")), (1, 2), T0), {}).entries[0]
    with pytest.raises(InvalidResultError, match="Elo after"):
        HistoryEntry.from_json(row.to_json() | {"elo_after": bad})


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_elo_functions_refuse_non_finite_ratings_and_k(bad: float) -> None:
    with pytest.raises(InvalidResultError, match="rating"):
        elo.rating_changes([1500.0, bad], [1, 2], [20.0, 20.0])
    with pytest.raises(InvalidResultError, match="K"):
        elo.rating_changes([1500.0, 1500.0], [1, 2], [20.0, bad])
    with pytest.raises(InvalidResultError):
        elo.updated_rating(bad, 1500.0, 1.0, 20.0)
    with pytest.raises(InvalidResultError, match="score"):
        elo.updated_rating(1500.0, 1500.0, NAN, 20.0)


@pytest.mark.parametrize("bad", [NAN, INF, -1.0], ids=repr)
def test_k_schedule_refuses_nan_infinite_and_negative_k(bad: float) -> None:
    with pytest.raises(InvalidResultError, match=f"KSchedule.provisional_k.*{bad!r}"):
        elo.KSchedule(provisional_k=bad)
    with pytest.raises(InvalidResultError, match=re.escape("KSchedule.established_k")):
        elo.KSchedule(established_k=bad)
    with pytest.raises(InvalidResultError, match=re.escape("KSchedule.provisional_games")):
        elo.KSchedule(provisional_games=-1)


@pytest.mark.parametrize("field", ["tau", "epsilon", "max_deviation", "period_seconds"])
@pytest.mark.parametrize("bad", [NAN, INF, 0.0, -1.0], ids=repr)
def test_glicko2_config_refuses_nan_and_out_of_range(field: str, bad: float) -> None:
    with pytest.raises(InvalidResultError, match=f"Glicko2Config.{field}.*{bad!r}"):
        Glicko2Config(**{field: bad})  # type: ignore[arg-type]


def test_volatility_zero_raises_the_ladders_error_naming_it() -> None:
    # Before: math.log(0) in the volatility step raised a bare "ValueError: math domain error".
    with pytest.raises(InvalidResultError, match=re.escape("volatility must be above 0.0, got 0.0")):
        Glicko2Rating(1500.0, 200.0, 0.0)
    for bad in (NAN, INF, -0.06):
        with pytest.raises(LadderError, match="volatility"):
            Glicko2Rating(1500.0, 200.0, bad)
    with pytest.raises(InvalidResultError, match="deviation"):
        Glicko2Rating(1500.0, 0.0, 0.06)
    with pytest.raises(InvalidResultError, match="idle periods"):
        glicko2.idle(Glicko2Rating(), NAN)
    with pytest.raises(InvalidResultError, match=re.escape("scores must lie in 0..1")):
        glicko2.rate(Glicko2Rating(), [(Glicko2Rating(), NAN)])


@pytest.mark.parametrize(
    "kwargs",
    [{"initial_elo": NAN}, {"initial_elo": INF}, {"new_version_deviation": NAN}, {"provisional_deviation": 0.0}],
    ids=str,
)
def test_rating_config_refuses_bad_numbers(kwargs: dict[str, float]) -> None:
    name = next(iter(kwargs))
    with pytest.raises(InvalidResultError, match=f"RatingConfig.{name}"):
        RatingConfig(**kwargs)  # type: ignore[arg-type]


def test_ratings_far_apart_still_rate_to_finite_numbers() -> None:
    # 10**(diff/400) and exp() overflow far out, and an expected score of exactly 1 made Glicko-2's
    # variance 1/0 (two players ~6,000 points apart): both saturate instead.
    assert elo.expected_score(1500.0, 1e9) == 0.0
    assert elo.expected_score(1e9, 1500.0) == 1.0
    for high, low in ((4470.0, -1912.0), (1e300, -1e300)):
        for score in (0.0, 0.5, 1.0):
            new = glicko2.rate(Glicko2Rating(high, 1.0), [(Glicko2Rating(low, 1.0), score)])
            assert all(math.isfinite(x) for x in (new.rating, new.deviation, new.volatility))


@given(
    st.lists(st.floats(-3000, 6000), min_size=2, max_size=4),
    st.lists(st.integers(1, 4), min_size=4, max_size=4),
    st.lists(st.floats(1.0, 350.0), min_size=4, max_size=4),
)
def test_finite_inputs_give_finite_ratings(elos: list[float], ranks: list[int], deviations: list[float]) -> None:
    # The converse: whatever finite ratings go in, every stored number that comes out is finite.
    versions = [BotVersionId(f"v{i}") for i in range(len(elos))]
    current = {
        v: VersionRating(v, G, e, 5, Glicko2Rating(e, d, 0.06), T0)
        for v, e, d in zip(versions, elos, deviations, strict=False)
    }
    result = GameResult(MatchId("m"), G, tuple(versions), tuple(ranks[: len(versions)]), T0)
    out = replay([result], start=current)
    for entry in out.entries:
        numbers = [
            entry.elo_after,
            entry.glicko_after.rating,
            entry.glicko_after.deviation,
            entry.glicko_after.volatility,
        ]
        assert all(math.isfinite(x) for x in numbers)


# Issue 27: the same for Elo's expected score and the OpenSkill (Plackett-Luce) path.


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_expected_score_refuses_non_finite_ratings_and_scale(bad: float) -> None:
    with pytest.raises(InvalidResultError, match=f"rating must be a finite number, got {bad!r}"):
        elo.expected_score(bad, 1500.0)
    with pytest.raises(InvalidResultError, match="opponent rating"):
        elo.expected_score(1500.0, bad)
    with pytest.raises(InvalidResultError, match="scale"):
        elo.expected_score(1500.0, 1500.0, bad)
    for scale in (0.0, -400.0):
        with pytest.raises(InvalidResultError, match=re.escape("scale must be above 0.0")):
            elo.expected_score(1500.0, 1500.0, scale)


@pytest.mark.parametrize("field", ["mu", "sigma", "beta", "kappa", "new_version_widening", "z"])
@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_skill_config_refuses_non_finite_parameters(field: str, bad: float) -> None:
    with pytest.raises(InvalidResultError, match=f"SkillConfig.{field}.*{bad!r}"):
        pl.SkillConfig(**{field: bad})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"sigma": 0.0},
        {"sigma": -1.0},
        {"beta": 0.0},
        {"kappa": 0.0},
        {"kappa": 1.0},
        {"new_version_widening": -1.0},
        {"z": -3.0},
    ],
    ids=str,
)
def test_skill_config_refuses_out_of_range_parameters(kwargs: dict[str, float]) -> None:
    with pytest.raises(InvalidResultError, match=f"SkillConfig.{next(iter(kwargs))}"):
        pl.SkillConfig(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(InvalidResultError, match=r"RatingConfig|SkillConfig"):
        RatingConfig(skill=pl.SkillConfig(**kwargs))  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_a_non_finite_skill_is_refused_where_it_enters(bad: float) -> None:
    with pytest.raises(InvalidResultError, match="OpenSkill mu"):
        pl.Skill(bad, 8.0)
    with pytest.raises(InvalidResultError, match="OpenSkill sigma"):
        pl.Skill(25.0, bad)
    with pytest.raises(InvalidResultError, match="OpenSkill"):
        VersionRating.from_json(rated("a").to_json() | {"skill": {"mu": bad, "sigma": 8.0}})
    row = rate_game(GameResult(MatchId("m1"), G, (BotVersionId("a"), BotVersionId("b")), (1, 2), T0), {}).entries[0]
    with pytest.raises(InvalidResultError, match="OpenSkill sigma"):
        HistoryEntry.from_json(row.to_json() | {"skill_after": {"mu": 25.0, "sigma": bad}})
    with pytest.raises(InvalidResultError, match="malformed OpenSkill data"):
        pl.Skill.from_json({"mu": 25.0})


def test_skill_sigma_zero_a_string_and_bad_z_are_refused() -> None:
    with pytest.raises(InvalidResultError, match="OpenSkill mu must be a number, got '25'"):
        pl.Skill("25", 8.0)  # type: ignore[arg-type]
    with pytest.raises(InvalidResultError, match=re.escape("OpenSkill sigma must be above 0.0, got 0.0")):
        pl.Skill(25.0, 0.0)
    for z in (NAN, INF, -1.0):
        with pytest.raises(InvalidResultError, match="z"):
            pl.Skill().conservative(z)


def test_skills_too_far_apart_are_refused_not_returned_as_infinity() -> None:
    # exp(mu / c) overflows once a skill is ~4,000 above 0 with the default constants: refused and named.
    with pytest.raises(InvalidResultError, match="OpenSkill cannot rate"):
        pl.rate([pl.Skill(1e6, 1.0), pl.Skill(0.0, 1.0)], [2, 1])
    with pytest.raises(InvalidResultError, match=r"cannot rate|non-finite"):
        pl.rate([pl.Skill(1e300, 1.0), pl.Skill(-1e300, 1.0), pl.Skill()], [3, 2, 1])


@given(
    st.lists(st.tuples(st.floats(-100.0, 150.0), st.floats(0.01, 20.0)), min_size=2, max_size=4),
    st.lists(st.integers(1, 4), min_size=4, max_size=4),
)
def test_finite_skills_in_range_give_finite_skills(skills: list[tuple[float, float]], ranks: list[int]) -> None:
    out = pl.rate([pl.Skill(mu, sigma) for mu, sigma in skills], ranks[: len(skills)])
    assert all(math.isfinite(s.mu) and math.isfinite(s.sigma) and s.sigma > 0 for s in out)
