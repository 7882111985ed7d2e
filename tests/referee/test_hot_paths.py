"""Engine hot paths sped up for the referee (issue 14) compute exactly what they replaced.

Each fast path is checked against the plain one it replaced, over every position of random games
(the golden playthroughs in tests/games check the whole observations stay byte-identical).
"""

from __future__ import annotations

import random

from referee.core import get_game
from referee.core.replay import Recorder
from referee.games.scrumbrawl.creatures import STAT_NAMES, stat, stats_of


def test_scrumbrawl_stats_of_equals_stat_for_every_creature_of_random_games() -> None:
    """stats_of(m, c)[k] == stat(m, c, k) for every attribute, creature and position (2 and 4 seats)."""
    g = get_game("scrumbrawl")
    checked = 0
    for seed, seats in ((3, 2), (4, 4)):
        rng = random.Random(seed)
        rec = Recorder(g, g.parse_config({}, seats), seed, [f"s{i}" for i in range(seats)], {})
        m = rec.match
        while m.to_move() is not None and checked < 20_000:
            for c in m.creatures.values():
                assert stats_of(m, c) == {k: stat(m, c, k) for k in STAT_NAMES}, (seed, c.id)
                checked += 1
            rec.apply(rng.choice(m.legal_options()).id)
    assert checked > 5_000
