"""Traps: trigger on entry, flip, apply, replace; the all-blocked rule; credit to the effect's source.

Sources: rules-facts A9 (dized traps), A15 Jump/Swoop, FAQ A16.3 (Force onto a trap); seed-it
'Trappole'.
"""

from __future__ import annotations

from referee.core import ScriptedChance, Seat
from referee.games.superfantasybrawl.hexes import neighbours, parse_hex
from tests.games.superfantasybrawl.helpers import build, events, ids, play


def test_a_trap_triggers_on_entry_is_flipped_and_replaced_on_a_different_empty_trap_hex() -> None:
    """A9: entering a trap hex flips the token (damage ignores defence); the mover's player places a new one."""
    m = build(
        {"tavi": {"seat": 0, "hex": (1, -1)}, "oska": {"seat": 1, "hex": (4, -4)}},
        traps={(1, -2): ("damage", 1)},
        supply=[("root", 0)],
        chance=ScriptedChance.of(0),
    )
    play(m, "std:move2:tavi:blue", "move:q1r-2")
    assert m.champs["tavi"].damage == 1
    assert events(m, "trap_sprung")[0]["trap_kind"] == "damage"
    d = m.to_move()
    assert d is not None and d.seat == 0 and d.kind == "trap_replace"
    assert "trap:q1r-2" not in ids(m) and len(ids(m)) == 5
    play(m, "trap:q3r-2")
    assert m.traps == {(3, -2): ("root", 0)}
    assert m.trap_supply == [("damage", 1)]  # the used token went back to the supply
    assert m.observe(Seat(1))["trap_hexes"][-1] == {"hex": "q3r-2", "has_trap": True}


def test_a_root_trap_stops_the_rest_of_the_movement() -> None:
    """A9: after a trap the champion may finish its movement unless the trap stopped it (Root)."""
    m = build(
        {"tavi": {"seat": 0, "hex": (1, -1)}, "oska": {"seat": 1, "hex": (-4, 4)}},
        hands=[["tav2"], []],
        traps={(1, -2): ("root", 0)},
        chance=ScriptedChance.of(0),
    )
    play(m, "card:tav2", "dash:q1r-4")
    assert m.champs["tavi"].hex == (1, -2) and m.champs["tavi"].rooted
    play(m, ids(m)[0])  # place the replacement trap
    assert m.champs["tavi"].hex == (1, -2)


def test_a_stun_trap_makes_the_controller_discard_a_card_of_that_champion() -> None:
    """A9 and Stun (A15): the stunned champion's controller discards one of its cards from hand."""
    m = build(
        {"tavi": {"seat": 0, "hex": (1, -1)}, "oska": {"seat": 1, "hex": (-4, 4)}},
        hands=[["tav1", "tav3", "osk1"], []],
        traps={(1, -2): ("stun", 0)},
        chance=ScriptedChance.of(0),
    )
    play(m, "std:move2:tavi:blue", "move:q1r-2")
    assert m.to_move().kind == "stun_discard" and ids(m) == ["discard:tav1", "discard:tav3"]  # type: ignore[union-attr]
    play(m, "discard:tav3")
    assert m.discards[0] == ["tav3"]


