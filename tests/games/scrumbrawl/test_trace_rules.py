"""Scenario tests for the rules the trace (docs/rules/scrumbrawl-trace.md) found without a test.

One rule each, named after its section of seed 003 and quoting it; every case sets up the exact
position with :func:`tests.games.scrumbrawl.helpers.build` and scripts the exact dice, and asserts
that every scripted die was used. The printed cards (Bestiary, enchantments, orbs) are checked
against a transcription of the seed's card lines kept here, so a data edit that departs from the
print fails by name.
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.core.chance import SeededChance
from referee.core.errors import ConfigError
from referee.games.scrumbrawl import ScrumBrawl
from referee.games.scrumbrawl.content import CONTENT
from referee.games.scrumbrawl.creatures import stat
from referee.games.scrumbrawl.engine import SBMatch
from tests.games.scrumbrawl.helpers import build, card, chance, events, option_ids

GAME = ScrumBrawl()

# -- the printed cards ----------------------------------------------------------------------------

# 2.1 Bestiary, as printed: "Token: Red · T: 5 · C: 4 · R: 4 · M: 3 · Attacks: 1 · A: 5 · D: 5".
# name: (colour, T, C, R, M, attacks (0 = variable), A, D, keywords, Range Attack X,
#        printed bonuses as (stat, value, against colours, against names))
Bonus = tuple[str, int, tuple[str, ...], tuple[str, ...]]
BESTIARY: dict[str, tuple[Any, ...]] = {
    "Acherontic Knight": ("red", 5, 4, 4, 3, 1, 5, 5, set(), 0, [("A", 4, ("blue",), ())]),
    "Amazon": ("blue", 7, 3, 5, 3, 1, 5, 4, set(), 3, []),
    "Ambrosian Knight": ("blue", 5, 4, 5, 4, 1, 5, 4, set(), 0, [("A", 4, ("red",), ())]),
    "Aura Mage": ("blue", 6, 6, 4, 3, 1, 4, 4, set(), 0, []),
    "Basilisk": ("orange", 2, 3, 4, 3, 1, 4, 5, set(), 0, []),
    "Boulder Golem": ("purple", 3, 3, 9, 2, 2, 9, 9, {"strong"}, 0, []),
    "Bull Toad": ("orange", 2, 4, 4, 4, 1, 4, 5, set(), 0, [("A", 4, ("green",), ())]),
    "Centaur": ("green", 5, 5, 6, 5, 2, 4, 5, set(), 4, []),
    "Centipede": ("green", 1, 2, 4, 4, 1, 5, 6, {"venom"}, 0, []),
    "Chaos Mage": ("blue", 3, 3, 4, 3, 1, 4, 6, set(), 0, []),
    "Chicken": ("green", 1, 1, 2, 6, 1, 1, 3, {"weak"}, 0, []),
    "Chimera": ("purple", 3, 3, 5, 4, 3, 6, 6, {"adept"}, 0, []),
    "Cyclops": ("orange", 4, 4, 7, 3, 1, 7, 5, {"strong"}, 0, []),
    "Demoness": ("red", 4, 4, 7, 4, 0, 5, 6, {"adept"}, 0, []),
    "Dragon": ("purple", 5, 5, 8, 5, 2, 6, 8, {"flying", "strong", "adept"}, 2, []),
    "Druid": ("green", 8, 5, 4, 4, 1, 3, 6, set(), 0, []),
    "Eagle": ("green", 2, 4, 4, 6, 2, 4, 4, {"flying"}, 0, []),
    "Fire Giant": ("purple", 7, 4, 10, 4, 1, 8, 8, {"strong"}, 0, []),
    "Frost Giant": ("purple", 4, 7, 10, 4, 1, 8, 8, {"strong"}, 0, []),
    "Gargoyle": ("orange", 4, 6, 4, 5, 2, 4, 5, {"flying"}, 0, []),
    "Ghost": ("red", 2, 2, 3, 4, 1, 5, 9, {"flying", "aggressive"}, 0, []),
    "Gryphon": ("blue", 3, 5, 4, 6, 2, 5, 5, {"flying"}, 0, []),
    "Harpy": ("orange", 6, 6, 5, 5, 1, 4, 4, {"flying"}, 0, []),
    "Hellspawn": ("red", 5, 5, 8, 4, 2, 7, 7, set(), 0, []),
    "Human": ("blue", 7, 7, 5, 3, 1, 4, 4, set(), 0, []),
    "Hydra": ("purple", 3, 3, 5, 4, 0, 5, 8, {"adept"}, 0, []),
    "Leprechaun": ("blue", 2, 2, 2, 4, 1, 3, 8, {"weak"}, 0, []),
    "Lich": ("red", 7, 5, 5, 3, 1, 8, 4, set(), 3, [("A", 2, ("blue", "green"), ())]),
    "Lightning Imp": ("orange", 2, 2, 2, 6, 1, 7, 5, {"resistant"}, 3, []),
    "The Magic Stump": ("green", None, None, None, None, 1, 8, 5, {"resistant", "noncarrier"}, 4, []),
    "Minotaur": ("purple", 5, 5, 6, 4, 1, 6, 6, set(), 0, []),
    "Mordrock": ("purple", 4, 4, 8, 3, 1, 7, 5, {"strong"}, 0, []),
    "Mummy": ("red", 3, 3, 5, 3, 2, 5, 4, {"aggressive"}, 0, []),
    "Necromancer": ("red", 5, 3, 5, 3, 1, 4, 4, set(), 0, []),
    "Nightmare": ("red", 2, 2, 5, 5, 1, 7, 5, set(), 0, [("A", 6, (), ("Unicorn",)), ("A", 2, ("blue",), ())]),
    "The Nork": ("orange", 2, 2, 3, 4, 1, 5, 1, set(), 0, []),
    "Phoenix": ("orange", 3, 3, 3, 6, 2, 5, 5, {"flying"}, 0, []),
    "Pixie": ("green", 2, 1, 2, 5, 1, 3, 6, {"flying", "weak"}, 0, [("D", 6, ("orange", "purple"), ())]),
    "Revenant": ("red", None, None, None, 5, 2, 8, 8, {"resistant", "noncarrier"}, 0, []),
    "Satyr": ("green", 7, 3, 5, 4, 1, 5, 4, set(), 3, []),
    "Scorpion": ("green", 2, 2, 4, 3, 2, 6, 5, {"venom"}, 0, []),
    "Skeleton": ("red", 2, 2, 3, 3, 1, 4, 4, set(), 0, []),
    "Sphinx": ("blue", 4, 4, 7, 5, 2, 7, 7, {"flying"}, 0, []),
    "Spider": ("green", 2, 4, 4, 3, 1, 6, 5, {"venom"}, 0, []),
    "Transmuter": ("blue", 4, 4, 4, 3, 1, 4, 4, set(), 0, []),
    "Troll": ("orange", 4, 4, 7, 3, 1, 5, 7, set(), 0, []),
    "Tuatara": ("orange", 4, 5, 5, 3, 1, 5, 5, {"venom", "adept"}, 2, []),
    "Unicorn": ("blue", 2, 2, 4, 5, 1, 7, 5, set(), 0, [("A", 2, ("red",), ()), ("D", 2, ("red",), ())]),
    "Wyvern": ("purple", 3, 3, 5, 6, 1, 5, 5, {"flying", "venom"}, 0, []),
    "Yeti": ("purple", 7, 7, 7, 4, 1, 5, 7, set(), 0, []),
}


def _card_id(name: str) -> str:
    return name.replace(" ", "-")


@pytest.mark.parametrize("name", sorted(BESTIARY), ids=[_card_id(n) for n in sorted(BESTIARY)])
def test_2_1_printed_card(name: str) -> None:
    """2.1 Bestiary: the creature's colour, T, C, R, M, attacks, A, D, keywords, Range Attack and printed
    bonuses are those printed on its card (each entry above is the card's printed line)."""
    colour, t, c, r, mv, attacks, a, d, keywords, reach, bonuses = BESTIARY[name]
    s = CONTENT.creatures[name]
    assert (s.color, s.T, s.C, s.R, s.M, s.attacks, s.A, s.D) == (colour, t, c, r, mv, attacks, a, d)
    assert set(s.keywords) == keywords
    assert s.range_attack == reach
    assert sorted((b.stat, b.value, b.vs_colors, b.vs_names) for b in s.bonuses) == sorted(bonuses)


def test_2_1_the_bestiary_is_the_whole_print() -> None:
    """2.1 / 1.9: "50 creature mini-cards": the data holds exactly the fifty printed creatures, ten per colour."""
    assert set(CONTENT.creatures) == set(BESTIARY)
    colours = [v[0] for v in BESTIARY.values()]
    assert all(colours.count(x) == 10 for x in set(colours)) and len(set(colours)) == 5


def test_2_1_variable_attack_tables_are_as_printed() -> None:
    """2.1 Demoness: "1-3: 2 attacks; 4-5: 3 attacks; 6-7: 4 attacks; 8: 5 attacks"; Hydra: "1-4: 3 attacks;
    5-6: 4 attacks; 7: 5 attacks; 8: 6 attacks"."""
    assert CONTENT.creatures["Demoness"].variable_attacks == ((1, 3, 2), (4, 5, 3), (6, 7, 4), (8, 8, 5))
    assert CONTENT.creatures["Hydra"].variable_attacks == ((1, 4, 3), (5, 6, 4), (7, 7, 5), (8, 8, 6))


# 2.2: name -> (scope, attribute changes, abilities granted).
ENCHANTMENTS: dict[str, tuple[str, dict[str, int], set[str]]] = {
    "Angel Wings": ("creature", {"M": 2}, {"flying"}),
    "Aura of Blessing": ("creature", {"A": 2, "D": 2}, set()),
    "Aura of Cursing": ("creature", {}, {"cursing"}),
    "Aura of Deflection": ("creature", {}, {"deflection"}),
    "Bloodlust": ("team", {"A": 2}, set()),
    "Favor of the Gods": ("team", {"D": 2}, set()),
    "Frenzied Attack": ("creature", {}, {"frenzy"}),
    "Morphous Armor": ("creature", {"D": 4}, set()),
    "Orb Harness": ("creature", {}, {"adept"}),
    "Precision": ("team", {"T": 2}, set()),
    "Raging Valor": ("creature", {"A": 3}, set()),
}


@pytest.mark.parametrize("name", sorted(ENCHANTMENTS), ids=[_card_id(n) for n in sorted(ENCHANTMENTS)])
def test_2_2_printed_enchantment(name: str) -> None:
    """2.2: each enchantment's kind (Creature or Team Enchantment) and what it grants are those printed,
    e.g. "Morphous Armor (Creature Enchantment): Creature gains +4 D."."""
    scope, mods, grants = ENCHANTMENTS[name]
    e = CONTENT.enchantments[name]
    assert e.scope == scope and e.mods == mods
    assert grants <= set(e.grants), f"{name} grants {sorted(e.grants)}"


@pytest.mark.parametrize(
    ("name", "stat_name", "delta"),
    [("Aura of Blessing", "A", 2), ("Aura of Blessing", "D", 2), ("Morphous Armor", "D", 4), ("Raging Valor", "A", 3)],
)
def test_2_2_creature_enchantment_changes_the_attribute(name: str, stat_name: str, delta: int) -> None:
    """2.2: "Aura of Blessing ... +2 A and +2 D", "Morphous Armor ... +4 D", "Raging Valor ... +3 A": the
    enchanted creature's attribute rises by exactly that much."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], enchant={0: name})
    base = getattr(CONTENT.creatures["Yeti"], stat_name)
    assert stat(m, m.creatures[yeti], stat_name) == base + delta


@pytest.mark.parametrize(("name", "stat_name"), [("Bloodlust", "A"), ("Favor of the Gods", "D"), ("Precision", "T")])
def test_2_2_team_enchantment_gives_plus_2(name: str, stat_name: str) -> None:
    """2.2: "Bloodlust ... +2 A", "Favor of the Gods ... +2 D", "Precision ... +2 T" for all friendly
    creatures, and not for the opponent's."""
    m, (yeti, troll) = build([("Yeti", 0, (5, 5)), ("Troll", 1, (9, 9))], team={0: [name]})
    assert stat(m, m.creatures[yeti], stat_name) == getattr(CONTENT.creatures["Yeti"], stat_name) + 2
    assert stat(m, m.creatures[troll], stat_name) == getattr(CONTENT.creatures["Troll"], stat_name)


def test_1_4_3_team_enchantments_are_cumulative_with_other_enchantments() -> None:
    """1.4.3: "A player can control any number of team enchantments and the effects are cumulative with
    other enchantments": Bloodlust twice and Raging Valor give +2 +2 +3 A."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], team={0: ["Bloodlust", "Bloodlust"]}, enchant={0: "Raging Valor"})
    assert stat(m, m.creatures[yeti], "A") == 5 + 2 + 2 + 3


def test_2_4_the_eight_orbs_are_printed_ones() -> None:
    """2.4 / 1.9: "8 orb tokens": Chaos, Crystal, Heavy, Killer, Leather, Shield, Slippery and Unstable Orb;
    "Heavy Orb: Carrier has -1 M, -3 R", "Shield Orb: Carrier receives +4 D", "Leather Orb: ... unaffected"."""
    names = {"Chaos", "Crystal", "Heavy", "Killer", "Leather", "Shield", "Slippery", "Unstable"}
    assert set(CONTENT.orbs) == {f"{n} Orb" for n in names}
    assert CONTENT.orbs["Heavy Orb"].mods == {"M": -1, "R": -3}
    assert CONTENT.orbs["Shield Orb"].mods == {"D": 4}
    assert CONTENT.orbs["Leather Orb"].mods == {}


def test_1_4_the_deck_holds_the_four_card_types() -> None:
    """1.4 / 1.9: "There are four types of cards in the deck: 1) Events, 2) Creatures, 3) Enchantments, and
    4) Alter Reality"; "100 playing cards"; "Alter Reality cards come in three denominations: 2, 3 and 5"."""
    deck = CONTENT.deck_list()
    assert len(deck) == 100
    assert {CONTENT.card_type(n) for n in deck} == {"event", "creature", "enchantment", "alter_reality"}
    assert sorted(set(CONTENT.alter_reality.values())) == [2, 3, 5]


