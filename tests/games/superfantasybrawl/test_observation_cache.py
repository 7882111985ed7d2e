"""The observation's reused parts never show stale data, and reused options are the options.

``observe`` hands out the parts of the match's last observation again while they are unchanged
(see ``referee/games/superfantasybrawl/observation.py``): each observation of a random game must
equal the one a fresh copy of the match builds (a copy starts with nothing to reuse), for the
deciding seat and a spectator, and an observation handed out earlier must not change afterwards.
"""

from __future__ import annotations

import copy
import json
import random

from referee.core import get_game
from referee.core.replay import Recorder


def test_observations_equal_a_fresh_copys_and_never_change_after_being_handed_out() -> None:
    g = get_game("superfantasybrawl")
    compared = reused = rebuilt = 0
    for seed, seats in ((21, 2), (22, 4), (23, 2)):
        rng = random.Random(seed)
        rec = Recorder(g, g.parse_config({}, seats), seed, [f"s{i}" for i in range(seats)], {})
        m = rec.match
        kept: list[tuple[dict[str, object], str]] = []
        last: dict[str, object] | None = None
        n = 0
        while (d := m.to_move()) is not None:
            obs = m.observe(d.seat)
            if n % 3 == 0:
                fresh = copy.deepcopy(m)
                assert obs == fresh.observe(d.seat), (seed, n)
                assert m.observe(None) == fresh.observe(None), (seed, n)
                compared += 1
            if last is not None:
                if obs["champions"] is last["champions"]:
                    reused += 1
                else:
                    rebuilt += 1
            last = obs
            if n % 10 == 0:
                kept.append((obs, json.dumps(obs)))
            rec.apply(rng.choice(m.legal_options()).id)
            n += 1
        for old, text in kept:
            assert json.dumps(old) == text, seed
    assert compared > 150
    assert reused > 50 and rebuilt > 50, "both the reused and the rebuilt champion lists are exercised"
