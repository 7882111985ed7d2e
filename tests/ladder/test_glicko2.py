"""Glicko-2: Glickman's worked example to full precision, idle growth, team composites, properties."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ladder import glicko2
from ladder.errors import InvalidResultError
from ladder.glicko2 import Glicko2Rating

PAPER_PLAYER = Glicko2Rating(1500, 200, 0.06)
PAPER_GAMES = [(Glicko2Rating(1400, 30), 1.0), (Glicko2Rating(1550, 100), 0.0), (Glicko2Rating(1700, 300), 0.0)]


def test_glickman_example_as_printed() -> None:
    # "Example of the Glicko-2 system", tau = 0.5: r' = 1464.06, RD' = 151.52, sigma' = 0.05999. The paper
    # carries 3-4 digit intermediates, so its printed r' is 0.01 above the full-precision value.
    new = glicko2.rate(PAPER_PLAYER, PAPER_GAMES, glicko2.Glicko2Config(tau=0.5))
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.deviation == pytest.approx(151.52, abs=0.005)
    assert math.floor(new.volatility * 1e5) / 1e5 == 0.05999


def test_glickman_example_full_precision() -> None:
    # ratings-brackets.md S3: r' = 1464.0506705393013, RD' = 151.51652412385727, sigma' = 0.0599959842864885.
    new = glicko2.rate(PAPER_PLAYER, PAPER_GAMES)
    assert new.rating == pytest.approx(1464.0506705393013, abs=1e-9)
    assert new.deviation == pytest.approx(151.51652412385727, abs=1e-9)
    assert new.volatility == pytest.approx(0.0599959842864885, abs=1e-12)


def test_no_games_grows_only_the_deviation() -> None:
    # Glickman step 6: phi' = sqrt(phi^2 + sigma^2); r and sigma unchanged.
    new = glicko2.rate(PAPER_PLAYER, [])
    phi = 200 / glicko2.GLICKO2_SCALE
    assert new.deviation == pytest.approx(math.sqrt(phi * phi + 0.06 * 0.06) * glicko2.GLICKO2_SCALE)
    assert (new.rating, new.volatility) == (1500, 0.06)


def test_idle_growth_is_capped_and_proportional_to_time() -> None:
    one = glicko2.idle(PAPER_PLAYER, 1.0)
    assert one.deviation == pytest.approx(glicko2.rate(PAPER_PLAYER, []).deviation)
    assert glicko2.idle(PAPER_PLAYER, 0.0) == PAPER_PLAYER
    assert glicko2.idle(PAPER_PLAYER, 1e9).deviation == 350.0
    with pytest.raises(InvalidResultError):
        glicko2.idle(PAPER_PLAYER, -1)


def test_composite_team() -> None:
    team = glicko2.composite([Glicko2Rating(1400, 30, 0.06), Glicko2Rating(1600, 40, 0.06)])
    assert team.rating == 1500
    assert team.deviation == pytest.approx(math.sqrt((30**2 + 40**2) / 2))


def test_bad_score_raises() -> None:
    with pytest.raises(InvalidResultError, match=r"0\.\.1"):
        glicko2.rate(PAPER_PLAYER, [(PAPER_PLAYER, 2.0)])


states = st.builds(
    Glicko2Rating,
    st.floats(800, 2500),
    st.floats(30, 350),
    st.floats(0.03, 0.1),
)


@given(states, states)
def test_a_win_never_lowers_a_rating_and_a_game_never_widens(player: Glicko2Rating, rival: Glicko2Rating) -> None:
    win = glicko2.rate(player, [(rival, 1.0)])
    loss = glicko2.rate(player, [(rival, 0.0)])
    assert win.rating >= player.rating >= loss.rating
    grown = math.hypot(player.deviation, win.volatility * glicko2.GLICKO2_SCALE)
    assert win.deviation <= grown + 1e-9
