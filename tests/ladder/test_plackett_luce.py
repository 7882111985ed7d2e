"""OpenSkill Plackett-Luce skills (issue 27): reference values, no drift, new-version priors, the fold.

Reference values: every literal below was computed once with the ``openskill`` package's documented
API (openskill 6.2.0), ``PlackettLuce(tau=0.0)``, ``model.rating(mu=..., sigma=...)``, then
``model.rate(teams, ranks=[...])`` and ``model.predict_win(teams)``, and pasted here. They pin our
wrapper (seat order, teams as lists of members, ranks, tau = 0) to the library's own results, and a
library upgrade that changes its maths fails here. The two-player win is also derived by hand from
Weng and Lin's Algorithm 4, so the literals are not only the library checked against itself.
"""

from __future__ import annotations

import itertools
import math
from datetime import UTC, datetime, timedelta

import pytest

from ladder import plackett_luce as pl
from ladder.errors import InvalidResultError
from ladder.history import HistoryEntry, VersionRating, prior, rate_game, ratings_from_history, replay
from ladder.ids import BotVersionId, GameName, MatchId
from ladder.plackett_luce import Skill, SkillConfig
from ladder.results import GameResult

T0 = datetime(2026, 4, 1, tzinfo=UTC)
SB = GameName("scrumbrawl")
V = BotVersionId

EXACT = 1e-12
"""Relative tolerance against the literals: they were printed with repr, so they match to the last digit or so."""


def close(got: tuple[Skill, ...], want: list[tuple[float, float]]) -> None:
    assert len(got) == len(want)
    for skill, (mu, sigma) in zip(got, want, strict=True):
        assert skill.mu == pytest.approx(mu, rel=EXACT)
        assert skill.sigma == pytest.approx(sigma, rel=EXACT)


def test_duel_between_new_players_matches_the_library_and_the_hand_derivation() -> None:
    got = pl.rate([Skill(), Skill()], [1, 2])
    close(got, [(27.63523138347365, 8.065506316323548), (22.36476861652635, 8.065506316323548)])
    # By hand (Algorithm 4): c² = 2(σ² + β²); the winner's omega is 1/2 and delta 1/4, gamma = σ/c.
    sigma, beta = 25.0 / 3.0, 25.0 / 6.0
    c = math.sqrt(2.0 * (sigma**2 + beta**2))
    assert got[0].mu == pytest.approx(25.0 + sigma**2 / c * 0.5, rel=EXACT)
    assert got[1].mu == pytest.approx(25.0 - sigma**2 / c * 0.5, rel=EXACT)
    assert got[0].sigma == pytest.approx(sigma * math.sqrt(1.0 - sigma**2 / c**2 * 0.25 * sigma / c), rel=EXACT)


def test_a_draw_is_equal_ranks() -> None:
    got = pl.rate([Skill(30.0, 4.0), Skill(22.0, 6.0)], [1, 1])
    close(got, [(29.652140217353157, 3.9667350449371312), (22.78268451095539, 5.829884810091581)])


def test_four_player_pod_in_seat_order() -> None:
    skills = [Skill(), Skill(28.0, 5.0), Skill(20.0, 7.0), Skill(25.0, 2.0)]
    got = pl.rate(skills, [2, 1, 4, 3])
    close(
        got,
        [
            (26.779368747622357, 8.008263239903728),
            (29.16909083452214, 4.978980569140944),
            (17.140852064105232, 6.776686634688262),
            (24.943853658115025, 1.998333394970255),
        ],
    )


def test_three_player_pod_with_a_tie_for_second() -> None:
    got = pl.rate([Skill(), Skill(28.0, 5.0), Skill(20.0, 7.0)], [1, 2, 2])
    close(
        got,
        [
            (28.276319147521125, 8.132937724353354),
            (26.997054550902625, 4.945470555329702),
            (19.65400228973995, 6.8167149887296885),
        ],
    )


