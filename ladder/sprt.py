"""The regression gauntlet's sequential test: SPRT with pentanomial scoring over mirrored seed pairs.

This is the method fishtest (Stockfish's testing framework) uses, in the form of its
``LLRcalc.py`` by Michel Van den Bergh, described in docs/ladder.md ("Regression gauntlet"):

- Games come in **pairs** on one seed with the seats swapped (the new version plays seat 0, then
  seat 1, of the same deal). A pair scores 0, 0.5, 1, 1.5 or 2 for the new version, so a series is
  five counts, the **pentanomial** ``[N0, N1, N2, N3, N4]`` (``Ni`` pairs scored ``i / 2``). Pairs
  cancel most of the luck of the deal, which a game-by-game (trinomial) count would treat as
  independent noise.
- The score of a pair, as a fraction, is ``a_i = i / 4``. A hypothesis "the Elo difference is
  ``elo``" fixes the expected fraction ``s = 1 / (1 + 10 ** (-elo / 400))`` (logistic Elo).
- The **generalised log-likelihood ratio** of H1 (``elo1``) against H0 (``elo0``) compares, for each
  hypothesis, the most likely pentanomial distribution whose mean is its ``s``
  (:func:`mle_expected`): ``LLR = N * sum_i p_i * log(q1_i / q0_i)``, with ``p`` the observed
  frequencies. Counts of zero are first raised to 0.001 (fishtest's regularisation), so a
  distribution with the mass of a single outcome still has a finite ratio.
- **Bounds** (Wald): the test accepts H1 when ``LLR >= log((1 - beta) / alpha)`` and H0 when
  ``LLR <= log(beta / (1 - alpha))``; between them it plays on, and when the budget of games is
  spent first the verdict is *inconclusive*.

Verdicts: accepting H1 (``elo1 > 0``) reads **better**; accepting H0 reads **worse** when
``elo0 < 0`` (the default ``[-10, 10]`` asks "better or worse by about 10 Elo?") and **not
better** when ``elo0 >= 0`` (fishtest's own reading of ``[0, 5]``). Fishtest's later corrections
(normalised Elo bounds, overshoot correction) are not applied.

Pure maths: no clock, no randomness, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ladder.errors import InvalidResultError, require_number

REGULARIZE = 1e-3
"""What a zero count is raised to before the likelihoods (fishtest's ``regularize``)."""

PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)
"""The score of a pair for the new version, index ``i`` of the pentanomial: ``i / 2``."""


def logistic_score(elo: float) -> float:
    """The expected score fraction of an Elo difference: ``1 / (1 + 10 ** (-elo / 400))``."""
    require_number("elo", elo)
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def logistic_elo(score: float) -> float:
    """The Elo difference of an expected score fraction (the inverse of :func:`logistic_score`)."""
    require_number("score", score)
    if not 0.0 < score < 1.0:
        raise InvalidResultError(f"a score fraction must be between 0 and 1 (exclusive), got {score!r}")
    return -400.0 * math.log10(1.0 / score - 1.0)


def pair_index(first: float, second: float) -> int:
    """The pentanomial index of a pair whose two games scored ``first`` and ``second`` (each 0, 0.5 or 1).

    Raises:
        InvalidResultError: a game score that is not 0, 0.5 or 1.
    """
    for score in (first, second):
        if score not in (0.0, 0.5, 1.0):
            raise InvalidResultError(f"a game scores 0, 0.5 or 1, got {score!r}")
    return round((first + second) * 2)


def pentanomial(pairs: Sequence[tuple[float, float]]) -> list[int]:
    """Counts pairs of game scores into ``[N0, N1, N2, N3, N4]``."""
    counts = [0] * 5
    for first, second in pairs:
        counts[pair_index(first, second)] += 1
    return counts


def _check_counts(counts: Sequence[int]) -> None:
    if len(counts) != 5:
        raise InvalidResultError(f"a pentanomial has 5 counts, got {len(counts)}")
    for c in counts:
        if isinstance(c, bool) or not isinstance(c, int) or c < 0:
            raise InvalidResultError(f"pentanomial counts are whole numbers of pairs, got {c!r}")


def distribution(counts: Sequence[int], regularize: float = REGULARIZE) -> tuple[float, list[tuple[float, float]]]:
    """Returns ``(N, [(a_i, p_i)...])``: the number of pairs and the observed frequencies of each score fraction.

    Zero counts are raised to ``regularize`` first (0 keeps them, and drops those outcomes).
    """
    _check_counts(counts)
    raised = [max(float(c), regularize) for c in counts]
    total = sum(raised)
    if total <= 0.0:
        raise InvalidResultError("no pairs played")
    return total, [(i / 4.0, r / total) for i, r in enumerate(raised) if r > 0.0]


