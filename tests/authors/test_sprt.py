"""ladder/sprt.py against values worked out here from the formulas, independently of the module's code.

- With only the extreme pair outcomes (0 and 2) and no regularisation, the pentanomial is a
  Bernoulli of pairs, whose most likely distribution with mean ``s`` is ``(1 - s, s)``: the LLR is
  the textbook binomial SPRT, ``W log(s1 / s0) + L log((1 - s1) / (1 - s0))``.
- With three outcomes (0, 1/2 and 1 as fractions), the secular equation is a quadratic in ``x``,
  solved here in closed form.
- Wald's bounds for alpha = beta = 0.05 are ``-log 19`` and ``log 19``.
- Symmetric counts under symmetric hypotheses give an LLR of exactly 0; the GSPRT approximation
  agrees with the exact LLR when the observed score is near the hypotheses.
"""

from __future__ import annotations

import math

import pytest

from ladder import sprt
from ladder.errors import InvalidResultError


def L(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def test_logistic_scores_and_their_inverse() -> None:
    assert sprt.logistic_score(0) == 0.5
    assert sprt.logistic_score(400) == pytest.approx(10 / 11)
    assert sprt.logistic_elo(10 / 11) == pytest.approx(400)
    assert sprt.logistic_elo(sprt.logistic_score(-37.5)) == pytest.approx(-37.5)


def test_wald_bounds() -> None:
    assert sprt.bounds(0.05, 0.05) == pytest.approx((-math.log(19), math.log(19)))
    assert sprt.bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    for alpha, beta in ((0, 0.05), (0.05, 0.5), (float("nan"), 0.05)):
        with pytest.raises(InvalidResultError):
            sprt.bounds(alpha, beta)


def test_pair_scores_count_into_a_pentanomial() -> None:
    pairs = [(1, 1), (1, 0), (0, 1), (0.5, 0.5), (0.5, 1), (0, 0), (0, 0.5), (1, 0.5)]
    assert sprt.pentanomial(pairs) == [1, 1, 3, 2, 1]
    with pytest.raises(InvalidResultError):
        sprt.pair_index(0.7, 1)


@pytest.mark.parametrize(("wins", "losses", "elo0", "elo1"), [(30, 20, 0, 20), (7, 13, -10, 10), (55, 45, -5, 15)])
def test_two_outcomes_give_the_binomial_sprt(wins: int, losses: int, elo0: float, elo1: float) -> None:
    s0, s1 = L(elo0), L(elo1)
    expected = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert sprt.llr([losses, 0, 0, 0, wins], elo0, elo1, regularize=0) == pytest.approx(expected, rel=1e-9)


def three_point_llr(n0: int, n2: int, n4: int, elo0: float, elo1: float) -> float:
    """The LLR for counts on the outcomes 0, 1/2, 1 only, the secular equation solved as a quadratic."""
    n = n0 + n2 + n4
    p = [n0 / n, n2 / n, n4 / n]
    a = [0.0, 0.5, 1.0]

    def mle(s: float) -> list[float]:
        d = [ai - s for ai in a]
        # sum p_i d_i / (1 + x d_i) = 0, times the product of the denominators:
        # sum_i p_i d_i prod_{j != i} (1 + x d_j) = 0, a quadratic A x^2 + B x + C.
        A = sum(p[i] * d[i] * math.prod(d[j] for j in range(3) if j != i) for i in range(3))
        B = sum(p[i] * d[i] * sum(d[j] for j in range(3) if j != i) for i in range(3))
        C = sum(p[i] * d[i] for i in range(3))
        if abs(A) < 1e-15:  # s = 1/2 cancels the x^2 term: the equation is linear
            roots = [-C / B]
        else:
            roots = [(-B + sign * math.sqrt(B * B - 4 * A * C)) / (2 * A) for sign in (1, -1)]
        x = next(r for r in roots if all(1 + r * di > 0 for di in d))
        return [p[i] / (1 + x * d[i]) for i in range(3)]

    q0, q1 = mle(L(elo0)), mle(L(elo1))
    return n * sum(p[i] * math.log(q1[i] / q0[i]) for i in range(3))


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"), [((10, 25, 15), -10, 10), ((8, 30, 4), 0, 5), ((3, 9, 30), -20, 0)]
)
def test_three_outcomes_match_the_closed_form(counts: tuple[int, int, int], elo0: float, elo1: float) -> None:
    n0, n2, n4 = counts
    got = sprt.llr([n0, 0, n2, 0, n4], elo0, elo1, regularize=0)
    assert got == pytest.approx(three_point_llr(n0, n2, n4, elo0, elo1), rel=1e-9)