# -- set-up and the turn --------------------------------------------------------------------------


def _pass_alter_windows(m: SBMatch) -> SBMatch:
    """Answers "pass" to the Alter Reality windows that follow each set-up roll (1.5.3: "placement of orbs,
    portals and creatures" rolls may be altered, so every seat is asked after each)."""
    while (d := m.to_move()) is not None and d.kind == "alter_reality":
        m.apply("pass")
    return m


def test_1_1_portal_and_orb_are_placed_before_any_card_is_dealt() -> None:
    """1.1: "Before any cards are dealt, portals and orbs are placed into the Arena (2d20 placement). For a
    two player game, you can play with a single portal and single orb."."""
    m = _pass_alter_windows(GAME.new_match(GAME.parse_config({}, 2), 2, SeededChance(3)))
    kinds = [e.kind for e in m.events()]
    first_draw = kinds.index("draw")
    assert "portal_placed" in kinds[:first_draw] and "orb_placed" in kinds[:first_draw], kinds[:first_draw]
    assert len(m.portals) == 1 and len(m.orbs) == 1


def test_1_2_the_starting_player_draws_four_and_plays_first() -> None:
    """1.2: "The starting player draws 4 cards." The referee's seat 0 starts (its seat order is the roll)."""
    m = _pass_alter_windows(GAME.new_match(GAME.parse_config({}, 2), 2, SeededChance(11)))
    decision = m.to_move()
    assert decision is not None and decision.seat == 0 and m.active == 0
    assert len(m.hands[0]) == 4 and m.hands[1] == []


