"""Set-up, placement by 2d20, the deal and the turn (rulebook sections 1.1, 1.2, 1.3, 1.5)."""

from __future__ import annotations

import pytest

from referee.core.chance import ScriptedChance
from referee.core.errors import ConfigError, IllegalOptionError
from referee.games.scrumbrawl import ScrumBrawl
from tests.games.scrumbrawl.helpers import build, card, chance, events, option_ids


def test_1_1_portal_and_orb_placement_rerolls_onto_an_occupied_square() -> None:
    """1.1: 2d20 places the portal (red die = column, blue die = row); an orb rolled onto it is re-rolled."""
    game = ScrumBrawl()
    m = game.new_match(game.parse_config({}, 2), 2, ScriptedChance.of(6, 9, 6, 9, 3, 4))
    while (d := m.to_move()) is not None and d.kind == "alter_reality":
        m.apply("pass")  # 1.5.3: every seat may alter each placement roll; nobody does
    assert m.portals == {"p0": (9, 6)}
    assert list(m.orbs.items()) == [("Chaos Orb", (4, 3))], "unshuffled orb deck: Chaos Orb on top"
    assert any(e.kind == "reroll" for e in m.events())
    assert chance(m).remaining == 0


def test_1_1_three_or_more_players_use_two_portals_and_two_orbs() -> None:
    """1.1: two portals and two orbs from three players on (and in 2v2)."""
    game = ScrumBrawl()
    assert game.parse_config({}, 3)["portals"] == 2
    assert game.parse_config({"teams": True}, 4)["portals"] == 2
    assert game.parse_config({}, 2)["portals"] == 1


def test_1_5_1_summoned_creature_lands_by_2d20() -> None:
    """1.5.1: the creature's square comes from the red and blue d20."""
    m, _ = build(hands={0: ["Yeti"]}, phase="place", dice=[6, 9])
    m.apply(f"summon:{card(m, 0, 'Yeti')}")
    (yeti,) = m.creatures.values()
    assert yeti.pos == (9, 6) and yeti.owner == 0


def test_1_5_1_summon_onto_a_creature_destroys_it_without_a_skin() -> None:
    """1.5.1: the creature already on the square is destroyed; random placement awards no skin."""
    m, (skeleton,) = build([("Skeleton", 1, (9, 6))], hands={0: ["Yeti"]}, phase="place", dice=[6, 9])
    m.apply(f"summon:{card(m, 0, 'Yeti')}")
    assert skeleton not in m.creatures and skeleton in m.discard
    assert m.skins == [[], []]


def test_1_5_1_summon_onto_a_portal_destroys_the_newcomer() -> None:
    """1.5.1: a creature summoned onto a portal is destroyed and discarded."""
    m, _ = build(hands={0: ["Yeti"]}, portals={"p0": (9, 6)}, phase="place", dice=[6, 9])
    yeti = card(m, 0, "Yeti")
    m.apply(f"summon:{yeti}")
    assert yeti not in m.creatures and yeti in m.discard


def test_1_5_1_summon_onto_an_orb_makes_a_carrier() -> None:
    """1.5.1: a creature summoned onto an orb immediately becomes its carrier."""
    m, _ = build(hands={0: ["Yeti"]}, orbs={"Leather Orb": (9, 6)}, phase="place", dice=[6, 9])
    yeti = card(m, 0, "Yeti")
    m.apply(f"summon:{yeti}")
    assert m.creatures[yeti].orb == "Leather Orb" and m.carrier["Leather Orb"] == yeti


def test_1_5_1_at_most_three_creatures_per_player() -> None:
    """1.5.1: no summon option while the player controls three creatures."""
    m, _ = build(
        [("Yeti", 0, (1, 1)), ("Troll", 0, (1, 3)), ("Lich", 0, (1, 5))], hands={0: ["Skeleton"]}, phase="place"
    )
    assert not [o for o in option_ids(m) if o.startswith("summon")]


def test_1_5_1_a_new_creature_cannot_act_the_turn_it_enters() -> None:
    """1.5.1: creatures cannot move, maneuver the orb or attack the turn they enter the Arena."""
    m, (yeti, _) = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], new=[0])
    assert option_ids(m) == ["end"]
    del yeti


