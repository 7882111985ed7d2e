"""The observation's caches (card entries, stats, the shared discard list) never show stale data.

``observe`` reuses parts of earlier observations (see ``referee/games/scrumbrawl/observation.py``):
each observation of a random game must equal the one a fresh copy of the match builds (a copy
has no cached discard list), and an observation handed out earlier must not change afterwards.
"""

from __future__ import annotations

import copy
import json
import random

from referee.core import get_game
from referee.core.replay import Recorder


def test_observations_equal_a_fresh_copys_and_never_change_after_being_handed_out() -> None:
    g = get_game("scrumbrawl")
    compared = 0
    for seed, seats in ((11, 2), (12, 3)):
        rng = random.Random(seed)
        rec = Recorder(g, g.parse_config({}, seats), seed, [f"s{i}" for i in range(seats)], {})
        m = rec.match
        kept: list[tuple[dict[str, object], str]] = []
        n = 0
        discards = set()
        while (d := m.to_move()) is not None and n < 900:
            obs = m.observe(d.seat)
            if n % 7 == 0:
                assert obs == copy.deepcopy(m).observe(d.seat), (seed, n)
                assert m.observe(None) == copy.deepcopy(m).observe(None), (seed, n)
                compared += 1
            if n % 50 == 0:
                kept.append((obs, json.dumps(obs, sort_keys=True)))
            discards.add(len(obs["discard"]))
            rec.apply(rng.choice(m.legal_options()).id)
            n += 1
        for old, text in kept:
            assert json.dumps(old, sort_keys=True) == text, seed
        assert len(discards) > 3, "the discard pile never changed: the shared list was not exercised"
    assert compared > 150
