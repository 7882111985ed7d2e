"""Golden playthrough: a seeded random game's event transcript, checked in and diffed.

Any change that alters a trajectory shows up here; if it is intended, bump the rules version
and regenerate with ``.venv/bin/python -m tests.games.superfantasybrawl.test_golden``.
"""

from __future__ import annotations

import json
from pathlib import Path

from referee.core import EVERYONE
from referee.core.conformance import random_playout
from referee.games.superfantasybrawl import SuperFantasyBrawl

GOLDEN = Path(__file__).with_name("golden_seed7.jsonl")
GAME = SuperFantasyBrawl()


def transcript() -> list[str]:
    """The full event log of the seed-7 random game, one JSON line per event."""
    rec = random_playout(GAME, 2, seed=7)
    return [json.dumps(e.to_json(), sort_keys=True) for e in rec.match.events(0, EVERYONE)]


def test_seed_7_playthrough_matches_the_golden_transcript() -> None:
    """Layer 3: the same seed, rules version and random decisions give the checked-in transcript."""
    expected = GOLDEN.read_text().splitlines()
    got = transcript()
    for i, (a, b) in enumerate(zip(expected, got, strict=False)):
        assert a == b, f"event {i} differs:\nexpected {a}\ngot      {b}"
    assert len(got) == len(expected)


if __name__ == "__main__":
    GOLDEN.write_text("\n".join(transcript()) + "\n")
    print(f"wrote {GOLDEN}")