def test_1_2_redraw_only_during_the_first_turn() -> None:
    """1.2: "He or she may continue to discard all cards and draw four new cards until he or she draws at
    least one creature card. Each player may do this only during his or her first turn of the game."."""
    no_creature = ["Fumble", "Dispel", "Raging Valor", "Morphous Armor", "Yeti"]
    m, _ = build(deck=no_creature, phase="draw", first_turn=True)
    assert (d := m.to_move()) is not None and d.kind == "redraw"
    m, _ = build(deck=no_creature, phase="draw", first_turn=False)
    assert (d := m.to_move()) is not None and d.kind == "place"


def test_1_3_order_of_turn() -> None:
    """1.3: "Draw Card(s) / Place Creatures and/or Enchantments / Movement, Combat, Orb Maneuvering, Unique
    Creature Abilities / Place Creatures and/or Enchantments / Discard"."""
    m, _ = build([("Yeti", 0, (5, 5))], deck=["Troll", "Lich", "Skeleton", "Amazon", "Troll"], phase="turn_start")
    drawn_before_placing = len(events(m, "drew"))
    seen = []
    while (d := m.to_move()) is not None and d.seat == 0:
        seen.append((d.kind, m.phase))
        m.apply("end" if d.kind in ("place", "act") else option_ids(m)[0])  # holding 4: discard one, then done
    phases = [("place", "place"), ("act", "act"), ("place", "place_again"), ("discard", "discard")]
    assert seen == [*phases, ("discard", "discard")]
    assert drawn_before_placing == 4, "the draw came first: four cards before the first place phase"