def test_1_2_first_turn_instant_event_is_discarded_and_replaced() -> None:
    """1.2 / 1.4.1: an Instant Event drawn in a player's first turn is discarded and another card drawn."""
    m, _ = build(deck=["Earthquake", "Yeti", "Troll", "Lich", "Skeleton", "Amazon"], phase="draw", first_turn=True)
    names = sorted(m.card_names[k] for k in m.hands[0])
    assert names == ["Lich", "Skeleton", "Troll", "Yeti"]
    assert [e.data["name"] for e in events(m, "event_discarded")] == ["Earthquake"]


def test_1_2_first_turn_redraw_until_a_creature() -> None:
    """1.2: with no creature in the first hand, the player may reveal, discard and draw four new cards."""
    m, _ = build(
        deck=["Dispel", "Fumble", "Bloodlust", "Precision", "Yeti", "Troll", "Lich", "Skeleton"],
        phase="draw",
        first_turn=True,
    )
    decision = m.to_move()
    # 1.5.2: Bloodlust may be played "as soon as drawn", so before the redraw; the player keeps it in hand.
    assert decision is not None and decision.kind == "team_window"
    m.apply("pass")
    decision = m.to_move()
    assert decision is not None and decision.kind == "redraw"
    m.apply("redraw")
    assert sorted(m.card_names[k] for k in m.hands[0]) == ["Lich", "Skeleton", "Troll", "Yeti"]


def test_1_5_4_draw_up_to_four_and_discard_down_to_three() -> None:
    """1.5.4: draw until holding four; at the end of the turn at most three cards may be kept."""
    m, _ = build(hands={0: ["Yeti"]}, deck=["Troll", "Lich", "Skeleton", "Amazon"], phase="draw")
    assert len(m.hands[0]) == 4
    m.apply("end")  # place
    m.apply("end")  # act
    m.apply("end")  # place again
    assert "done" not in option_ids(m), "four cards: one must go"
    m.apply(option_ids(m)[0])
    assert len(m.hands[0]) == 3 and option_ids(m)[0] == "done"


def test_1_5_4_turn_passes_to_the_left_after_discard() -> None:
    """1.3: after the discard the next player (clockwise) takes a turn and draws."""
    m, _ = build(deck=["Troll", "Lich", "Skeleton", "Amazon"], phase="discard")
    m.apply("done")
    assert m.active == 1 and len(m.hands[1]) == 4


def test_round_cap_ends_the_game_with_the_tie_rule() -> None:
    """Engine rule: after max_rounds rounds the game ends; ranks by chips, then blue chips, then skins."""
    m, _ = build(deck=["Troll"] * 0, config={"max_rounds": 1}, active=1, phase="discard")
    m.blue[0] = 1
    m.apply("done")
    outcome = m.outcome()
    assert outcome is not None and outcome.termination.value == "round_cap" and outcome.ranks == (1, 2)


def test_config_rejects_unknown_fields_and_bad_team_sizes() -> None:
    """Config validation names the offending field."""
    game = ScrumBrawl()
    with pytest.raises(ConfigError, match="unknown"):
        game.parse_config({"nope": 1}, 2)
    with pytest.raises(ConfigError, match="4 seats"):
        game.parse_config({"teams": True}, 3)


def test_illegal_option_is_rejected() -> None:
    """An option id that is not legal raises IllegalOptionError."""
    m, _ = build([("Yeti", 0, (5, 5))])
    with pytest.raises(IllegalOptionError):
        m.apply("move:k0:r20c20")


def test_1_5_1_a_creature_lost_in_combat_may_be_replaced_after_combat() -> None:
    """1.5.1 / 1.3: a second place phase follows the actions, so a creature lost in combat can be replaced."""
    m, (knight, toad) = build(
        [("Ambrosian Knight", 0, (5, 5)), ("Bull Toad", 1, (6, 6))], hands={0: ["Yeti"]}, dice=[7, 16, 15, 5, 3, 3]
    )
    m.apply(f"attack:{knight}:{toad}")
    m.apply("counter")
    assert knight not in m.creatures
    m.apply("end")
    decision = m.to_move()
    assert decision is not None and decision.kind == "place" and m.phase == "place_again"
    yeti = card(m, 0, "Yeti")
    m.apply(f"summon:{yeti}")
    assert m.creatures[yeti].pos == (3, 3)
