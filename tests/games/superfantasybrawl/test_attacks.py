"""The attack sequence, targeting, reactions, out of action, VP and levelling up.

Sources: rules-facts A11 (the nine steps, attack types, strength and damage), A12 (reactions),
A14 (out of action, VP, level up), A5 (simultaneous knock-outs), A16 FAQ rulings 1 and 9;
seed-it 'Attacchi' steps 1-9 and 'Reazioni'.
"""

from __future__ import annotations

from referee.core import Seat
from tests.games.superfantasybrawl.helpers import build, events, ids, play


def _kinds(m: object) -> list[str]:
    return [e.kind for e in m.events()]  # type: ignore[attr-defined]


def test_step1_movement_then_step2_pre_attack_then_step4_targets() -> None:
    """A11 steps 1-4: movement first, then pre-attack abilities, then the decision to attack and the targets."""
    m = build({"korrin": {"seat": 0, "hex": (-3, -1)}, "tavi": {"seat": 1, "hex": (0, -1)}}, hands=[["kor3"], []])
    play(m, "card:kor3")
    assert m.to_move().kind == "dash"  # type: ignore[union-attr]  # pre-attack Dash 2 (Headlong Charge has no move)
    assert "dash:q0r-1" not in ids(m)  # Dash stops before an Enemy
    play(m, "dash:q-1r-1")
    assert m.to_move().kind == "attack_target"  # type: ignore[union-attr]
    assert ids(m) == ["target:tavi", "attack:decline"]


def test_step3_pre_attack_resolves_even_if_the_attack_is_declined() -> None:
    """A11 step 3: pre-attack abilities are mandatory and resolve even when you then decline to attack."""
    m = build({"korrin": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (1, -1)}}, hands=[["kor1"], []])
    play(m, "card:kor1", "move:stay")
    assert m.champs["korrin"].damage == 1  # Reckless Cleave hurts Korrin first
    play(m, "attack:decline")
    assert m.champs["tavi"].damage == 0
    assert "attack" not in _kinds(m)


def test_step5_reaction_window_then_step6_strength_minus_defence() -> None:
    """A11 steps 5-6: the defender may react after targets are declared; damage is strength minus current defence."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1)}, "greta": {"seat": 1, "hex": (1, -1)}}, hands=[["bra4"], ["gre6"]]
    )
    play(m, "card:bra4", "move:stay", "target:greta")
    d = m.to_move()
    assert d is not None and d.seat == 1 and d.kind == "reaction" and d.default_option_id == "react:pass"
    assert ids(m) == ["react:gre6:greta", "react:pass"]
    play(m, "react:gre6:greta")  # Iron Hide: +1 defence now, +1 for the rest of the turn
    assert m.champs["greta"].damage == 1  # strength 3 - (1 printed + 1 reaction icon)
    assert m.champs["greta"].defence_turn == 1  # ... and +1 against later attacks this turn


def test_step6_defence_never_goes_below_zero_and_damage_ignores_defence() -> None:
    """A11 step 6 and 'Strength vs damage': strength is reduced by defence (never below 0); damage ignores it."""
    m = build(
        {"quill": {"seat": 0, "hex": (-2, -1)}, "brannoc": {"seat": 1, "hex": (1, -1), "levelled": True}},
        hands=[["qui1"], []],
    )
    play(m, "card:qui1", "target:brannoc")  # Longshot strength 2 against defence 2
    assert m.champs["brannoc"].damage == 0
    m = build(
        {"wren": {"seat": 0, "hex": (0, -1)}, "brannoc": {"seat": 1, "hex": (1, -1), "levelled": True}},
        hands=[["wre5"], []],
    )
    play(m, "card:wre5", "aoe:0")  # Briar Ring: 1 damage, defence does not apply
    assert m.champs["brannoc"].damage == 1


def test_step8_reaction_abilities_only_if_the_defender_was_not_taken_out() -> None:
    """A11 step 8: the reaction's abilities resolve after damage, only if the defender is still in the arena."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1)}, "korrin": {"seat": 1, "hex": (1, -1)}}, hands=[["bra4"], ["kor6"]]
    )
    play(m, "card:bra4", "move:stay", "target:korrin", "react:kor6:korrin")
    assert m.champs["korrin"].damage == 3 and m.champs["brannoc"].damage == 2  # Retaliate hits back
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1)}, "korrin": {"seat": 1, "hex": (1, -1), "damage": 6}},
        hands=[["bra4"], ["kor6"]],
    )
    play(m, "card:bra4", "move:stay", "target:korrin", "react:kor6:korrin")
    assert m.champs["korrin"].hex is None and m.champs["brannoc"].damage == 0


