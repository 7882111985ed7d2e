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

from ladder.errors import InvalidResultError, require_number

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
    """A Glicko-2 state on the familiar Glicko scale (1500-centred).

    Raises:
        InvalidResultError: naming the value, if the rating is not finite or the deviation or
            volatility is not a finite positive number.
    """

    rating: float = DEFAULT_RATING
    """The Glicko rating r."""
    deviation: float = DEFAULT_DEVIATION
    """The rating deviation RD: about a third of a 99.7 % interval's half-width."""
    volatility: float = DEFAULT_VOLATILITY
    """The volatility sigma: how erratic the player's performances are."""

    def __post_init__(self) -> None:
        # Refused here, so a NaN read from storage or JSON never reaches an opponent's update, and
        # a volatility of 0 (whose logarithm the volatility step takes) is named, not a bare ValueError.
        require_number("Glicko-2 rating", self.rating)
        require_number("Glicko-2 deviation", self.deviation, minimum=0.0, exclusive=True)
        require_number("Glicko-2 volatility", self.volatility, minimum=0.0, exclusive=True)


@dataclass(frozen=True, slots=True)
class Glicko2Config:
    """System constants.

    Raises:
        InvalidResultError: naming the value, if one is not a finite positive number.
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
        for name in ("tau", "epsilon", "max_deviation", "period_seconds"):
            require_number(f"Glicko2Config.{name}", getattr(self, name), minimum=0.0, exclusive=True)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


_EDGE = 2.0**-53
"""The smallest expected score used: 1 - _EDGE is the largest float below 1."""


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    exponent = -_g(phi_j) * (mu - mu_j)
    if exponent > 700.0:
        return _EDGE  # exp() would overflow; the expected score is 0 to double precision
    e = 1.0 / (1.0 + math.exp(exponent))
    # An expected score of exactly 0 or 1 (players ~6,000 points apart) makes the variance v
    # infinite (1 / 0). Only those exact values are nudged, so every result that could be computed
    # before is unchanged, bit for bit.
    if e == 1.0:
        return 1.0 - _EDGE
    if e == 0.0:
        return _EDGE
    return e


def idle(player: Glicko2Rating, periods: float, config: Glicko2Config = Glicko2Config()) -> Glicko2Rating:
    """Returns the player after ``periods`` rating periods without games: RD grows, r and sigma stay.

    ``periods`` may be fractional (time since the last game divided by the period length).

    Raises:
        InvalidResultError: if ``periods`` is negative.
    """
    require_number("idle periods", periods, minimum=0.0)
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
        InvalidResultError: if a score is outside 0..1 or not a number, or the ratings are so far
            apart that the update overflows.
    """
    try:
        return _rate(player, games, config)
    except (OverflowError, ZeroDivisionError) as exc:
        # A safety net: with finite inputs the update stays finite (see _e), but a message that names
        # the states beats a bare arithmetic error if some extreme input still overflows.
        raise InvalidResultError(f"ratings too far apart to rate: {player!r} against {games!r}") from exc


def _rate(player: Glicko2Rating, games: Sequence[tuple[Glicko2Rating, float]], config: Glicko2Config) -> Glicko2Rating:
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


CONSERVATIVE_Z = 2.0
"""Deviations below the rating that the published, conservative rating sits (about a 95 % lower bound)."""


def conservative(rating: float, deviation: float, z: float = CONSERVATIVE_Z) -> float:
    """Returns the conservative rating ``rating - z deviation``: the level a bot is at least at, 95 % of the time.

    The leaderboards sort by it (docs/ladder.md): a bot climbs by being good and known, so a new
    version with a lucky start does not sit above settled bots.

    Raises:
        InvalidResultError: naming the value, if a number is not finite or the deviation or ``z`` negative.
    """
    require_number("Glicko-2 rating", rating)
    require_number("Glicko-2 deviation", deviation, minimum=0.0)
    require_number("z", z, minimum=0.0)
    return rating - z * deviation


def win_chance(player: Glicko2Rating, opponent: Glicko2Rating) -> float:
    """Returns the chance that ``player`` scores against ``opponent`` (wins, or finishes ahead in a pod).

    Glickman's predicted outcome: ``1 / (1 + exp(-g(sqrt(phi² + phi_j²)) (mu - mu_j)))``, both
    deviations widening the curve. It is the prediction measured in ``bench.bench_prediction``.

    >>> round(win_chance(Glicko2Rating(1700, 50), Glicko2Rating(1500, 50)), 3)
    0.755
    """
    phi = math.sqrt(player.deviation**2 + opponent.deviation**2) / GLICKO2_SCALE
    exponent = -_g(phi) * (player.rating - opponent.rating) / GLICKO2_SCALE
    if exponent > 700.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(exponent))
