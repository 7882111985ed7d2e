"""The golden playthroughs of ScrumBrawl (see :mod:`tests.games.golden`).

Whole seeded games, every event, checked in under ``golden/``:

- ``heuristic-2p-seed5`` and ``heuristic-2v2-seed5``: the heuristic house bot in every seat. It plays
  the objective, so these games end in a victory (goals, fights, skins, chips) in about 500 events.
  Seed 5 was chosen (under rules version 1) as, in both formats, the richest of seeds 0..11 in
  distinct event kinds.
- ``random-2p-seed3``: uniformly random play, which reaches odd corners the heuristic never picks
  (windows, magic, suicides, Killer Orb attacks); it is cut at 8 rounds (``max_rounds``), since a
  random game runs to the 40-round cap in about 2,000 events.
"""

from __future__ import annotations

from tests.games.golden import GoldenCase

CASES = [
    GoldenCase("scrumbrawl", "heuristic-2p-seed5", seats=2, seed=5, bots="heuristic"),
    GoldenCase("scrumbrawl", "heuristic-2v2-seed5", seats=4, seed=5, config={"teams": True}, bots="heuristic"),
    GoldenCase("scrumbrawl", "random-2p-seed3", seats=2, seed=3, config={"max_rounds": 8}),
]