def test_step9_post_attack_only_if_the_attacker_was_not_taken_out() -> None:
    """A11 step 9: post-attack abilities happen only if the attacker is still in the arena."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1), "damage": 7}, "korrin": {"seat": 1, "hex": (1, -1)}},
        hands=[["bra1"], ["kor6"]],
    )
    play(m, "card:bra1", "move:stay", "target:korrin", "react:kor6:korrin")
    assert m.champs["brannoc"].hex is None
    assert m.champs["korrin"].hex == (1, -1)  # Shield Bash's push did not happen
    assert m.vp == [0, 1]


def test_melee_targets_only_adjacent_enemies() -> None:
    """A11 'Melee': one adjacent Enemy; Allies are never targeted by default (A5 default targeting)."""
    m = build(
        {
            "greta": {"seat": 0, "hex": (0, -1)},
            "quill": {"seat": 0, "hex": (-1, -1)},
            "tavi": {"seat": 1, "hex": (1, -1)},
            "oska": {"seat": 1, "hex": (2, -1)},
        },
        hands=[["gre3"], []],
    )
    play(m, "card:gre3", "move:stay")
    assert ids(m) == ["target:tavi", "attack:decline"]


def test_direct_shot_needs_a_hex_row_and_a_clear_line() -> None:
    """A11 'Direct shot': along one of the attacker's hex rows; statues and champions in between block it."""
    champs = {
        "quill": {"seat": 0, "hex": (-3, -1)},
        "tavi": {"seat": 1, "hex": (1, -1)},
        "oska": {"seat": 1, "hex": (0, -3)},
    }
    m = build(champs, hands=[["qui1"], []])
    play(m, "card:qui1")
    assert ids(m) == ["target:tavi", "attack:decline"]  # Oska is in range but on no shared row
    m = build({**champs, "brannoc": {"seat": 0, "hex": (-1, -1)}}, hands=[["qui1"], []])
    play(m, "card:qui1")
    assert "target:tavi" not in ids(m)  # an Ally in between blocks the line
    m = build({"quill": {"seat": 0, "hex": (-2, 0)}, "tavi": {"seat": 1, "hex": (2, 0)}}, hands=[["qui1"], []])
    play(m, "card:qui1")
    assert "target:tavi" not in ids(m)  # the yellow statue blocks it


def test_indirect_shot_ignores_statues_and_champions_and_respects_minimum_range() -> None:
    """A11 'Indirect shot' and minimum range: nothing blocks it; an Enemy nearer than the minimum is not a target."""
    m = build(
        {"quill": {"seat": 0, "hex": (-2, 0)}, "tavi": {"seat": 1, "hex": (2, 0)}, "oska": {"seat": 1, "hex": (-1, 0)}},
        hands=[["qui3"], []],
    )
    play(m, "card:qui3")
    assert ids(m) == ["target:tavi", "attack:decline"]  # over the statue; Oska is at range 1 < 2


def test_aoe_orientation_is_chosen_by_the_attacker_and_must_include_an_enemy() -> None:
    """A11 'AoE': the attacker picks the orientation; it must contain at least one Enemy."""
    m = build({"durgan": {"seat": 0, "hex": (-3, -1)}, "tavi": {"seat": 1, "hex": (-1, -1)}}, hands=[["dur2"], []])
    play(m, "card:dur2")
    assert ids(m) == ["aoe:0", "attack:decline"]
    opt = m.legal_options()[0]
    assert opt.params["hexes"] == ["q-2r-1", "q-1r-1", "q0r-1"]