def test_the_mle_distribution_has_the_asked_mean_and_sums_to_one() -> None:
    _, pdf = sprt.distribution([3, 11, 20, 9, 2])
    for s in (0.3, 0.5, 0.62):
        q = sprt.mle_expected(pdf, s)
        assert sum(p for _, p in q) == pytest.approx(1, abs=1e-12)
        assert sum(a * p for a, p in q) == pytest.approx(s, abs=1e-12)


def test_symmetric_counts_under_symmetric_hypotheses_give_zero() -> None:
    assert sprt.llr([4, 10, 30, 10, 4], -10, 10) == pytest.approx(0, abs=1e-9)
    # Two copies of one deterministic bot: every pair is one win each (or two draws).
    assert sprt.evaluate([0, 0, 40, 0, 0]).verdict == "inconclusive"
    assert sprt.evaluate([0, 0, 40, 0, 0]).llr == pytest.approx(0, abs=1e-9)


def test_the_gsprt_approximation_agrees_near_the_hypotheses() -> None:
    counts = [20, 110, 250, 120, 22]
    exact, approx = sprt.llr(counts, -5, 5), sprt.llr_approx(counts, -5, 5)
    assert approx == pytest.approx(exact, rel=0.02)


def test_verdicts() -> None:
    wide = sprt.SprtConfig(elo0=-50, elo1=50)
    strong = sprt.evaluate([0, 1, 2, 6, 9], wide)
    assert strong.verdict == "better" and strong.llr >= strong.upper
    weak = sprt.evaluate([9, 6, 2, 1, 0], wide)
    assert weak.verdict == "worse" and weak.llr <= weak.lower
    assert sprt.evaluate([18, 12, 4, 2, 0], sprt.SprtConfig(elo0=0, elo1=50)).verdict == "not better"
    # Narrow hypotheses need more pairs for the same results.
    assert sprt.evaluate([0, 1, 2, 6, 9], sprt.SprtConfig(elo0=-10, elo1=10)).verdict == "inconclusive"
    assert sprt.evaluate([1, 2, 3, 2, 1]).verdict == "inconclusive"
    assert sprt.evaluate([0, 0, 0, 0, 0]).verdict == "inconclusive"


def test_bad_configs_and_counts_are_refused() -> None:
    with pytest.raises(InvalidResultError, match="elo0 must be below elo1"):
        sprt.SprtConfig(elo0=5, elo1=5)
    with pytest.raises(InvalidResultError, match="5 counts"):
        sprt.evaluate([1, 2, 3])
    with pytest.raises(InvalidResultError, match="whole numbers"):
        sprt.evaluate([1, 2, -3, 0, 0])


def test_elo_estimate() -> None:
    elo, half = sprt.elo_estimate([0, 0, 10, 0, 0])
    assert elo == pytest.approx(0, abs=1e-6)
    elo, half = sprt.elo_estimate([2, 4, 8, 10, 6])
    mean = (4 * 0.25 + 8 * 0.5 + 10 * 0.75 + 6) / 30
    assert elo == pytest.approx(sprt.logistic_elo(mean), abs=0.5)  # regularisation moves it a hair
    assert half > 0