def test_1_4_1_instant_event_is_never_held() -> None:
    """1.4.1: "Instant Events are played face up as soon as they are drawn ... Instant Event cards cannot be
    held in your hand." Earthquake is drawn, resolved and discarded; the draw then fills the hand."""
    m, (eagle,) = build(
        [("Eagle", 1, (1, 1))], deck=["Earthquake", "Troll", "Lich", "Skeleton", "Amazon"], phase="draw"
    )
    names = [m.card_names[k] for k in m.hands[0]]
    assert "Earthquake" not in names and len(names) == 4
    assert any(m.card_names[k] == "Earthquake" for k in m.discard) and eagle in m.creatures
    assert chance(m).remaining == 0, "a flyer rolls no Earthquake d8"


def test_1_4_1_destroyed_portal_is_rolled_in_again_and_destroys_a_creature_it_lands_on() -> None:
    """1.4.1: "When a portal is destroyed, roll for the new Arena position of the portal token. If a portal
    enters the Arena on a square occupied by a creature, that creature is destroyed." The goal re-rolls the
    portal onto the Troll: destroyed, and no skin (1.6.3 a: "destroyed by the random placement of ... portal")."""
    m, (yeti, troll) = build(
        [("Yeti", 0, (5, 5)), ("Troll", 1, (1, 1))],
        carry={0: "Leather Orb"},
        portals={"p0": (5, 7)},
        dice=[1, 1, 20, 20],
    )
    m.apply(f"move:{yeti}:r5c7")
    assert m.portals == {"p0": (1, 1)} and troll not in m.creatures
    assert m.skins == [[], []] and chance(m).remaining == 0


def test_1_4_1_orb_entering_on_a_creature_makes_it_the_carrier() -> None:
    """1.4.1: "If an orb enters the Arena on a square occupied by a creature, that creature becomes a
    carrier." After the goal the new orb (Chaos Orb, top of the orb deck) is rolled onto the Troll."""
    m, (yeti, troll) = build(
        [("Yeti", 0, (5, 5)), ("Troll", 1, (20, 20))],
        carry={0: "Leather Orb"},
        portals={"p0": (5, 7)},
        dice=[1, 1, 20, 20, 7, 7],
    )
    m.apply(f"move:{yeti}:r5c7")
    orb = m.creatures[troll].orb
    assert orb is not None and m.carrier[orb] == troll
    assert not [e for e in m.events() if e.kind == "goal"][1:], "one goal only"


