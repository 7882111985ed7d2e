"""Levelled-up sides: stats and passive traits apply until the champion next goes out of action (A14, A17).

Traits are data on a champion side; each is a named rule: guardian (+1 defence to adjacent
Allies), long_reach (+1 maximum range on shots), pierce (ignore 1 defence), steadfast (cannot be
Pushed, Pulled, Forced or Feared), strength_bonus (+1 strength), unstunnable, and a movement
bonus added to printed movement.
"""

from __future__ import annotations

from tests.games.superfantasybrawl.helpers import build, events, ids, play


def test_guardian_gives_adjacent_allies_one_defence() -> None:
    """Levelled Brannoc (guardian): an adjacent Ally gets +1 defence."""
    m = build(
        {
            "brannoc": {"seat": 1, "hex": (2, -1), "levelled": True},
            "tavi": {"seat": 1, "hex": (1, -1)},
            "greta": {"seat": 0, "hex": (0, -1)},
        },
        hands=[["gre3"], []],
    )
    play(m, "card:gre3", "move:stay", "target:tavi")
    assert m.champs["tavi"].damage == 1  # 3 - (1 + 1)


def test_long_reach_adds_one_to_the_maximum_range_of_shots() -> None:
    """Levelled Quill (long_reach): Longshot reaches 6 instead of 5."""
    champs = {"quill": {"seat": 0, "hex": (-3, -1)}, "tavi": {"seat": 1, "hex": (3, -1)}}
    m = build(champs, hands=[["qui1"], []])
    play(m, "card:qui1")
    assert m.to_move().kind == "main"  # type: ignore[union-attr]  # out of range: no target, no decision
    m = build({**champs, "quill": {"seat": 0, "hex": (-3, -1), "levelled": True}}, hands=[["qui1"], []])
    play(m, "card:qui1")
    assert "target:tavi" in ids(m)


def test_pierce_ignores_one_defence() -> None:
    """Levelled Gloam (pierce): Leech Touch 2 against defence 1 deals 2."""
    m = build(
        {"gloam": {"seat": 0, "hex": (0, -1), "levelled": True}, "tavi": {"seat": 1, "hex": (1, -1)}},
        hands=[["glo4"], []],
    )
    play(m, "card:glo4", "move:stay", "target:tavi")
    assert m.champs["tavi"].damage == 2


def test_steadfast_cannot_be_pushed_and_takes_no_push_damage() -> None:
    """Levelled Greta (steadfast): cancelling displacement cancels its damage too (A15 'Displacement')."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (-2, 0)}, "greta": {"seat": 1, "hex": (-1, 0), "levelled": True}},
        hands=[["bra1"], []],
    )
    play(m, "card:bra1", "move:stay", "target:greta", "post:apply")
    assert m.champs["greta"].hex == (-1, 0) and m.champs["greta"].damage == 1
    assert events(m, "immune")[0]["keyword"] == "push"


def test_strength_bonus_adds_one_strength() -> None:
    """Levelled Korrin (strength_bonus): Blood Frenzy is strength 3."""
    m = build(
        {"korrin": {"seat": 0, "hex": (0, -1), "levelled": True}, "quill": {"seat": 1, "hex": (1, -1)}},
        hands=[["kor2"], []],
    )
    play(m, "card:kor2", "move:stay")
    assert m.legal_options()[0].params["strength"] == 3


def test_unstunnable_ignores_stun() -> None:
    """Levelled Wren (unstunnable): Stun does nothing."""
    m = build(
        {"greta": {"seat": 0, "hex": (0, -1)}, "wren": {"seat": 1, "hex": (1, -1), "levelled": True}},
        hands=[["gre2"], ["wre1", "wre2"]],
    )
    play(m, "card:gre2", "move:stay", "target:wren")
    assert m.hands[1] == ["wre1", "wre2"]


def test_movement_bonus_adds_to_printed_movement_only() -> None:
    """A6: a movement bonus applies to cards and standard actions that print movement."""
    m = build(
        {"tavi": {"seat": 0, "hex": (0, -4), "levelled": True}, "oska": {"seat": 1, "hex": (-4, 4)}},
        hands=[["tav4"], []],
    )
    play(m, "card:tav4")
    assert "move:q0r-2" in ids(m)  # Hit and Run moves 1, +1 when levelled