def test_aoe_hits_allies_in_the_area_too() -> None:
    """A5/A11: an AoE aimed at Enemies still hits Allies inside the area."""
    m = build(
        {
            "oska": {"seat": 0, "hex": (-1, -1)},
            "brannoc": {"seat": 0, "hex": (0, -1)},
            "tavi": {"seat": 1, "hex": (-1, -2)},
        },
        hands=[["osk2"], []],
    )
    play(m, "card:osk2")
    assert ids(m) == ["aoe:0", "attack:decline"]  # a ring has one distinct orientation
    play(m, "aoe:0")
    assert m.champs["tavi"].damage == 1 and m.champs["brannoc"].damage == 1


def test_one_reaction_per_attack_on_any_of_your_champions() -> None:
    """A12: at most one reaction per attack; it may be played on any of your champions, not only the target."""
    m = build(
        {
            "oska": {"seat": 0, "hex": (-1, -1)},
            "tavi": {"seat": 1, "hex": (-1, -2)},
            "greta": {"seat": 1, "hex": (0, -1)},
            "nyx": {"seat": 1, "hex": (3, -3)},
        },
        hands=[["osk2"], ["gre6", "tav6"]],
    )
    play(m, "card:osk2", "aoe:0")
    assert ids(m) == [
        "react:gre6:tavi",
        "react:gre6:greta",
        "react:gre6:nyx",
        "react:tav6:tavi",
        "react:tav6:greta",
        "react:tav6:nyx",
        "react:pass",
    ]
    play(m, "react:gre6:greta")
    assert m.to_move().kind == "main"  # type: ignore[union-attr]  # no second window for the same attack
    assert m.champs["greta"].damage == 0 and m.champs["tavi"].damage == 1


def test_no_window_without_a_playable_reaction_and_a_pass_is_private() -> None:
    """A12 and the contract: a window is offered only with a legal reaction; passing is private (it reveals a card)."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (1, -1)}},
        hands=[["bra4"], ["tav6"]],
        cores=[{}, {"yellow": False}],
    )
    play(m, "card:bra4", "move:stay", "target:tavi")
    assert m.to_move().kind == "main"  # type: ignore[union-attr]  # Sidestep's yellow core is spent
    m = build({"brannoc": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (1, -1)}}, hands=[["bra4"], ["tav6"]])
    play(m, "card:bra4", "move:stay", "target:tavi")
    assert m.to_move().seat == 1  # type: ignore[union-attr]
    play(m, "react:pass")
    passed = [e for e in m.events() if e.kind == "reaction_passed"]
    assert passed and passed[0].visible_to == frozenset({Seat(1)})
    assert not [e for e in m.events(0, Seat(0)) if e.kind == "reaction_passed"]


def test_reactions_cannot_answer_skills_or_the_red_standard_action() -> None:
    """A12/A13: reactions answer attack actions only; A18.9: the red standard action is damage, not an attack."""
    m = build({"greta": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (1, -1)}}, hands=[["gre4"], ["tav6"]])
    play(m, "card:gre4", "move:stay", "target:tavi")
    assert m.to_move().kind == "main" and m.to_move().seat == 0  # type: ignore[union-attr]
    play(m, "std:red:greta", "move:stay", "strike:tavi")
    assert m.to_move().kind == "main" and m.to_move().seat == 0  # type: ignore[union-attr]


def test_reaction_defence_bonus_lasts_for_that_attack_only() -> None:
    """FAQ A16.1: a reaction's defence bonus lasts for that one attack unless the card says otherwise."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1)}, "durgan": {"seat": 1, "hex": (1, -1)}},
        hands=[["bra4", "bra3"], ["dur6"]],
    )
    play(m, "card:bra4", "move:stay", "target:durgan", "react:dur6:durgan")
    assert m.champs["durgan"].damage == 0  # 3 - (1 + 2)
    play(m, "std:red:brannoc", "move:stay", "strike:durgan")
    m2 = build(
        {"brannoc": {"seat": 0, "hex": (0, -1)}, "durgan": {"seat": 1, "hex": (1, -1)}},
        hands=[["bra1", "bra4"], ["dur6"]],
    )
    play(m2, "card:bra4", "move:stay", "target:durgan", "react:dur6:durgan")
    assert m2.champs["durgan"].defence_attack == 0  # the bonus is gone after the attack
    m3 = build(
        {"brannoc": {"seat": 0, "hex": (0, -1)}, "greta": {"seat": 1, "hex": (1, -1)}},
        hands=[["bra4", "bra1"], ["gre6"]],
        cores=[{}, {}],
    )
    play(m3, "card:bra4", "move:stay", "target:greta", "react:gre6:greta")
    assert m3.champs["greta"].defence_turn == 1  # Iron Hide says: +1 for the rest of the turn


