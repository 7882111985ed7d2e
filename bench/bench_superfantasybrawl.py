"""Benchmark of the Super Fantasy Brawl engine: random-vs-random games and decisions per second, one core.

Run ``.venv/bin/python -m bench.bench_superfantasybrawl [games] [seats] [--referee] [--profile]``. Each game is
created from a seed and played to the end by two (or four) random policies that read the legal
options only, so the figures measure the engine (set-up, options, apply), not observation or bots.
With ``--referee`` each decision also costs what the referee asks of the engine besides: the
deciding seat's new events and its observation (``events(since, seat)``, ``observe(seat)``).
``--profile`` prints a cProfile summary of each run (the figures are then the profiler's, slower).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from referee.core.bots import RandomPolicy
from referee.core.chance import SeededChance
from referee.games.superfantasybrawl import SuperFantasyBrawl


def bench(games: int, seats: int, referee: bool = False) -> tuple[float, float, float, float]:
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
        total = len(match.events(0))
        sent = [total] * seats
        while (d := match.to_move()) is not None:
            options = match.legal_options()
            if referee:
                match.events(sent[d.seat], d.seat)
                sent[d.seat] = total
                match.observe(d.seat)
            total += len(match.apply(bots[d.seat].choose(d, {}, options)))
            decisions += 1
    elapsed = time.perf_counter() - start
    used = time.process_time() - cpu
    return elapsed, used, games / used, decisions / used


def main() -> None:
    """Prints the figures for 2 and 4 seats (or the seat count given)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", type=int, nargs="?", default=500)
    parser.add_argument("seats", type=int, nargs="?")
    parser.add_argument("--referee", action="store_true", help="also the events and observation the referee asks for")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary (top 25 by own time)")
    args = parser.parse_args()
    games = args.games
    seat_counts = [args.seats] if args.seats else [2, 4]
    for seats in seat_counts:
        prof = cProfile.Profile() if args.profile else None
        if prof is not None:
            prof.enable()
        elapsed, used, gps, dps = bench(games, seats, args.referee)
        if prof is not None:
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        print(
            f"superfantasybrawl {seats} seats{' (referee calls)' if args.referee else ''}: {games} random games "
            f"in {elapsed:.2f} s wall, {used:.2f} s CPU: "
            f"{gps:.1f} games/s, {dps:.0f} decisions/s, {1e6 / dps:.1f} us CPU per decision (one core)"
        )


if __name__ == "__main__":
    main()