def test_1_5_1_and_1_5_2_no_summoning_or_enchanting_in_the_combat_phase() -> None:
    """1.5.1: "A player may only put creatures into play during his or her turn, but not during the combat
    phase." 1.5.2: "A player may only put an enchantment into play during his or her own turn, but not during
    the combat phase." The act phase offers neither; the place phase after it does."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], hands={0: ["Troll", "Raging Valor"]})
    assert not [o for o in option_ids(m) if o.startswith(("summon", "enchant"))]
    m.apply("end")
    ids = option_ids(m)
    assert f"summon:{card(m, 0, 'Troll')}" in ids and f"enchant:{card(m, 0, 'Raging Valor')}:{yeti}" in ids


def test_1_5_4_discard_as_many_as_wished() -> None:
    """1.5.4: "At the end of a player's turn, he or she may discard as many cards from his or her hand as he or
    she wishes." With two cards, both may go (done is offered at once, and each card may be discarded)."""
    m, _ = build(hands={0: ["Troll", "Lich"]}, phase="discard")
    assert "done" in option_ids(m)
    m.apply(f"discard:{card(m, 0, 'Troll')}")
    m.apply(f"discard:{card(m, 0, 'Lich')}")
    assert m.hands[0] == []


def test_deck_end_reshuffles_the_discard_pile() -> None:
    """Engine decision (the rules are silent): when the deck is empty, the discard pile is shuffled into a new
    deck and the draw goes on."""
    m, _ = build(active=1, phase="discard", deck=[])
    m.discard = [m.new_card_id(n) for n in ["Troll", "Lich", "Skeleton", "Amazon"]]
    m.apply("done")
    assert m.active == 0 and len(m.hands[0]) == 4 and events(m, "reshuffle")


# -- creature actions -----------------------------------------------------------------------------


def test_1_6_2_a_carrier_carries_one_orb_at_a_time() -> None:
    """1.6.2: "A creature may only carry one orb at a time." A carrier may not enter a loose orb's square."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], carry={0: "Leather Orb"}, orbs={"Shield Orb": (5, 7)})
    assert f"move:{yeti}:r5c7" not in option_ids(m) and f"move:{yeti}:r5c8" in option_ids(m)


def test_1_6_2_a_throw_only_to_a_receiver_within_range() -> None:
    """1.6.2 a: "To attempt a throw to a teammate, a creature must be within its throwing range (R) of the
    receiving creature." Yeti (R 7): a receiver 7 squares away may be thrown to, one 8 away may not."""
    m, (yeti, near, far) = build(
        [("Yeti", 0, (10, 1)), ("Troll", 0, (10, 8)), ("Lich", 0, (3, 9))], carry={0: "Leather Orb"}, new=[1, 2]
    )
    ids = option_ids(m)
    assert f"throw:{yeti}:{near}" in ids and f"throw:{yeti}:{far}" not in ids


def test_1_6_2_a_thrower_may_move_its_whole_movement_then_throw() -> None:
    """1.6.2 a: "A throwing creature may move its entire movement (M) before attempting the throw." The Yeti
    (M 4) walks four squares and still throws."""
    m, (yeti, troll) = build([("Yeti", 0, (10, 1)), ("Troll", 0, (10, 12))], carry={0: "Leather Orb"}, new=[1])
    assert f"throw:{yeti}:{troll}" not in option_ids(m)
    m.apply(f"move:{yeti}:r10c5")
    assert f"throw:{yeti}:{troll}" in option_ids(m)


def test_1_6_2_loose_orb_onto_a_creature_gives_it_possession() -> None:
    """1.6.2: "If the loose orb would move to a square occupied by a creature, that creature gains possession
    of the orb." A dropped catch at r5c9 with d8 5 (right, seen from seat 0) lands on the Troll at r5c10."""
    m, (yeti, skel, troll) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 0, (5, 9)), ("Troll", 1, (5, 10))], carry={0: "Leather Orb"}, dice=[20, 5]
    )
    m.apply(f"throw:{yeti}:{skel}")
    assert m.creatures[troll].orb == "Leather Orb" and m.carrier["Leather Orb"] == troll
    assert chance(m).remaining == 0


def test_1_6_2_b_handoff_after_the_carrier_used_all_its_movement() -> None:
    """1.6.2 b: "If you move a creature adjacent to an orb carrier even after the orb carrier has exhausted his
    movement points, a handoff may still be performed."."""
    m, (skel, yeti) = build([("Skeleton", 0, (10, 1)), ("Yeti", 0, (10, 8))], carry={0: "Leather Orb"})
    m.apply(f"move:{skel}:r10c4")  # M 3: all of it
    assert f"handoff:{skel}:{yeti}" not in option_ids(m)
    m.apply(f"move:{yeti}:r10c5")
    assert f"handoff:{skel}:{yeti}" in option_ids(m)