def stats(pdf: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Mean and variance of a discrete distribution ``[(value, probability)...]``."""
    mean = sum(p * a for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def mle_expected(pdf: Sequence[tuple[float, float]], s: float) -> list[tuple[float, float]]:
    """The most likely distribution on the same values with mean ``s``, given the observed ``pdf``.

    Maximising ``sum p_i log q_i`` subject to ``sum q_i = 1`` and ``sum q_i a_i = s`` gives
    ``q_i = p_i / (1 + x (a_i - s))``, where ``x`` solves the secular equation
    ``sum p_i (a_i - s) / (1 + x (a_i - s)) = 0``. Its left side falls strictly on the interval
    where every ``1 + x (a_i - s)`` is positive, so the root is found by bisection.

    Raises:
        InvalidResultError: ``s`` is not strictly inside the range of the values.
    """
    require_number("s", s)
    shifted = [(a - s, p) for a, p in pdf]
    low, high = min(d for d, _ in shifted), max(d for d, _ in shifted)
    if not low < 0.0 < high:
        raise InvalidResultError(f"the expected score {s!r} must lie inside the outcomes {low + s}..{high + s}")

    def f(x: float) -> float:
        return sum(p * d / (1.0 + x * d) for d, p in shifted)

    lo, hi = -1.0 / high, -1.0 / low  # the poles: beyond them some 1 + x d is not positive
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2.0
    return [(a, p / (1.0 + x * (a - s))) for a, p in pdf]


def llr(counts: Sequence[int], elo0: float, elo1: float, regularize: float = REGULARIZE) -> float:
    """The generalised log-likelihood ratio of ``elo1`` against ``elo0`` (fishtest's ``LLR_logistic``)."""
    n, pdf = distribution(counts, regularize)
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    q0, q1 = mle_expected(pdf, s0), mle_expected(pdf, s1)
    return n * sum(p * (math.log(b) - math.log(a)) for (_, p), (_, a), (_, b) in zip(pdf, q0, q1, strict=True))


def llr_approx(counts: Sequence[int], elo0: float, elo1: float, regularize: float = REGULARIZE) -> float:
    """The GSPRT approximation ``N (s1 - s0) (2 mean - s0 - s1) / (2 var)`` (fishtest's ``LLR_alt2``), for checks."""
    n, pdf = distribution(counts, regularize)
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    mean, var = stats(pdf)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``.

    Raises:
        InvalidResultError: ``alpha`` or ``beta`` outside (0, 0.5).
    """
    for name, value in (("alpha", alpha), ("beta", beta)):
        require_number(name, value)
        if not 0.0 < value < 0.5:
            raise InvalidResultError(f"{name} must be between 0 and 0.5 (exclusive), got {value!r}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


@dataclass(frozen=True)
class SprtConfig:
    """The hypotheses and error rates of one test: H0 is ``elo0``, H1 ``elo1``."""

    elo0: float = -10.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        require_number("elo0", self.elo0)
        require_number("elo1", self.elo1)
        if not self.elo0 < self.elo1:
            raise InvalidResultError(f"elo0 must be below elo1, got elo0={self.elo0!r}, elo1={self.elo1!r}")
        bounds(self.alpha, self.beta)


@dataclass(frozen=True)
class SprtState:
    """Where a test stands after some pairs."""

    counts: tuple[int, int, int, int, int]
    llr: float
    lower: float
    upper: float
    verdict: str
    """``better``, ``worse``, ``not better`` or ``inconclusive`` (still inside the bounds)."""

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def score(self) -> float:
        """The new version's mean score per game over the pairs (0..1)."""
        return sum(i * c for i, c in enumerate(self.counts)) / (4.0 * self.pairs) if self.pairs else 0.5

    @property
    def decided(self) -> bool:
        return self.verdict != "inconclusive"


def evaluate(counts: Sequence[int], config: SprtConfig | None = None) -> SprtState:
    """The test's state for these pentanomial counts: the LLR, the bounds and the verdict."""
    config = config or SprtConfig()
    _check_counts(counts)
    lower, upper = bounds(config.alpha, config.beta)
    value = llr(counts, config.elo0, config.elo1) if sum(counts) else 0.0
    if value >= upper:
        verdict = "better"
    elif value <= lower:
        verdict = "worse" if config.elo0 < 0 else "not better"
    else:
        verdict = "inconclusive"
    c = tuple(counts)
    return SprtState((c[0], c[1], c[2], c[3], c[4]), value, lower, upper, verdict)


def elo_estimate(counts: Sequence[int]) -> tuple[float, float]:
    """The Elo difference the pairs' mean score implies, with a 95% half-width from their variance.

    Uses the regularised frequencies, so an all-win series gives a large finite figure.
    """
    n, pdf = distribution(counts)
    mean, var = stats(pdf)
    mean = min(max(mean, 1e-6), 1.0 - 1e-6)
    elo = logistic_elo(mean)
    half = 1.96 * math.sqrt(var / n)
    hi = logistic_elo(min(mean + half, 1.0 - 1e-6))
    lo = logistic_elo(max(mean - half, 1e-6))
    return elo, (hi - lo) / 2.0
