"""The golden playthroughs of Super Fantasy Brawl (see :mod:`tests.games.golden`).

Two whole seeded random games: a two-player free pick (seed 7, the original golden game) and a
four-player team game, so the team variant's trajectory is pinned too.
"""

from __future__ import annotations

from tests.games.golden import GoldenCase

CASES = [
    GoldenCase("superfantasybrawl", "seed7", seats=2, seed=7),
    GoldenCase("superfantasybrawl", "seats4-seed11", seats=4, seed=11),
]
