"""One scenario per keyword of rules-facts A15 (seed-it 'Parole chiave', dized keyword pages).

Bloodied, Control, Dash, Double, Force, Heal, Jump, Lifesteal, Out of Action (see
test_attacks), Place, Plan, Poison, Pull, Push, Root, Stun, Swoop. Draw, Fear, towards and away, as the
seeds word them, are in test_seed_rulings.
"""

from __future__ import annotations

from referee.core import Seat
from referee.games.superfantasybrawl.challenges import met
from referee.games.superfantasybrawl.state import bloodied
from tests.games.superfantasybrawl.helpers import build, events, ids, play

FAR = {"oska": {"seat": 1, "hex": (-4, 4)}}


def test_bloodied_is_half_hp_or_less_rounding_up() -> None:
    """Bloodied (A15, A18.16): a 7-HP champion is bloodied at 4 HP left, not at 5."""
    m = build({"greta": {"seat": 0, "hex": (0, -1), "damage": 3}, "tavi": {"seat": 1, "hex": (1, -1)}})
    assert bloodied(m, m.champs["greta"])
    m.champs["greta"].damage = 2
    assert not bloodied(m, m.champs["greta"])


def test_bloodied_bonus_strength_applies_against_a_bloodied_target() -> None:
    """Bloodied as a condition: Backstab gains +2 strength against a Bloodied target."""
    m = build(
        {"nyx": {"seat": 0, "hex": (0, -1)}, "greta": {"seat": 1, "hex": (1, -1), "damage": 4}}, hands=[["nyx1"], []]
    )
    play(m, "card:nyx1", "move:stay")
    assert m.legal_options()[0].params["strength"] == 4


def test_control_needs_more_champions_than_the_opponent_and_a_tie_controls_nothing() -> None:
    """Control (A15): more of your champions in the area than the opponent; a tie means nobody controls it."""
    champs = {"brannoc": {"seat": 0, "hex": (-2, -1)}, "tavi": {"seat": 1, "hex": (-3, 1)}}
    m = build(champs)
    assert not met(m, 0, "ch01") and not met(m, 1, "ch01")
    m = build({**champs, "quill": {"seat": 0, "hex": (-4, 0)}})
    assert met(m, 0, "ch01")


def test_dash_goes_straight_passes_allies_and_stops_at_statues_and_enemies() -> None:
    """Dash X (A15, FAQ A16.4/6): a straight line along one hex row; no passing statues or Enemies."""
    m = build(
        {
            "tavi": {"seat": 0, "hex": (-3, -1)},
            "brannoc": {"seat": 0, "hex": (-2, -1)},
            "oska": {"seat": 1, "hex": (0, -1)},
        },
        hands=[["tav2"], []],
    )
    play(m, "card:tav2")
    dests = ids(m)
    assert "dash:q-1r-1" in dests and "dash:q-2r-1" not in dests  # passes the Ally, cannot end on it
    assert "dash:q0r-1" not in dests and "dash:q1r-1" not in dests  # stops before the Enemy
    assert "dash:q-3r0" not in dests  # the red statue blocks that row


def test_double_resolves_the_attack_damage_twice() -> None:
    """Double (A15): after the attack-damage step, resolve it a second time."""
    m = build({"tavi": {"seat": 0, "hex": (0, -1)}, "quill": {"seat": 1, "hex": (1, -1)}}, hands=[["tav1"], []])
    play(m, "card:tav1", "move:stay", "target:quill")
    assert m.champs["quill"].damage == 2
    assert len(events(m, "attack_roll")) == 2