def test_1_6_2_c_the_orb_cannot_be_handed_off_to_a_portal() -> None:
    """1.6.2 c: "The orb cannot be handed off to a portal." Next to a portal, the carrier has no handoff."""
    m, (yeti, troll) = build(
        [("Yeti", 0, (5, 5)), ("Troll", 0, (4, 5))], carry={0: "Leather Orb"}, portals={"p0": (5, 6)}
    )
    assert [o for o in option_ids(m) if o.startswith("handoff")] == [f"handoff:{yeti}:{troll}"]


def test_1_6_2_d_the_scorers_turn_ends_and_the_others_may_still_act() -> None:
    """1.6.2 d: "The scoring creature's turn ends but any other creatures that have not yet taken their turns
    may now do so."."""
    m, (yeti, troll) = build(
        [("Yeti", 0, (5, 5)), ("Troll", 0, (15, 15))],
        carry={0: "Leather Orb"},
        portals={"p0": (5, 7)},
        dice=[1, 1, 20, 20],
    )
    m.apply(f"move:{yeti}:r5c7")
    ids = option_ids(m)
    assert not [o for o in ids if f":{yeti}:" in o or o.endswith(yeti)] and [
        o for o in ids if o.startswith(f"move:{troll}")
    ]


def test_1_6_3_declaring_an_attack_exhausts_movement() -> None:
    """1.6.3: "a creature can move adjacent to an enemy creature and declare an attack. This declaration
    exhausts any of the attacking creature's remaining movement." The Yeti attacks without moving and misses."""
    m, (yeti, troll) = build([("Yeti", 0, (5, 5)), ("Troll", 1, (5, 6))], dice=[2, 19])
    m.apply(f"attack:{yeti}:{troll}")
    if (d := m.to_move()) is not None and d.kind == "counter":
        m.apply("pass")
    assert not [o for o in option_ids(m) if o.startswith(f"move:{yeti}")]
    assert chance(m).remaining == 0


def test_1_6_3_c_a_ranged_attack_from_an_adjacent_square_may_be_countered() -> None:
    """1.6.3 c: "Ranged attacks can be declared even if the attacker is adjacent to the defender. In this
    situation, a defender may counterattack, even if it does not have a ranged attack." Amazon (Range Attack 3)
    misses the adjacent Skeleton, which then counters."""
    m, (amazon, skel) = build([("Amazon", 0, (5, 5)), ("Skeleton", 1, (5, 6))], dice=[2, 19, 15, 1])
    m.apply(f"attack:{amazon}:{skel}")
    d = m.to_move()
    assert d is not None and d.kind == "counter" and d.seat == 1
    m.apply("counter")
    assert amazon not in m.creatures and chance(m).remaining == 0


def test_1_6_3_a_a_skin_returns_to_play_when_its_creature_is_summoned() -> None:
    """1.6.3 a: "In the rare event that a player would play a creature whose token card is in a player's skin
    pile, that token is removed from the skins pile and becomes the controlling player's creature token."."""
    m, _ = build(hands={0: ["Troll"]}, phase="place", dice=[6, 9])
    m.skins[1] = ["Troll", "Lich"]
    m.apply(f"summon:{card(m, 0, 'Troll')}")
    assert m.skins[1] == ["Lich"] and any(c.name == "Troll" for c in m.creatures.values())


def test_1_6_3_a_no_skin_for_a_creature_destroyed_by_an_event() -> None:
    """1.6.3 a: "If a creature is destroyed by the random placement of another creature, portal, or event, no
    skin is rewarded." Earthquake (d8 1) destroys the Troll: nobody gains a skin."""
    m, (troll,) = build(
        [("Troll", 1, (9, 9))], deck=["Earthquake", "Yeti", "Lich", "Skeleton", "Amazon"], phase="draw", dice=[1]
    )
    assert troll not in m.creatures and m.skins == [[], []] and chance(m).remaining == 0


def test_1_6_4_magic_ability_in_lieu_of_movement_or_combat() -> None:
    """1.6.4: "Creature may use detailed Magic Ability in lieu of movement, combat, or orb maneuvering on its
    own turn." A Chaos Mage that has moved is offered no magic; one that has not may use it."""
    m, (mage, troll) = build([("Chaos Mage", 0, (5, 5)), ("Troll", 0, (9, 9))])
    assert [o for o in option_ids(m) if o.startswith(f"magic:{mage}")]
    m.apply(f"move:{mage}:r5c6")
    assert not [o for o in option_ids(m) if o.startswith(f"magic:{mage}")]
    del troll


