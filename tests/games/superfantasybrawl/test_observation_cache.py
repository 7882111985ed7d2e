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

from referee.core import Seat, get_game
from referee.core.replay import Recorder
from referee.games.superfantasybrawl.state import defence, defences
from tests.games.superfantasybrawl.helpers import build, play


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


def test_defences_of_all_champions_at_once_are_each_champions_defence() -> None:
    """``defences`` (what observe uses) gives every champion's ``defence``: Guardians, bonuses, the Gate."""
    m = build(
        {
            "brannoc": {"seat": 1, "hex": (2, -1), "levelled": True},
            "tavi": {"seat": 1, "hex": (1, -1)},
            "quill": {"seat": 1, "hex": None},
            "greta": {"seat": 0, "hex": (0, -1)},
            "gloam": {"seat": 0, "hex": (3, -1)},
        },
        hands=[["gre3"], []],
    )
    m.champs["greta"].defence_turn = 1
    shields = defences(m)
    assert shields == {cid: defence(m, c) for cid, c in m.champs.items()}
    assert shields["tavi"] == defence(m, m.champs["tavi"]) == 2  # 1 printed + 1 from the adjacent Guardian
    assert m.observe(Seat(0))["champions"][1]["defence"] == 2
    play(m, "card:gre3", "move:stay", "target:tavi")
    assert m.champs["tavi"].damage == 1
    m.champs["brannoc"].hex = (3, -2)  # no longer next to Tavi
    assert defences(m)["tavi"] == defence(m, m.champs["tavi"]) == 1
    assert [c["defence"] for c in m.observe(Seat(0))["champions"]] == [defence(m, c) for c in m.champs.values()]
