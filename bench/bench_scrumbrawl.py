"""Benchmark: random-vs-random ScrumBrawl games per second and decisions per second, on one core.

Run ``python -m bench.bench_scrumbrawl`` (or ``python bench/bench_scrumbrawl.py``); ``--games N``
sets the number of games, ``--seats`` the table size, ``--profile`` prints a cProfile summary.
The engine runs without the conformance kit's checks: this is the cost the ladder pays.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.core.chance import SeededChance
from referee.games.scrumbrawl import ScrumBrawl


def play(games: int, seats: int, teams: bool) -> tuple[int, int, float]:
    """Plays ``games`` random games; returns (games, decisions, seconds)."""
    game = ScrumBrawl()
    config = game.parse_config({"teams": teams}, seats)
    decisions = 0
    start = time.perf_counter()
    for seed in range(games):
        match = game.new_match(config, seats, SeededChance(seed))
        policy = SeededChance(seed ^ 0x5EED)
        while match.to_move() is not None:
            options = match.legal_options()
            match.apply(options[policy.below(len(options))].id)
            decisions += 1
    return games, decisions, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """Runs the benchmark and prints the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--teams", action="store_true")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
    games, decisions, seconds = play(args.games, args.seats, args.teams)
    if args.profile:
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)
    print(
        f"scrumbrawl random-vs-random, {args.seats} seats{' (2v2)' if args.teams else ''}: {games} games, "
        f"{decisions} decisions in {seconds:.2f} s"
    )
    print(
        f"  {games / seconds:.2f} games/s, {decisions / seconds:.0f} decisions/s, "
        f"{decisions / games:.0f} decisions/game"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