def test_1_8_teams_only_your_own_creatures_act_on_your_turn() -> None:
    """1.8 Playing Teams: "movement and actions of a teammate's creatures can only be performed on that
    player's turn." On seat 0's turn, seat 2's (its teammate's) creature is offered no action."""
    m, (yeti, troll) = build([("Yeti", 0, (5, 5)), ("Troll", 2, (9, 9))], seats=4, config={"teams": True})
    ids = option_ids(m)
    assert [o for o in ids if o.startswith(f"move:{yeti}")] and not [o for o in ids if troll in o]


def test_1_5_1_a_player_controls_at_most_three_creatures_from_three_stands() -> None:
    """1: "each player takes three matching miniature card stands"; 1.5.1: "Each player can control a maximum of
    three creatures in the Arena." With three in play no summon is offered, with two it is."""
    three = [("Yeti", 0, (1, 1)), ("Troll", 0, (3, 3)), ("Lich", 0, (5, 5))]
    m, _ = build(three, hands={0: ["Skeleton"]}, phase="place")
    assert not [o for o in option_ids(m) if o.startswith("summon")]
    m, _ = build(three[:2], hands={0: ["Skeleton"]}, phase="place")
    assert [o for o in option_ids(m) if o.startswith("summon")]


def test_2_3_fumble_is_never_dispelled() -> None:
    """1.4.1 / 2.3: "Fumbles, however, cannot be Dispelled." / "Fumble cannot be Dispelled." Seat 0 plays
    Fumble on the enemy carrier while seat 1 holds Dispel: no option anywhere cancels it, the orb is fumbled."""
    m, (yeti, troll) = build(
        [("Yeti", 0, (5, 5)), ("Troll", 1, (9, 9))],
        carry={1: "Leather Orb"},
        hands={0: ["Fumble"], 1: ["Dispel"]},
        dice=[8],
    )
    fumble = card(m, 0, "Fumble")
    m.apply(f"fumble:{fumble}:{troll}")
    while (d := m.to_move()) is not None and d.kind != "act":
        assert not [o for o in option_ids(m) if fumble in o], f"{d.kind} offers to cancel the Fumble"
        m.apply(d.default_option_id)
    assert m.creatures[troll].orb is None and m.orbs["Leather Orb"] == (10, 10)
    assert chance(m).remaining == 0
    del yeti


def test_1_9_three_portal_tokens_at_most() -> None:
    """1.9: "3 portal tokens": a table may play with up to three portals, not four."""
    assert GAME.parse_config({"portals": 3}, 4)["portals"] == 3
    with pytest.raises(ConfigError):
        GAME.parse_config({"portals": 4}, 4)


# -- the Bestiary's finer print -------------------------------------------------------------------


def test_2_1_chaos_mage_friendly_target_needs_no_roll_and_keeps_its_movement() -> None:
    """2.1 Chaos Mage: "No combat roll is necessary when targeting friendly creatures" and "Creatures relocated
    in this way do not lose their unused movement." Only the 2d20 are rolled; the Yeti then still moves."""
    m, (mage, yeti) = build([("Chaos Mage", 0, (5, 5)), ("Yeti", 0, (15, 15))], dice=[3, 4])
    m.apply(f"magic:{mage}:{yeti}")
    assert m.creatures[yeti].pos == (4, 3) and chance(m).remaining == 0
    assert [o for o in option_ids(m) if o.startswith(f"move:{yeti}:")]


def test_2_1_gargoyle_cannot_fumble_when_stone() -> None:
    """2.1 Gargoyle: "Gargoyle cannot fumble when it is stone." The carrier Gargoyle may be Fumbled until the
    Amazon's ranged attack (2 + 5 against 10 + 5 + 8) makes it turn to stone; then no Fumble is offered on it."""
    m, (amazon, garg) = build(
        [("Amazon", 0, (5, 5)), ("Gargoyle", 1, (5, 8))], carry={1: "Leather Orb"}, hands={0: ["Fumble"]}, dice=[2, 10]
    )
    fumble = f"fumble:{card(m, 0, 'Fumble')}:{garg}"
    assert fumble in option_ids(m)
    m.apply(f"attack:{amazon}:{garg}")
    assert (d := m.to_move()) is not None and d.kind == "stone"
    m.apply("stone")
    assert (d := m.to_move()) is not None and d.kind == "act" and d.seat == 0
    assert fumble not in option_ids(m) and chance(m).remaining == 0


def test_2_1_phoenix_returning_on_its_controllers_turn_takes_another_turn() -> None:
    """2.1 Phoenix: "On 1-4, Phoenix returns to play at a random location (2d20) and takes another turn." Seat
    0's Phoenix misses the Troll (natural 1), stops, is killed by the counter, rolls 2 and returns at r7c7,
    where it may move again on this turn of its controller."""
    m, (phoenix, troll) = build([("Phoenix", 0, (5, 5)), ("Troll", 1, (5, 6))], dice=[1, 10, 19, 1, 2, 7, 7])
    m.apply(f"attack:{phoenix}:{troll}")
    m.apply("stop")
    assert (d := m.to_move()) is not None and d.kind == "counter"
    m.apply("counter")
    assert m.creatures[phoenix].pos == (7, 7) and chance(m).remaining == 0
    assert [o for o in option_ids(m) if o.startswith(f"move:{phoenix}:")]