def test_out_of_action_clears_damage_flips_back_and_waits_on_the_gate() -> None:
    """A14: out of action at damage >= HP: damage removed, levelled side flipped back, champion on its Gate."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (1, -1), "damage": 4, "levelled": True}},
        hands=[["bra4"], []],
    )
    play(m, "card:bra4", "move:stay", "target:tavi")
    t = m.champs["tavi"]
    assert t.hex is None and t.damage == 0 and not t.levelled
    assert m.observe(Seat(0))["champions"][1]["on_gate"] is True


def test_taking_an_enemy_out_scores_1_vp_and_levels_up_after_the_action() -> None:
    """A14: 1 VP and a level-up for the champion that took an Enemy out, after the action has fully resolved."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1), "damage": 3}, "tavi": {"seat": 1, "hex": (1, -1), "damage": 4}},
        hands=[["bra1"], []],
    )
    play(m, "card:bra1", "move:stay", "target:tavi")
    kinds = [k for k in _kinds(m) if k in ("out_of_action", "vp", "level_up", "moved")]
    assert kinds == ["out_of_action", "vp", "level_up"]
    b = m.champs["brannoc"]
    assert b.levelled and b.damage == 3 and m.vp == [1, 0]
    assert m.observe(Seat(0))["champions"][0]["hp"] == 9  # damage carried over to the levelled side


def test_taking_yourself_or_an_ally_out_gives_the_opponent_the_vp_and_no_level_up() -> None:
    """A14: if a champion takes itself or an Ally out of action, the opponent gains 1 VP and nobody levels up."""
    m = build(
        {"korrin": {"seat": 0, "hex": (0, -1), "damage": 7}, "tavi": {"seat": 1, "hex": (1, -1)}}, hands=[["kor1"], []]
    )
    play(m, "card:kor1", "move:stay")
    assert m.champs["korrin"].hex is None and m.vp == [0, 1]
    assert not events(m, "level_up")


def test_only_an_enemy_knock_out_levels_up_and_a_levelled_champion_gains_nothing_more() -> None:
    """FAQ A16.9: only taking an Enemy out levels up; an already levelled champion gains nothing."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1), "levelled": True}, "tavi": {"seat": 1, "hex": (1, -1), "damage": 4}},
        hands=[["bra4"], []],
    )
    play(m, "card:bra4", "move:stay", "target:tavi")
    assert m.vp == [1, 0] and not events(m, "level_up") and m.champs["brannoc"].levelled


def test_simultaneous_knock_outs_both_score_and_the_player_who_did_not_play_wins() -> None:
    """A5: one card takes a champion of each team out: both gain 1 VP; both at 5 -> the player who did not play wins."""
    m = build(
        {
            "oska": {"seat": 0, "hex": (-1, -1)},
            "brannoc": {"seat": 0, "hex": (0, -1), "damage": 7},
            "tavi": {"seat": 1, "hex": (-1, -2), "damage": 4},
        },
        hands=[["osk2"], []],
        vp=[4, 4],
    )
    play(m, "card:osk2", "aoe:0")
    out = m.outcome()
    assert m.vp == [5, 5]
    assert out is not None and out.winners == (Seat(1),)


def test_reentry_from_the_gate_through_the_deployment_area_costs_one_movement() -> None:
    """A14: an out-of-action champion re-enters with a move action; the first hex is in its deployment area."""
    m = build({"brannoc": {"seat": 0, "hex": None}, "tavi": {"seat": 1, "hex": (1, -1)}}, hands=[["bra2", "bra4"], []])
    assert "card:bra2" not in ids(m)  # Wide Sweep prints no movement: it cannot activate a champion on the Gate
    assert "card:bra4" in ids(m)
    play(m, "std:move2:brannoc:blue")
    dests = {o.params["hex"] for o in m.legal_options() if o.params.get("hex")}
    assert dests == {f"q{q}r-4" for q in range(5)} | {f"q{q}r-3" for q in range(-1, 5)}
    play(m, "move:q2r-3")
    assert m.champs["brannoc"].hex == (2, -3)
