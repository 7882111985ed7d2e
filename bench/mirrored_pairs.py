"""Mirrored pairs: how much playing each seed twice, seats swapped, reduces rating noise.

Model. Sixteen bots of known strength (evenly spaced, 30 points apart, on the same scale as luck)
play rounds of random pairings; every pairing plays two games with the seats swapped, so seat
advantage is balanced in both arms and only the dice differ. A game is won by seat 0 when

    strength(seat 0) - strength(seat 1) + first-seat edge + luck + noise > 0

where ``luck`` is what the seed's dice do for seat 0 (normal, sd ``--luck``) and ``noise`` is what
the bots' own non-determinism adds (normal, sd ``--noise``). Unmirrored, the two games use two
seeds; mirrored, they share one seed, and a fraction ``shared`` of the luck's variance repeats in
the second game (1.0 = the dice land identically for the swapped seats; real games diverge after
the first differing decision, so the truth lies below 1). Draws do not occur in this model.

Ratings are the ladder's published Elo (:func:`ladder.elo.rating_changes`, default K schedule),
updated game by game. For each arm the bench repeats the season ``--runs`` times with different
seeds and reports: the mean over bots of the standard deviation of a bot's final rating across
runs (rating noise, Elo points), the Spearman rank correlation between final ratings and true
strengths, and how often the strongest bot finishes first.

    python -m bench.mirrored_pairs [--runs 200] [--luck 300] [--noise 100] [--edge 40]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time

from ladder.elo import KSchedule, rating_changes

BOTS = 16
STEP = 30.0


def season(
    rounds: int, mirrored: bool, shared: float, luck: float, noise: float, edge: float, rng: random.Random
) -> list[float]:
    """Plays one season; returns final ratings by bot index."""
    strength = [STEP * (i - (BOTS - 1) / 2) for i in range(BOTS)]
    ratings = [1500.0] * BOTS
    games = [0] * BOTS
    k = KSchedule()
    order = list(range(BOTS))
    keep = math.sqrt(shared)
    fresh = math.sqrt(1.0 - shared)
    for _ in range(rounds):
        rng.shuffle(order)
        for p in range(0, BOTS, 2):
            a, b = order[p], order[p + 1]
            first_luck = rng.gauss(0.0, luck)
            for first, second, game in ((a, b, 0), (b, a, 1)):
                if game == 0 or not mirrored:
                    dice = first_luck if game == 0 else rng.gauss(0.0, luck)
                else:
                    dice = keep * first_luck + fresh * rng.gauss(0.0, luck)
                margin = strength[first] - strength[second] + edge + dice + rng.gauss(0.0, noise)
                ranks = (1, 2) if margin > 0 else (2, 1)
                ks = (k.k(games[first]), k.k(games[second]))
                da, db = rating_changes((ratings[first], ratings[second]), ranks, ks)
                ratings[first] += da
                ratings[second] += db
                games[first] += 1
                games[second] += 1
    return ratings


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman rank correlation (no ties expected with continuous ratings)."""

    def ranks(values: list[float]) -> list[int]:
        order = sorted(range(len(values)), key=values.__getitem__)
        out = [0] * len(values)
        for rank, i in enumerate(order):
            out[i] = rank
        return out

    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    d2 = sum((a - b) ** 2 for a, b in zip(rx, ry, strict=True))
    return 1.0 - 6.0 * d2 / (n * (n * n - 1))


def arm(rounds: int, mirrored: bool, shared: float, args: argparse.Namespace) -> tuple[float, float, float]:
    """Returns (rating noise, mean Spearman, share of runs where the strongest bot is first)."""
    rng = random.Random(1000 * rounds + int(100 * shared) + (7 if mirrored else 0))
    finals = [season(rounds, mirrored, shared, args.luck, args.noise, args.edge, rng) for _ in range(args.runs)]
    truth = list(range(BOTS))
    noise = statistics.fmean(statistics.pstdev(run[i] for run in finals) for i in range(BOTS))
    rho = statistics.fmean(spearman(run, [float(t) for t in truth]) for run in finals)
    top = sum(1 for run in finals if max(range(BOTS), key=run.__getitem__) == BOTS - 1) / len(finals)
    return noise, rho, top


def main(argv: list[str] | None = None) -> int:
    """Runs the bench; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--luck", type=float, default=300.0)
    parser.add_argument("--noise", type=float, default=100.0)
    parser.add_argument("--edge", type=float, default=40.0)
    args, _ = parser.parse_known_args(argv)
    start = time.perf_counter()
    print(
        f"{BOTS} bots {STEP:.0f} apart, luck sd {args.luck:.0f}, noise sd {args.noise:.0f}, "
        f"first-seat edge {args.edge:.0f}, {args.runs} seasons per arm"
    )
    print(
        f"{'games/bot':>9} {'shared':>6} | {'noise plain':>11} {'mirrored':>8} {'ratio':>5} | "
        f"{'rho plain':>9} {'mirrored':>8} | {'top plain':>9} {'mirrored':>8}"
    )
    for rounds in (10, 30, 100):
        base = arm(rounds, False, 0.0, args)
        for shared in (1.0, 0.75, 0.5):
            mirror = arm(rounds, True, shared, args)
            print(
                f"{2 * rounds:>9} {shared:>6.2f} | {base[0]:>11.1f} {mirror[0]:>8.1f} {mirror[0] / base[0]:>5.2f} | "
                f"{base[1]:>9.3f} {mirror[1]:>8.3f} | {base[2]:>9.2f} {mirror[2]:>8.2f}"
            )
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