def test_two_v_two_teams_are_the_sum_of_members_whatever_the_seat_order() -> None:
    # The library's teams are [[27/3, 24/6], [26/5, 25/8.33]] with ranks [2, 1]. Our seats alternate
    # teams (0, 1, 0, 1), as ScrumBrawl and Super Fantasy Brawl seat a 2v2.
    skills = [Skill(27.0, 3.0), Skill(26.0, 5.0), Skill(24.0, 6.0), Skill()]
    got = pl.rate(skills, [2, 1, 2, 1], teams=(0, 1, 0, 1))
    close(
        got,
        [
            (26.659019146309163, 2.9901338617523336),
            (26.947169038030104, 4.933494337277798),
            (22.63607658523665, 5.92067632785029),
            (27.631025105639175, 8.02165586256405),
        ],
    )


def test_win_and_first_chances_are_the_models_own_likelihood() -> None:
    # Not the library's predict_win (a normal curve on the logistic scale, measured overconfident by
    # bench.bench_prediction): the Plackett-Luce chance of the order, on the update's scale c.
    beta = 25.0 / 6.0
    c = math.sqrt(4.0**2 + 6.0**2 + 2 * beta**2)
    want = 1.0 / (1.0 + math.exp(-(30.0 - 22.0) / c))
    assert pl.win_chance(Skill(30.0, 4.0), Skill(22.0, 6.0)) == pytest.approx(want, rel=EXACT)
    assert pl.win_chance(Skill(22.0, 6.0), Skill(30.0, 4.0)) == pytest.approx(1 - want, rel=EXACT)
    assert pl.win_chance(Skill(), Skill()) == 0.5
    skills = [Skill(), Skill(28.0, 5.0), Skill(20.0, 7.0), Skill(25.0, 2.0)]
    c4 = math.sqrt(sum(s.sigma**2 for s in skills) + 4 * beta**2)
    weights = [math.exp(s.mu / c4) for s in skills]
    chances = pl.first_chances(skills)
    assert chances == pytest.approx([w / sum(weights) for w in weights], rel=EXACT)
    assert sum(chances) == pytest.approx(1.0)
    # Far apart: no overflow, the favourite is all but certain.
    assert pl.first_chances([Skill(4000.0, 1.0), Skill(0.0, 1.0)]) == pytest.approx((1.0, 0.0))
    # A team's chance is given to both members; its mu is the members' sum.
    team = pl.first_chances([Skill(30.0, 4.0), Skill(22.0, 6.0), Skill(), Skill()], teams=(0, 1, 0, 1))
    assert team[0] == team[2] and team[1] == team[3] and team[0] + team[1] == pytest.approx(1.0)
    c_team = math.sqrt(4.0**2 + 6.0**2 + 2 * (25.0 / 3.0) ** 2 + 2 * beta**2)
    assert team[0] == pytest.approx(1.0 / (1.0 + math.exp(-(55.0 - 47.0) / c_team)), rel=EXACT)


def test_conservative_rating_is_mu_minus_three_sigma() -> None:
    assert Skill(30.0, 4.0).conservative() == pytest.approx(18.0)
    assert Skill().conservative() == pytest.approx(0.0)


def test_tau_is_zero_the_library_default_would_drift() -> None:
    # The library's default tau (25/300) widens sigma before every update; ours is 0.
    from openskill.models import PlackettLuce

    drifting = PlackettLuce().rate([[PlackettLuce().rating()], [PlackettLuce().rating()]], ranks=[1, 2])
    assert drifting[0][0].sigma != pytest.approx(pl.rate([Skill(), Skill()], [1, 2])[0].sigma, rel=EXACT)
    assert pl.model().tau == 0.0