def test_force_moves_the_target_by_the_card_player_and_a_rooted_champion_cannot_be_forced() -> None:
    """Force X (A15): the card's player moves the target up to X; Root stops it and it deals no damage."""
    champs = {"oska": {"seat": 0, "hex": (-1, -1)}, "tavi": {"seat": 1, "hex": (1, -1)}}
    m = build(champs, hands=[["osk4"], []])
    play(m, "card:osk4", "target:tavi")
    assert m.to_move().seat == 0 and "force:q3r-1" in ids(m)  # type: ignore[union-attr]
    play(m, "force:q3r-1")
    assert m.champs["tavi"].hex == (3, -1)
    m = build({**champs, "tavi": {"seat": 1, "hex": (1, -1), "rooted": True}}, hands=[["osk4"], []])
    play(m, "card:osk4", "target:tavi")
    assert m.to_move().kind == "main" and m.champs["tavi"].damage == 0  # type: ignore[union-attr]


def test_heal_removes_damage_never_below_zero() -> None:
    """Heal X (A15): remove X damage, never below 0."""
    m = build({"greta": {"seat": 0, "hex": (0, -1), "damage": 1}, **FAR}, hands=[["gre5"], []])
    play(m, "card:gre5", "skill:use")
    assert m.champs["greta"].damage == 0
    assert events(m, "heal")[0]["amount"] == 1


def test_jump_passes_over_statues_and_enemies() -> None:
    """Jump X (A15): may pass through Enemies and statues; cannot end on an occupied hex."""
    m = build({"tavi": {"seat": 0, "hex": (-1, 0)}, "oska": {"seat": 1, "hex": (2, 0)}}, hands=[["tav3"], []])
    play(m, "card:tav3", "skill:use")
    assert "jump:q1r0" in ids(m) and "jump:q2r0" not in ids(m) and "jump:q0r0" not in ids(m)
    play(m, "jump:q1r0")
    assert m.champs["tavi"].hex == (1, 0)


def test_lifesteal_heals_the_attacker_by_the_attack_damage_dealt() -> None:
    """Lifesteal (A15): the attacker heals as much as the attack damage it dealt."""
    m = build(
        {"gloam": {"seat": 0, "hex": (0, -1), "damage": 3}, "quill": {"seat": 1, "hex": (1, -1)}}, hands=[["glo4"], []]
    )
    play(m, "card:glo4", "move:stay", "target:quill")
    assert m.champs["quill"].damage == 2 and m.champs["gloam"].damage == 1


def test_place_is_not_movement_so_a_rooted_champion_can_be_placed() -> None:
    """Place (A15, dized displacement): not movement, so Root does not stop it."""
    m = build(
        {"wren": {"seat": 0, "hex": (0, -2)}, "brannoc": {"seat": 0, "hex": (0, -4), "rooted": True}, **FAR},
        hands=[["wre2"], []],
    )
    play(m, "card:wre2", "target:brannoc")
    assert m.to_move().kind == "place"  # type: ignore[union-attr]
    play(m, "place:q1r-2")
    assert m.champs["brannoc"].hex == (1, -2)


def test_plan_puts_cards_on_top_in_the_chosen_order() -> None:
    """Plan X (A15, A18.12): up to X cards from hand on top of the deck; the last one put is on top."""
    m = build(
        {"wren": {"seat": 0, "hex": (0, -2)}, **FAR}, hands=[["wre3", "wre1", "wre4"], []], decks=[["wre5", "wre6"], []]
    )
    play(m, "card:wre3", "move:stay", "skill:use", "plan:wre1", "plan:wre4")  # Foresight: Draw 2, then Plan 2
    assert m.decks[0][-2:] == ["wre1", "wre4"] and sorted(m.hands[0]) == ["wre5", "wre6"]
    assert m.observe(Seat(0))["planned_on_top"] == 2
    assert [e.kind for e in m.events(0, Seat(1))].count("planned_card") == 0  # which cards is private


def test_poison_adds_damage_only_if_attack_damage_was_dealt() -> None:
    """Poison X (A15): if attack damage was dealt, X more damage to the target."""
    m = build({"gloam": {"seat": 0, "hex": (0, -1)}, "quill": {"seat": 1, "hex": (1, -1)}}, hands=[["glo1"], []])
    play(m, "card:glo1", "move:stay", "target:quill")
    assert m.champs["quill"].damage == 2
    m = build(
        {"gloam": {"seat": 0, "hex": (0, -1)}, "brannoc": {"seat": 1, "hex": (1, -1), "levelled": True}},
        hands=[["glo1"], []],
    )
    play(m, "card:glo1", "move:stay", "target:brannoc")
    assert m.champs["brannoc"].damage == 0