def test_a_trap_sprung_by_a_push_credits_the_pusher_with_the_knock_out() -> None:
    """A9 credit: a trap triggered by a card effect counts as that effect's source (VP and level-up)."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (-1, -2)}, "tavi": {"seat": 1, "hex": (0, -2), "damage": 3}},
        hands=[["bra1"], []],
        traps={(1, -2): ("damage", 2)},
        chance=ScriptedChance.of(0),
    )
    play(m, "card:bra1", "move:stay", "target:tavi", "post:apply")
    assert m.champs["tavi"].hex is None
    assert m.vp == [1, 0]
    while m.to_move().kind == "trap_replace":  # type: ignore[union-attr]
        play(m, ids(m)[0])
    assert m.champs["brannoc"].levelled


def test_when_every_trap_hex_is_blocked_the_new_trap_goes_next_to_a_trap_hex() -> None:
    """A9: if every trap hex holds a champion or a trap, the token goes on a free hex adjacent to a trap hex."""
    traps = {
        (-2, -2): ("damage", 1),
        (-4, 2): ("damage", 1),
        (-1, 2): ("root", 0),
        (3, -2): ("stun", 0),
        (1, 2): ("damage", 2),
        (1, -2): ("damage", 1),
    }
    m = build(
        {"tavi": {"seat": 0, "hex": (1, -1)}, "oska": {"seat": 1, "hex": (-4, 4)}},
        traps=traps,
        supply=[("root", 0), ("stun", 0)],
        chance=ScriptedChance.of(0),
    )
    play(m, "std:move2:tavi:blue", "move:q1r-2")
    options = [parse_hex(i.split(":", 1)[1]) for i in ids(m)]
    around = {n for t in traps for n in neighbours(t)}
    assert options and all(o in around and o not in traps for o in options)
    play(m, ids(m)[0])
    assert options[0] in m.trap_hexes and len(m.traps) == 6


def test_jump_and_swoop_pass_over_traps_and_trigger_only_where_they_end() -> None:
    """A9/A15: Jump and Swoop pass over traps without triggering them; ending on one triggers it."""
    m = build(
        {"quill": {"seat": 0, "hex": (1, -1)}, "oska": {"seat": 1, "hex": (-4, 4)}},
        hands=[["qui4"], []],
        traps={(1, -2): ("damage", 1)},
    )
    play(m, "card:qui4", "skill:use", "swoop:q1r-3")
    assert m.champs["quill"].hex == (1, -3) and m.champs["quill"].damage == 0 and (1, -2) in m.traps
    m = build(
        {"quill": {"seat": 0, "hex": (1, -1)}, "oska": {"seat": 1, "hex": (-4, 4)}},
        hands=[["qui4"], []],
        traps={(1, -2): ("damage", 1)},
        chance=ScriptedChance.of(0),
    )
    play(m, "card:qui4", "skill:use", "swoop:q1r-2")
    assert m.champs["quill"].damage == 1


def test_a_champion_may_be_forced_onto_a_trap() -> None:
    """FAQ A16.3: a champion may be Forced onto a trap, which triggers it."""
    m = build(
        {"oska": {"seat": 0, "hex": (-1, -1)}, "tavi": {"seat": 1, "hex": (1, -1)}},
        hands=[["osk4"], []],
        traps={(1, -2): ("damage", 2)},
        chance=ScriptedChance.of(0),
    )
    play(m, "card:osk4", "target:tavi")
    assert m.to_move().seat == 0 and "force:q1r-2" in ids(m)  # type: ignore[union-attr]
    play(m, "force:q1r-2")
    assert m.champs["tavi"].damage == 2
    assert events(m, "trap_sprung")[0]["source"] == "oska"


def test_normal_movement_avoids_traps_when_a_trap_free_path_exists() -> None:
    """House reading (movement module): a move is chosen by destination; the walked path enters the fewest traps."""
    m = build(
        {"tavi": {"seat": 0, "hex": (1, -1)}, "oska": {"seat": 1, "hex": (-4, 4)}}, traps={(1, -2): ("damage", 1)}
    )
    play(m, "std:move2:tavi:blue", "move:q2r-3")  # via q1r-2 (a trap) or q2r-2 (free)
    assert m.champs["tavi"].hex == (2, -3) and m.champs["tavi"].damage == 0 and (1, -2) in m.traps


def test_a_push_stopped_by_a_root_trap_turns_the_rest_into_damage() -> None:
    """A9 + Root (A15): a rooted champion cannot be moved, so the rest of the Push is 1 damage per hex."""
    m = build(
        {"durgan": {"seat": 0, "hex": (-1, -2)}, "tavi": {"seat": 1, "hex": (0, -2)}},
        hands=[["dur3"], []],
        traps={(1, -2): ("root", 0)},
        chance=ScriptedChance.of(0),
    )
    play(m, "card:dur3", "move:stay", "target:tavi", "post:apply")
    while m.to_move().kind == "trap_replace":  # type: ignore[union-attr]
        play(m, ids(m)[0])
    assert m.champs["tavi"].hex == (1, -2)
    assert m.champs["tavi"].damage == 2  # strength 1 - defence 1, then 2 hexes of the Push 3 not moved
