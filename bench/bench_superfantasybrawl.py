"""Benchmark of the Super Fantasy Brawl engine: random-vs-random games and decisions per second, one core.

Run ``.venv/bin/python bench/bench_superfantasybrawl.py [games] [seats]``. Each game is created
from a seed and played to the end by two (or four) random policies that read the legal options
only, so the figures measure the engine (set-up, options, apply), not observation or bots.
"""

from __future__ import annotations

import sys
import time

from referee.core.bots import RandomPolicy
from referee.core.chance import SeededChance
from referee.games.superfantasybrawl import SuperFantasyBrawl


def bench(games: int, seats: int) -> tuple[float, float, float, float]:
    """Plays ``games`` random games.

    Returns:
        Wall seconds, CPU seconds of this process, games per CPU second, decisions per CPU second.
        CPU time is the one-core figure even on a busy machine.
    """
    game = SuperFantasyBrawl()
    config = game.parse_config({}, seats)
    decisions = 0
    start = time.perf_counter()
    cpu = time.process_time()
    for seed in range(games):
        match = game.new_match(config, seats, SeededChance(seed))
        bots = [RandomPolicy(seed * 10 + s) for s in range(seats)]
        while (d := match.to_move()) is not None:
            match.apply(bots[d.seat].choose(d, {}, match.legal_options()))
            decisions += 1
    elapsed = time.perf_counter() - start
    used = time.process_time() - cpu
    return elapsed, used, games / used, decisions / used


def main() -> None:
    """Prints the figures for 2 and 4 seats (or the seat count given)."""
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    seat_counts = [int(sys.argv[2])] if len(sys.argv) > 2 else [2, 4]
    for seats in seat_counts:
        elapsed, used, gps, dps = bench(games, seats)
        print(
            f"superfantasybrawl {seats} seats: {games} random games in {elapsed:.2f} s wall, {used:.2f} s CPU: "
            f"{gps:.1f} games/s, {dps:.0f} decisions/s (per CPU second, one core)"
        )


if __name__ == "__main__":
    main()
