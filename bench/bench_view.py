"""The generic board view's cost in the viewer's frames: spectator frames with and without it.

Plays seeded random matches of each shipped game through a ``Recorder`` and times, per match, in
the same run:

- **floor**: the re-simulation the frames always needed: every decision applied through
  ``referee.core.replay.steps`` with its label, the spectator's observation and public events taken
  after each one (the frames of form 1);
- **frames**: ``webapp.matches.frames.spectator_frames`` as the recording worker's follow-up runs
  it, which adds each frame's board view (``Game.board_view``), each event's sentence
  (``Game.event_text``) and each decision's targets (``Game.option_targets``).

Prints milliseconds of CPU per match, the ratio to the floor, and the bytes of the whole frames and
of their patch form (gzipped), as served.

    python -m bench.bench_view [--matches 5]
"""

from __future__ import annotations

import argparse
import gzip
import time

import orjson

from referee.core.chance import SeededChance
from referee.core.registry import get_game, shipped_game_names
from referee.core.replay import Recorder, Replay, steps
from webapp.matches.frames import patch_frames, spectator_frames


def replays(name: str, matches: int) -> list[Replay]:
    """Seeded random two-seat matches of ``name``."""
    game = get_game(name)
    config = game.parse_config({}, 2)
    out = []
    for seed in range(matches):
        rec = Recorder(game, config, seed, ["a", "b"])
        policy = SeededChance(seed ^ 0x5EED)
        while rec.match.to_move() is not None:
            options = rec.match.legal_options()
            rec.apply(options[policy.below(len(options))].id)
        out.append(rec.finish())
    return out


def floor(replay: Replay) -> None:
    """The re-simulation of form-1 frames: labels, spectator observations and public events."""
    seen = 0
    for step in steps(replay, labels=True):
        events = step.match.events(seen, None)
        seen = max([seen, *[e.index + 1 for e in events]])
        step.match.observe(None)


def cpu_ms(fn: object, items: list[Replay]) -> float:
    start = time.process_time()
    for item in items:
        fn(item)  # type: ignore[operator]
    return (time.process_time() - start) * 1000 / len(items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5)
    args = parser.parse_args()
    print("| game | decisions per match | floor CPU | frames CPU | vs floor | whole frames | patch form, gzipped |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in shipped_game_names():
        items = replays(name, args.matches)
        spectator_frames(items[0])  # warm: content, caches
        base = cpu_ms(floor, items)
        full = cpu_ms(spectator_frames, items)
        data = spectator_frames(items[0])
        whole = len(orjson.dumps(data))
        patched = len(gzip.compress(orjson.dumps(patch_frames(data)), mtime=0))
        decisions = sum(len(r.decisions) for r in items) / len(items)
        print(
            f"| {name} | {decisions:.0f} | {base:.1f} ms | {full:.1f} ms | {full / base:.2f}x |"
            f" {whole / 1024:.0f} KiB | {patched / 1024:.1f} KiB |"
        )


if __name__ == "__main__":
    main()
