"""Glicko-2 (Glickman), kept beside Elo to measure each version's uncertainty.

The ladder publishes Elo (:mod:`ladder.elo`); the Glicko-2 rating deviation (RD) is what the site
shows as uncertainty ("has this version converged?") and what matchmaking uses to favour
unsettled bots. Glicko-2 needs its own rating and volatility to update the RD, so a version
carries a full :class:`Glicko2Rating` alongside its Elo.

:func:`rate` is the algorithm of Glickman's "Example of the Glicko-2 system" for one rating
period, with the Illinois (regula falsi) volatility iteration of the current paper. The ladder
calls it once per game (each game is a rating period, as on lichess), after growing the RD for
the time the version sat idle (:func:`idle`), so the deviation reflects both the games played and
the time since. This module is pure: no clock, no storage.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ladder.errors import InvalidResultError

GLICKO2_SCALE = 173.7178
"""Glickman's conversion factor between the Glicko and Glicko-2 scales (about 400 / ln 10)."""

DEFAULT_RATING = 1500.0
"""Glicko rating of an unrated player."""
DEFAULT_DEVIATION = 350.0
"""Rating deviation of an unrated player, also the ceiling idle growth never exceeds."""
DEFAULT_VOLATILITY = 0.06
"""Volatility of an unrated player."""


@dataclass(frozen=True, slots=True)
class Glicko2Rating:
    """A Glicko-2 state on the familiar Glicko scale (1500-centred)."""

    rating: float = DEFAULT_RATING
    """The Glicko rating r."""
    deviation: float = DEFAULT_DEVIATION
    """The rating deviation RD: about a third of a 99.7 % interval's half-width."""
    volatility: float = DEFAULT_VOLATILITY
    """The volatility sigma: how erratic the player's performances are."""


@dataclass(frozen=True, slots=True)
class Glicko2Config:
    """System constants.

    Raises:
        InvalidResultError: if a value is not positive.
    """

    tau: float = 0.5
    """Constrains volatility change; Glickman suggests 0.3 to 1.2. 0.5 is his example's value."""
    epsilon: float = 0.000001
    """Convergence tolerance of the volatility iteration (the paper's value)."""
    max_deviation: float = DEFAULT_DEVIATION
    """RD never grows above this through inactivity."""
    period_seconds: float = 86_400.0
    """Length of one rating period for idle growth: RD grows by one period's volatility per day."""

    def __post_init__(self) -> None:
        if min(self.tau, self.epsilon, self.max_deviation, self.period_seconds) <= 0:
            raise InvalidResultError(f"Glicko-2 constants must be positive: {self!r}")


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def idle(player: Glicko2Rating, periods: float, config: Glicko2Config = Glicko2Config()) -> Glicko2Rating:
    """Returns the player after ``periods`` rating periods without games: RD grows, r and sigma stay.

    ``periods`` may be fractional (time since the last game divided by the period length).

    Raises:
        InvalidResultError: if ``periods`` is negative.
    """
    if periods < 0:
        raise InvalidResultError(f"idle periods must not be negative, got {periods!r}")
    phi = player.deviation / GLICKO2_SCALE
    grown = math.sqrt(phi * phi + player.volatility * player.volatility * periods) * GLICKO2_SCALE
    return Glicko2Rating(player.rating, min(grown, max(config.max_deviation, player.deviation)), player.volatility)


def rate(
    player: Glicko2Rating,
    games: Sequence[tuple[Glicko2Rating, float]],
    config: Glicko2Config = Glicko2Config(),
) -> Glicko2Rating:
    """Returns the player's state after one rating period.

    Args:
        player: the state before the period.
        games: ``(opponent's state before the period, score)`` per game, score 1/0.5/0.
        config: system constants.

    Returns:
        The new state. With no games only the deviation grows, by one period (Glickman step 6).

    Raises:
        InvalidResultError: if a score is outside 0..1.
    """
    phi = player.deviation / GLICKO2_SCALE
    sigma = player.volatility
    if not games:
        return Glicko2Rating(player.rating, math.sqrt(phi * phi + sigma * sigma) * GLICKO2_SCALE, sigma)
    mu = (player.rating - DEFAULT_RATING) / GLICKO2_SCALE
    v_inverse = 0.0
    total = 0.0
    for opponent, score in games:
        if not 0.0 <= score <= 1.0:
            raise InvalidResultError(f"scores must lie in 0..1, got {score!r}")
        mu_j = (opponent.rating - DEFAULT_RATING) / GLICKO2_SCALE
        phi_j = opponent.deviation / GLICKO2_SCALE
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        v_inverse += g * g * e * (1.0 - e)
        total += g * (score - e)
    v = 1.0 / v_inverse
    delta = v * total
    new_sigma = _new_volatility(phi, sigma, v, delta, config)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * total
    return Glicko2Rating(GLICKO2_SCALE * new_mu + DEFAULT_RATING, GLICKO2_SCALE * new_phi, new_sigma)


def _new_volatility(phi: float, sigma: float, v: float, delta: float, config: Glicko2Config) -> float:
    """Step 5 of the paper: solve f(x) = 0 by the Illinois algorithm and return sigma'."""
    tau = config.tau
    a = math.log(sigma * sigma)
    delta2 = delta * delta
    phi2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a = f(big_a)
    f_b = f(big_b)
    while abs(big_b - big_a) > config.epsilon:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def composite(members: Sequence[Glicko2Rating]) -> Glicko2Rating:
    """Returns one opponent standing for a team: mean rating, root-mean-square deviation.

    Raises:
        InvalidResultError: if ``members`` is empty.
    """
    if not members:
        raise InvalidResultError("a team needs at least one member")
    n = len(members)
    return Glicko2Rating(
        sum(m.rating for m in members) / n,
        math.sqrt(sum(m.deviation * m.deviation for m in members) / n),
        sum(m.volatility for m in members) / n,
    )
