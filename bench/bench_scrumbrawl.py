"""Benchmark: random-vs-random ScrumBrawl games per second and decisions per second, on one core.

Run ``python -m bench.bench_scrumbrawl`` (or ``python bench/bench_scrumbrawl.py``); ``--games N``
sets the number of games, ``--seats`` the table size, ``--profile`` prints a cProfile summary;
``--referee`` adds to each decision what the referee asks of the engine besides the options: the
deciding seat's new events and its observation (``events(since, seat)``, ``observe(seat)``).
The engine runs without the conformance kit's checks: this is the cost the ladder pays. Besides
wall time it prints the CPU time per decision (``time.process_time``), the figure to compare on a
shared machine.
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


def play(games: int, seats: int, teams: bool, referee: bool = False) -> tuple[int, int, float, float]:
    """Plays ``games`` random games; returns (games, decisions, wall seconds, CPU seconds)."""
    game = ScrumBrawl()
    config = game.parse_config({"teams": teams}, seats)
    decisions = 0
    start = time.perf_counter()
    cpu = time.process_time()
    for seed in range(games):
        match = game.new_match(config, seats, SeededChance(seed))
        policy = SeededChance(seed ^ 0x5EED)
        total = len(match.events(0))
        sent = [total] * seats
        while (d := match.to_move()) is not None:
            options = match.legal_options()
            if referee:
                match.events(sent[d.seat], d.seat)
                sent[d.seat] = total
                match.observe(d.seat)
            total += len(match.apply(options[policy.below(len(options))].id))
            decisions += 1
    return games, decisions, time.perf_counter() - start, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    """Runs the benchmark and prints the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--teams", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--referee", action="store_true", help="also the events and observation the referee asks for")
    args = parser.parse_args(argv)
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
    games, decisions, seconds, cpu = play(args.games, args.seats, args.teams, args.referee)
    if args.profile:
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)
    print(
        f"scrumbrawl random-vs-random, {args.seats} seats{' (2v2)' if args.teams else ''}"
        f"{' (referee calls)' if args.referee else ''}: {games} games, "
        f"{decisions} decisions in {seconds:.2f} s"
    )
    print(
        f"  {games / seconds:.2f} games/s, {decisions / seconds:.0f} decisions/s, "
        f"{decisions / games:.0f} decisions/game, {cpu / decisions * 1e6:.1f} us CPU/decision"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
