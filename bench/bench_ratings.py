"""Rating recomputation: time to replay 100,000 rated matches from scratch, against a bare-Elo floor.

The bench generates a deterministic history (1,000 versions of 250 bots, every version after the
first inheriting from its predecessor, one match a minute) and times :func:`ladder.history.replay`,
which is what the site runs to rebuild every rating, Elo plus Glicko-2 deviation plus one history
row per participant. The floor is the least such a recomputation can cost in Python: a loop over
the same results doing only the Elo expected-score update into a dict of floats, measured in the
same run. Duels (Super Fantasy Brawl) and 4-player free-for-all games (ScrumBrawl) are timed apart.

    python -m bench.bench_ratings [--matches 100000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import UTC, datetime, timedelta

from ladder.elo import expected_score
from ladder.history import replay
from ladder.ids import BotVersionId, GameName, MatchId
from ladder.results import GameResult

START = datetime(2026, 1, 1, tzinfo=UTC)


def generate(
    matches: int, players: int, versions: int = 1000, bots: int = 250
) -> tuple[list[GameResult], dict[BotVersionId, BotVersionId]]:
    """A deterministic history; versions of a bot come online in turn as the history advances."""
    rng = random.Random(20260101)
    per_bot = versions // bots
    parents = {BotVersionId(f"b{b}v{v}"): BotVersionId(f"b{b}v{v - 1}") for b in range(bots) for v in range(1, per_bot)}
    game = GameName("scrumbrawl" if players > 2 else "superfantasybrawl")
    results = []
    for i in range(matches):
        live = min(per_bot - 1, i * per_bot // matches)
        chosen = rng.sample(range(bots), players)
        seats = tuple(BotVersionId(f"b{b}v{live}") for b in chosen)
        ranks = list(range(1, players + 1))
        rng.shuffle(ranks)
        if players == 2 and rng.random() < 0.1:
            ranks = [1, 1]
        results.append(GameResult(MatchId(f"m{i}"), game, seats, tuple(ranks), START + timedelta(minutes=i)))
    return results, parents


def floor(results: list[GameResult]) -> float:
    """Seconds for a bare sequential Elo fold (K = 20) over the same results."""
    start = time.perf_counter()
    ratings: dict[str, float] = {}
    for result in results:
        seats = result.participants
        n = len(seats)
        before = [ratings.get(v, 1500.0) for v in seats]
        for i in range(n):
            total = 0.0
            for j in range(n):
                if i != j:
                    score = (
                        1.0 if result.ranks[i] < result.ranks[j] else 0.5 if result.ranks[i] == result.ranks[j] else 0.0
                    )
                    total += score - expected_score(before[i], before[j])
            ratings[seats[i]] = before[i] + 20.0 / (n - 1) * total
    return time.perf_counter() - start


def measure(matches: int, players: int) -> None:
    results, parents = generate(matches, players)
    start = time.perf_counter()
    out = replay(results, parents)
    elapsed = time.perf_counter() - start
    bare = floor(results)
    label = "duels" if players == 2 else f"{players}-player free-for-all"
    print(
        f"{label:>26}: {matches:,} matches replayed in {elapsed:.2f} s = {matches / elapsed:,.0f} matches/s "
        f"({len(out.entries):,} history rows, {len(out.ratings):,} versions); "
        f"bare-Elo floor {bare:.2f} s, ratio {elapsed / bare:.1f}x"
    )


def main(argv: list[str] | None = None) -> int:
    """Runs the bench; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--matches", type=int, default=100_000)
    args, _ = parser.parse_known_args(argv)
    measure(args.matches, 2)
    measure(args.matches, 4)
    return 0


if __name__ == "__main__":
    sys.exit(main())