def test_no_drift_within_a_version_sigma_only_shrinks_and_idle_time_adds_nothing() -> None:
    versions = [V("a"), V("b"), V("c"), V("d")]
    results = []
    for i in range(40):
        seats = tuple(versions[(i + k) % 4] for k in range(4))
        ranks = tuple(((i * 7 + k * 3) % 4) + 1 for k in range(4))
        # Gaps of up to 30 days between games: Glicko-2 deviations grow, skills must not.
        results.append(GameResult(MatchId(f"m{i}"), SB, seats, ranks, T0 + timedelta(days=i * (i % 31))))
    out = replay(results)
    by_version: dict[str, list[HistoryEntry]] = {}
    for entry in out.entries:
        by_version.setdefault(entry.version, []).append(entry)
    for entries in by_version.values():
        for previous, entry in itertools.pairwise(entries):
            assert entry.skill_before == previous.skill_after  # nothing between two games
        for entry in entries:
            assert entry.skill_after.sigma <= entry.skill_before.sigma
    # The same games a minute apart give exactly the same skills.
    quick = [
        GameResult(r.match_id, r.game, r.participants, r.ranks, T0 + timedelta(minutes=i))
        for i, r in enumerate(results)
    ]
    assert {v: r.skill for v, r in replay(quick).ratings.items()} == {v: r.skill for v, r in out.ratings.items()}


def test_new_version_prior_is_the_parents_skill_widened() -> None:
    config = SkillConfig()
    settled = Skill(31.0, 1.0)
    child = pl.new_version_prior(settled, config)
    assert child.mu == 31.0
    assert child.sigma == pytest.approx(math.sqrt(1.0 + (25.0 / 6.0) ** 2))
    # Capped at a first version's sigma, and never narrower than the parent.
    assert pl.new_version_prior(Skill(31.0, 8.0), config).sigma == pytest.approx(25.0 / 3.0)
    assert pl.new_version_prior(Skill(31.0, 9.0), config).sigma == 9.0
    # Through the history: the child of a rated parent starts there (parents followed up the chain).
    parent = VersionRating(V("p"), SB, 1600.0, 80, prior(V("p"), SB, {}, {}).glicko, T0, None, settled)
    start = prior(V("c2"), SB, {V("p"): parent}, {V("c2"): V("c1"), V("c1"): V("p")})
    assert start.skill == child and start.inherited_from == V("p")
    first = prior(V("new"), SB, {}, {})
    assert first.skill == Skill(25.0, 25.0 / 3.0)


def test_skills_are_part_of_the_exact_fold() -> None:
    versions = [V(f"v{i}") for i in range(6)]
    parents = {V("v5"): V("v0")}
    results = []
    for i in range(30):
        seats = tuple(versions[(i + k) % (5 if i < 15 else 6)] for k in range(3))
        if i >= 15 and V("v0") in seats and V("v5") in seats:
            continue
        results.append(GameResult(MatchId(f"m{i}"), SB, seats, (1 + i % 3, 1 + (i + 1) % 3, 1 + (i + 2) % 3), T0))
    full = replay(results, parents)
    half = replay(results[:12], parents)
    through_json = {v: VersionRating.from_json(r.to_json()) for v, r in half.ratings.items()}
    rest = replay(results[12:], parents, start=through_json)
    # Continuing from ratings read back from JSON gives the same floats as one replay from scratch.
    assert {**through_json, **rest.ratings} == full.ratings
    assert ratings_from_history(HistoryEntry.from_json(e.to_json()) for e in full.entries) == full.ratings


def test_rate_game_rates_2v2_as_teams() -> None:
    seats = (V("a"), V("b"), V("c"), V("d"))
    rated = rate_game(GameResult(MatchId("t"), SB, seats, (1, 2, 1, 2), T0, teams=(0, 1, 0, 1)), {})
    skills = [r.skill for r in rated.ratings]
    assert skills[0] == skills[2] and skills[1] == skills[3]
    assert skills[0].mu > 25.0 > skills[1].mu


@pytest.mark.parametrize(
    "ranks, teams",
    [((1,), ()), ((1, 0), ()), ((1, 2, 3), (0, 1, 0)), ((1, 2), (0, 0)), ((1, 1.5), ())],
    ids=str,
)
def test_malformed_tables_are_refused(ranks: tuple[int, ...], teams: tuple[int, ...]) -> None:
    n = max(len(ranks), len(teams), 2) if len(ranks) > 1 else 1
    with pytest.raises(InvalidResultError):
        pl.rate([Skill()] * n, ranks, teams)  # type: ignore[arg-type]
