"""The recording worker's CPU per finished match: the codec and frames work, before and after the explicit finish.

Plays seeded random ScrumBrawl matches through a ``Recorder`` (the replay a referee hands off), then
times, per match, in the same run:

- **floor**: one plain decode of the referee's bytes with the standard library (gunzip,
  ``json.loads``, ``Replay.from_json``), the least a worker that reads the result can do;
- **before**: what the recording worker did until the finish was made explicit: decode, re-encode
  to stage, decode the staged bytes, encode again to store (all with the standard library), then
  the viewer's frames re-simulated on the recording queue (``webapp.matches.frames``);
- **after**: what it does now (``webapp.results.record_result``): one decode (orjson), the bytes
  stored as received; the frames are computed by a ``followups`` task, not here.

The database writes (the same in both) are not timed. Prints milliseconds of CPU per match and each
figure as a ratio of the floor.

    python -m bench.bench_recording [--matches 20] [--seats 2]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections.abc import Callable

from referee.core.chance import SeededChance
from referee.core.registry import get_game
from referee.core.replay import Recorder, Replay


def replays(matches: int, seats: int) -> list[bytes]:
    """Returns the encoded replays of ``matches`` seeded random ScrumBrawl matches."""
    game = get_game("scrumbrawl")
    config = game.parse_config({}, seats)
    out = []
    for seed in range(matches):
        rec = Recorder(game, config, seed, [f"seat{i}" for i in range(seats)])
        policy = SeededChance(seed ^ 0x5EED)
        while rec.match.to_move() is not None:
            options = rec.match.legal_options()
            rec.apply(options[policy.below(len(options))].id)
        out.append(rec.finish().encode())
    return out


def stdlib_decode(data: bytes) -> Replay:
    """The floor: gunzip and the standard library's parser."""
    return Replay.from_json(json.loads(gzip.decompress(data)))


def stdlib_encode(replay: Replay) -> bytes:
    """The encoder the worker used before: the standard library's compact JSON, gzipped."""
    return gzip.compress(json.dumps(replay.to_json(), separators=(",", ":")).encode(), mtime=0)


def before(data: bytes) -> None:
    """Decode, re-encode to stage, decode the staged bytes, encode to store, then the frames."""
    from webapp.matches.frames import spectator_frames

    staged = stdlib_encode(stdlib_decode(data))
    replay = stdlib_decode(staged)
    stdlib_encode(replay)
    gzip.compress(json.dumps(spectator_frames(Replay.loads(gzip.decompress(staged)))).encode(), mtime=0)


def after(data: bytes) -> None:
    """One decode; the bytes are stored as they came."""
    Replay.decode(data)


def cpu_ms(step: Callable[[bytes], object], data: list[bytes], rounds: int) -> float:
    """Milliseconds of CPU per match of ``step``, best of ``rounds`` passes over ``data``."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for d in data:
            step(d)
        best = min(best, time.process_time() - start)
    return best * 1000 / len(data)


def main(argv: list[str] | None = None) -> int:
    """Runs the benchmark and prints the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    data = replays(args.matches, args.seats)
    kb = sum(len(d) for d in data) / len(data) / 1024
    raw = sum(len(gzip.decompress(d)) for d in data) / len(data) / 1024
    floor = cpu_ms(stdlib_decode, data, args.rounds)
    old = cpu_ms(before, data, args.rounds)
    new = cpu_ms(after, data, args.rounds)
    print(
        f"recording, scrumbrawl {args.seats} seats: {args.matches} matches, replay {kb:.0f} kB gzipped ({raw:.0f} kB)"
    )
    print(f"  floor (one stdlib decode) {floor:8.2f} ms CPU/match")
    print(f"  before (2 decodes, 2 encodes, frames) {old:8.2f} ms  {old / floor:6.2f}x floor")
    print(f"  after (1 orjson decode) {new:8.2f} ms  {new / floor:6.2f}x floor  ({old / new:.1f}x less than before)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