def test_2_1_revenant_destroyed_before_killing_is_relocated() -> None:
    """2.1 Revenant: "If Revenant is destroyed before killing a creature, randomly relocate it." The Centipede
    hits it (19 + 5 against 1 + 8); it is rolled to r7c7 instead of leaving."""
    m, (cent, rev) = build([("Centipede", 0, (5, 5)), ("Revenant", 1, (5, 6))], dice=[19, 1, 7, 7])
    m.apply(f"attack:{cent}:{rev}")
    assert m.creatures[rev].pos == (7, 7) and m.creatures[rev].owner == 1 and chance(m).remaining == 0


def test_2_1_transmuted_creature_takes_the_turn_its_predecessor_had_not_taken() -> None:
    """2.1 Transmuter: "Transmuted creatures may take their turn provided the creature they are replacing has
    not yet taken its turn." "Perform transmutation only once per turn": the Transmuter's magic ends its turn.
    Engine decision: the replaced Yeti's Raging Valor goes to the discard pile with it leaving play."""
    m, (trans, yeti) = build(
        [("Transmuter", 0, (5, 5)), ("Yeti", 0, (9, 9))], hands={0: ["Troll"]}, enchant={1: "Raging Valor"}
    )
    valor = m.creatures[yeti].enchant
    troll = card(m, 0, "Troll")
    m.apply(f"magic:{trans}:{yeti}:{troll}")
    ids = option_ids(m)
    assert [o for o in ids if o.startswith(f"move:{troll}:")], "the Troll takes the Yeti's untaken turn"
    assert not [o for o in ids if o.startswith(f"magic:{trans}:")], "no second transmutation"
    assert m.creatures[troll].enchant is None and valor in m.discard


def test_2_3_gypsy_bazaar_instant_events_dealt_are_played() -> None:
    """2.3 Gypsy Bazaar: "Play any additional Instant Events received in this way starting with the active player
    ... and resolve before continuing the turn." An Earthquake dealt to seat 0 is played (the Yeti rolls 5 and
    survives) and held by nobody."""
    deck = ["Gypsy Bazaar", "Troll", "Earthquake", "Lich", "Skeleton", "Amazon", "Satyr", "Spider", "Scorpion"]
    m, (yeti,) = build([("Yeti", 1, (9, 9))], hands={0: ["Chicken"], 1: ["Mummy"]}, deck=deck, phase="draw", dice=[5])
    held = [m.card_names[k] for h in m.hands for k in h]
    assert "Earthquake" not in held and any(m.card_names[k] == "Earthquake" for k in m.discard)
    assert yeti in m.creatures and chance(m).remaining == 0


def test_b5_8_a_sacrificed_revenant_does_not_come_back() -> None:
    """B5.8 (FAQ): removal by Sacrifice is plain removal and does not trigger the Revenant's return (no 2d20)."""
    m, (yeti, rev) = build(
        [("Yeti", 0, (5, 5)), ("Revenant", 1, (9, 9))],
        deck=["Sacrifice", "Troll", "Troll", "Troll", "Troll"],
        phase="draw",
    )
    m.apply(f"sacrifice:{yeti}")
    m.apply(f"sacrifice:{rev}")
    assert rev not in m.creatures and chance(m).remaining == 0


def test_b11_7_an_orb_rolled_onto_a_carrier_is_rolled_again() -> None:
    """Engine decision (B11.7): a creature carries one orb, so a new orb rolled onto a carrier is rolled again.
    After the goal the Chaos Orb is rolled onto the Troll (carrying the Shield Orb) at r20c20, then to r7c7."""
    m, (yeti, troll) = build(
        [("Yeti", 0, (5, 5)), ("Troll", 1, (20, 20))],
        carry={0: "Leather Orb", 1: "Shield Orb"},
        portals={"p0": (5, 7)},
        dice=[1, 1, 20, 20, 7, 7],
    )
    m.apply(f"move:{yeti}:r5c7")
    assert m.orbs["Chaos Orb"] == (7, 7) and m.creatures[troll].orb == "Shield Orb"
    assert chance(m).remaining == 0


def test_1_6_3_c_a_ranged_creature_defaults_to_a_ranged_attack_when_adjacent() -> None:
    """1.6.3 c: "Unless otherwise clarified by the attacking player, creatures with ranged attack abilities will
    default to a ranged attack, even if adjacent to the target of their attack." The adjacent Amazon's attack is
    declared ranged; the Yeti's is melee."""
    m, (amazon, skel, yeti) = build([("Amazon", 0, (5, 5)), ("Skeleton", 1, (5, 6)), ("Yeti", 0, (6, 7))])
    modes = {
        (o.params["creature"], o.params["target"]): o.params["choice"] for o in m.legal_options() if o.kind == "attack"
    }
    assert modes == {(amazon, skel): "ranged", (yeti, skel): "melee"}