def test_pull_moves_the_target_towards_the_source_and_blocked_hexes_are_damage() -> None:
    """Pull X (A15, dized): straight towards the source; stops before a champion; 1 damage per hex not moved."""
    m = build({"greta": {"seat": 0, "hex": (-3, -1)}, "tavi": {"seat": 1, "hex": (0, -1)}}, hands=[["gre1"], []])
    play(m, "card:gre1", "target:tavi", "post:apply")
    assert m.champs["tavi"].hex == (-2, -1)
    assert m.champs["tavi"].damage == 1  # strength 1 - defence 1 = 0, then 1 hex of the Pull blocked by Greta


def test_push_blocked_by_a_statue_deals_damage_off_row_is_ignored_rooted_takes_it_all() -> None:
    """Push X (A15, A18.5): away along the row; blocked hexes are damage; not on a row: ignored; Root: all damage."""
    m = build({"brannoc": {"seat": 0, "hex": (-2, 0)}, "tavi": {"seat": 1, "hex": (-1, 0)}}, hands=[["bra1"], []])
    play(m, "card:bra1", "move:stay", "target:tavi", "post:apply")
    assert m.champs["tavi"].hex == (-1, 0) and m.champs["tavi"].damage == 2
    m = build({"quill": {"seat": 0, "hex": (-3, -1)}, "oska": {"seat": 1, "hex": (0, -3)}}, hands=[["qui3"], ["osk6"]])
    play(m, "card:qui3", "target:oska", "react:osk6:oska")
    assert m.champs["quill"].hex == (-3, -1) and events(m, "ignored")[0]["keyword"] == "push"
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (1, -1), "rooted": True}},
        hands=[["bra1"], []],
    )
    play(m, "card:bra1", "move:stay", "target:tavi", "post:apply")
    assert m.champs["tavi"].hex == (1, -1) and m.champs["tavi"].damage == 2


def test_root_stops_all_movement_for_the_turn_but_not_attacks() -> None:
    """Root (A15, FAQ A16.2): no movement, Dash, Swoop or Jump this turn; it can still attack."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -1), "rooted": True}, "tavi": {"seat": 1, "hex": (1, -1)}},
        hands=[["bra4"], []],
    )
    play(m, "card:bra4")
    assert m.to_move().kind == "attack_target"  # type: ignore[union-attr]  # the move step was skipped
    play(m, "target:tavi")
    assert m.champs["tavi"].damage == 2


def test_stun_discards_a_card_of_that_champion_or_reveals_the_hand() -> None:
    """Stun (A15, A18.10): discard one of that champion's cards from hand; with none, reveal the hand."""
    m = build(
        {"greta": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (1, -1)}}, hands=[["gre2"], ["tav1", "osk1"]]
    )
    play(m, "card:gre2", "move:stay", "target:tavi", "post:apply")
    assert m.discards[1] == ["tav1"]  # the only Tavi card: no choice to make
    m = build({"greta": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (1, -1)}}, hands=[["gre2"], ["osk1"]])
    play(m, "card:gre2", "move:stay", "target:tavi", "post:apply")
    assert events(m, "hand_revealed") == [{"seat": 1, "champion": "tavi", "cards": ["osk1"]}]


def test_swoop_passes_over_statues_and_enemies_along_a_row() -> None:
    """Swoop X (A15, FAQ A16.4): a straight line, passing statues and Enemies; ends on a free hex."""
    m = build({"quill": {"seat": 0, "hex": (-1, 0)}, "oska": {"seat": 1, "hex": (1, 0)}}, hands=[["qui4"], []])
    play(m, "card:qui4", "skill:use")
    assert "swoop:q2r0" in ids(m) and "swoop:q1r0" not in ids(m) and "swoop:q0r0" not in ids(m)
