"""Every creature's ability from the Bestiary (rulebook section 2.1), one scenario each.

Creatures with no ability beyond their attributes and keywords (Boulder Golem, Cyclops, Eagle,
Fire Giant, Frost Giant, Gryphon, Harpy, Hellspawn, Skeleton, Sphinx, Yeti) are covered by the
keyword tests here and by the attribute check against the Bestiary text.
"""

from __future__ import annotations

import pytest

from referee.games.scrumbrawl.content import CONTENT
from referee.games.scrumbrawl.creatures import stat
from tests.games.scrumbrawl.helpers import build, card, chance, events, option_ids


def _strike(m):  # type: ignore[no-untyped-def]
    e = events(m, "strike")[0].data
    return e["attack_total"], e["defense_total"]


def test_bestiary_has_fifty_creatures_ten_per_colour() -> None:
    """2.1 / B2: fifty creatures, ten per token colour."""
    colours = [c.color for c in CONTENT.creatures.values()]
    assert len(colours) == 50 and all(colours.count(k) == 10 for k in set(colours))


@pytest.mark.parametrize(
    ("attacker", "defender", "dice", "totals"),
    [
        ("Acherontic Knight", "Human", [10, 10], (19, 14)),  # +4 A vs blue
        ("Ambrosian Knight", "Skeleton", [10, 10], (19, 14)),  # +4 A vs red
        ("Bull Toad", "Satyr", [10, 10], (18, 14)),  # +4 A vs green
        ("Lich", "Satyr", [10, 10], (20, 14)),  # +2 A vs green
        ("Nightmare", "Unicorn", [10, 10], (23, 17)),  # +6 A vs Unicorn, not +8; Unicorn +2 D vs red
        ("Nightmare", "Human", [10, 10], (19, 14)),  # +2 A vs other blue
        ("Unicorn", "Skeleton", [10, 10], (19, 14)),  # +2 A vs red
        ("Skeleton", "Unicorn", [10, 10], (14, 17)),  # Unicorn +2 D vs red
        ("Dragon", "Pixie", [10, 10], (16, 22)),  # Pixie +6 D vs purple
    ],
)
def test_2_1_colour_and_name_bonuses(attacker: str, defender: str, dice: list[int], totals: tuple[int, int]) -> None:
    """2.1: printed bonuses against colours or named creatures apply to attack and defense totals."""
    rng = {"Lich": (5, 7)}.get(attacker, (5, 6))
    m, (a, d) = build([(attacker, 0, (5, 5)), (defender, 1, rng)], dice=[*dice, 1, 1, 1, 1])
    m.apply(f"attack:{a}:{d}")
    assert _strike(m) == totals


@pytest.mark.parametrize(
    ("name", "reach"),
    [("Amazon", 3), ("Centaur", 4), ("Lich", 3), ("Satyr", 3), ("Tuatara", 2), ("Lightning Imp", 3), ("Dragon", 2)],
)
def test_2_1_range_attack_x(name: str, reach: int) -> None:
    """2.1 keywords: Range Attack X lets the creature attack from X squares away."""
    m, (a, near, far) = build([(name, 0, (10, 5)), ("Skeleton", 1, (10, 5 + reach)), ("Yeti", 1, (10 + reach + 1, 5))])
    ids = option_ids(m)
    assert f"attack:{a}:{near}" in ids and f"attack:{a}:{far}" not in ids


def test_2_1_aura_mage_moves_an_opponents_enchantment_after_a_combat_roll() -> None:
    """2.1 Aura Mage / B5.6: from an opponent's creature it needs a won combat roll; any non-enchanted target."""
    m, (mage, skel, yeti) = build(
        [("Aura Mage", 0, (5, 5)), ("Skeleton", 1, (9, 9)), ("Yeti", 0, (1, 1))],
        enchant={1: "Morphous Armor"},
        dice=[19, 1],
    )
    m.apply(f"magic:{mage}:{skel}:{yeti}")
    assert m.creatures[yeti].enchant is not None and m.creatures[skel].enchant is None
    assert m.creatures[mage].done


def test_2_1_aura_mage_needs_no_roll_on_a_friendly_creature() -> None:
    """2.1 Aura Mage: no combat roll when taking the enchantment from a friendly creature."""
    m, (mage, yeti, skel) = build(
        [("Aura Mage", 0, (5, 5)), ("Yeti", 0, (1, 1)), ("Skeleton", 1, (9, 9))], enchant={1: "Raging Valor"}
    )
    m.apply(f"magic:{mage}:{yeti}:{skel}")
    assert m.creatures[skel].enchant is not None and chance(m).remaining == 0


def test_2_1_basilisk_gaze_when_starting_adjacent_ends_the_turn_on_1_to_4() -> None:
    """2.1 Basilisk: an opponent's creature starting its turn adjacent rolls d8; 1-4 its turn ends."""
    m, (yeti, _) = build(
        [("Yeti", 0, (5, 5)), ("Basilisk", 1, (5, 6))], phase="turn_start", deck=["Troll"] * 4, dice=[3]
    )
    assert m.creatures[yeti].done


def test_2_1_basilisk_gaze_when_moving_next_to_it_once_per_turn() -> None:
    """2.1 Basilisk: moving through a square adjacent to it rolls d8, once per creature per turn."""
    m, (yeti, _) = build([("Yeti", 0, (5, 3)), ("Basilisk", 1, (5, 8))], dice=[5])
    m.apply(f"move:{yeti}:r5c7")
    assert not m.creatures[yeti].done and m.creatures[yeti].gazed and chance(m).remaining == 0


def test_2_1_strong_creature_ignores_the_heavy_orb() -> None:
    """2.1 Strong (Boulder Golem, Cyclops, Dragon, Fire and Frost Giant, Mordrock): Heavy Orb has no effect."""
    m, (golem, yeti) = build(
        [("Boulder Golem", 0, (5, 5)), ("Yeti", 0, (9, 9))], carry={0: "Heavy Orb", 1: "Leather Orb"}
    )
    assert stat(m, m.creatures[golem], "M") == 2 and stat(m, m.creatures[golem], "R") == 9
    m, (yeti,) = build([("Yeti", 0, (5, 5))], carry={0: "Heavy Orb"})
    assert stat(m, m.creatures[yeti], "M") == 3 and stat(m, m.creatures[yeti], "R") == 4


def test_2_1_chicken_pecks_on_1_to_4_at_the_start_of_its_turn() -> None:
    """2.1 Chicken: at the beginning of its turn, d8 1-4 ends its turn."""
    m, (chicken,) = build([("Chicken", 0, (5, 5))], phase="turn_start", deck=["Troll"] * 4, dice=[4])
    assert m.creatures[chicken].done
    m, (chicken,) = build([("Chicken", 0, (5, 5))], phase="turn_start", deck=["Troll"] * 4, dice=[5])
    assert not m.creatures[chicken].done


def test_2_1_chaos_mage_relocates_an_opponent_after_a_combat_roll() -> None:
    """2.1 Chaos Mage: a won combat roll against an opponent relocates it (2d20); a carrier's orb is rolled too."""
    m, (mage, skel) = build(
        [("Chaos Mage", 0, (5, 5)), ("Skeleton", 1, (9, 9))], carry={1: "Leather Orb"}, dice=[19, 1, 3, 4, 7, 8]
    )
    m.apply(f"magic:{mage}:{skel}")
    assert m.creatures[skel].pos == (4, 3) and m.creatures[skel].orb is None and m.orbs["Leather Orb"] == (8, 7)


@pytest.mark.parametrize(
    ("name", "d8", "attacks"), [("Demoness", 1, 2), ("Demoness", 8, 5), ("Hydra", 4, 3), ("Hydra", 8, 6)]
)
def test_2_1_variable_attacks_from_the_d8_table(name: str, d8: int, attacks: int) -> None:
    """2.1 Demoness and Hydra: the number of attacks is rolled on a d8 when attacking."""
    m, (a, d) = build([(name, 0, (5, 5)), ("Boulder Golem", 1, (5, 6))], dice=[d8, *([1, 1] * attacks)])
    m.apply(f"attack:{a}:{d}")
    n = 1
    while (decision := m.to_move()) is not None and decision.kind == "attack":
        m.apply(f"attack:{a}:{d}")
        n += 1
    assert n == attacks


def test_2_1_druid_saves_a_friendly_creature_and_places_it_adjacent() -> None:
    """2.1 Druid: a destroyed friendly creature survives on d8 1-4, placed next to the Druid (d8 placement).

    The Druid's controller rolls, so the d8 reads from seat 1's (top) edge: 2 is "up" away from it, one row
    down the board, (10, 10) -> (11, 10)."""
    m, (cent, skel, druid) = build(
        [("Centipede", 0, (5, 5)), ("Skeleton", 1, (5, 6)), ("Druid", 1, (10, 10))], dice=[14, 1, 2, 2]
    )
    m.apply(f"attack:{cent}:{skel}")
    assert skel in m.creatures and m.creatures[skel].pos == (11, 10) and m.skins[0] == []
    del druid


def test_2_1_gargoyle_may_turn_to_stone_plus_8_D_and_loses_its_next_turn() -> None:
    """2.1 Gargoyle: when attacked it may turn to stone: +8 D, no flying, no actions on its next turn."""
    m, (satyr, garg) = build([("Satyr", 0, (5, 5)), ("Gargoyle", 1, (5, 6))], dice=[10, 5])
    m.apply(f"attack:{satyr}:{garg}")
    decision = m.to_move()
    assert decision is not None and decision.kind == "stone" and decision.seat == 1
    m.apply("stone")
    assert _strike(m) == (15, 18)
    g = m.creatures[garg]
    assert g.stone_turn == m.turn


def test_2_1_aggressive_ghost_may_strike_first() -> None:
    """2.1 keywords, Aggressive: when attacked, d8 1-4 lets it attack first."""
    m, (satyr, ghost) = build([("Satyr", 0, (5, 5)), ("Ghost", 1, (5, 6))], dice=[2, 20, 1])
    m.apply(f"attack:{satyr}:{ghost}")
    assert satyr not in m.creatures and len(events(m, "strike")) == 1 and chance(m).remaining == 0


def test_2_1_human_attacks_along_a_clear_line_of_sight() -> None:
    """2.1 Human: attacks anywhere along a row, column or diagonal with nothing in between."""
    m, (human, far) = build([("Human", 0, (5, 5)), ("Yeti", 1, (5, 15))])
    assert f"attack:{human}:{far}" in option_ids(m)
    m, (human, far) = build([("Human", 0, (5, 5)), ("Yeti", 1, (5, 15))], orbs={"Leather Orb": (5, 10)})
    assert f"attack:{human}:{far}" not in option_ids(m)


def test_2_1_leprechaun_adds_a_d8_when_defending() -> None:
    """2.1 Leprechaun: add d8 to its defense roll."""
    m, (skel, lep) = build([("Skeleton", 0, (5, 5)), ("Leprechaun", 1, (5, 6))], dice=[15, 1, 8, 1, 1, 1])
    m.apply(f"attack:{skel}:{lep}")
    assert _strike(m) == (19, 17) and lep not in m.creatures


def test_2_1_lightning_imp_destroys_enchanted_and_storms_when_destroyed() -> None:
    """2.1 Lightning Imp: damage to an enchanted creature destroys it; destroyed, it conducts Lightning Storm."""
    m, (imp, skel) = build(
        [("Lightning Imp", 0, (5, 5)), ("Skeleton", 1, (5, 6))], enchant={1: "Morphous Armor"}, dice=[19, 1]
    )
    m.apply(f"attack:{imp}:{skel}")
    assert skel not in m.creatures
    m, (cent, imp, skel) = build(
        [("Centipede", 0, (5, 5)), ("Lightning Imp", 1, (5, 6)), ("Skeleton", 1, (15, 15))], dice=[19, 1, 1, 15, 15]
    )
    m.apply(f"attack:{cent}:{imp}")
    assert imp not in m.creatures and skel not in m.creatures
    assert m.skins[0] == ["Lightning Imp"], "no skin for the storm's victim"


def test_2_1_magic_stump_root_attack_hits_ground_creatures_only_and_magic_destroys_enchantments() -> None:
    """2.1 Magic Stump: Ranged Root Attack 4 vs non-flying only; Magic: d8 1-4 destroys an enchantment."""
    m, (stump, eagle, yeti) = build(
        [("The Magic Stump", 0, (5, 5)), ("Eagle", 1, (5, 7)), ("Yeti", 1, (5, 9))],
        enchant={2: "Raging Valor"},
        dice=[3],
    )
    ids = option_ids(m)
    assert f"attack:{stump}:{yeti}" in ids and f"attack:{stump}:{eagle}" not in ids
    ench = m.creatures[yeti].enchant
    m.apply(f"magic:{stump}:{ench}")
    assert m.creatures[yeti].enchant is None


def test_2_1_magic_stump_destroyed_may_cause_chaos_and_end_the_turn() -> None:
    """2.1 Magic Stump: destroyed, d8 1-4 conducts Chaos and ends the active player's turn."""
    m, (cent, stump) = build(
        [("Centipede", 0, (5, 5)), ("The Magic Stump", 1, (5, 6))],
        portals={"p0": (1, 1)},
        dice=[19, 1, 2, 10, 10, 3, 3],
    )
    m.apply(f"attack:{cent}:{stump}")
    assert m.portals == {"p0": (10, 10)} and m.creatures[cent].pos == (3, 3)
    assert m.phase == "discard"


def test_2_1_mordrock_takes_another_turn_after_destroying_an_opponent() -> None:
    """2.1 Mordrock: destroying an opponent's creature on its controller's turn gives it another turn."""
    m, (mord, skel) = build([("Mordrock", 0, (5, 5)), ("Skeleton", 1, (5, 6))], dice=[19, 1])
    m.apply(f"attack:{mord}:{skel}")
    c = m.creatures[mord]
    assert not c.done and not c.attacked and c.steps == 0


def test_2_1_necromancer_takes_control_of_a_destroyed_creature() -> None:
    """2.1 Necromancer: any creature destroyed while you control fewer than three: d8 1-4 takes it (2d20)."""
    m, (cent, skel, necro) = build(
        [("Centipede", 0, (5, 5)), ("Skeleton", 1, (5, 6)), ("Necromancer", 0, (9, 9))], dice=[19, 1, 3, 7, 8]
    )
    m.apply(f"attack:{cent}:{skel}")
    assert m.creatures[skel].owner == 0 and m.creatures[skel].pos == (8, 7)
    assert m.skins[0] == [], "the raised creature's token leaves the skin pile"
    del necro


def test_2_1_nork_explodes_damaging_neighbours_and_destroying_adjacent_portals() -> None:
    """2.1 The Nork: destroyed, it deals 1 damage to adjacent creatures and destroys adjacent orbs and portals."""
    m, (cent, nork) = build(
        [("Centipede", 0, (5, 5)), ("The Nork", 1, (5, 6))], portals={"p0": (6, 7)}, dice=[19, 1, 12, 12]
    )
    m.apply(f"attack:{cent}:{nork}")
    assert cent not in m.creatures and m.portals == {"p0": (12, 12)}


def test_2_1_phoenix_may_return_to_play() -> None:
    """2.1 Phoenix: destroyed, d8 1-4 returns it at a random location (2d20)."""
    m, (satyr, phoenix) = build([("Satyr", 0, (5, 5)), ("Phoenix", 1, (5, 6))], dice=[19, 1, 2, 7, 7])
    m.apply(f"attack:{satyr}:{phoenix}")
    assert m.creatures[phoenix].pos == (7, 7) and m.creatures[phoenix].owner == 1


def test_2_1_weak_creature_cannot_enter_the_heavy_orb_and_dies_sharing_it() -> None:
    """2.1 Weak (Chicken, Leprechaun, Pixie): cannot enter the Heavy Orb's square; sharing it destroys it."""
    m, (pixie,) = build([("Pixie", 0, (5, 5))], orbs={"Heavy Orb": (5, 6)})
    assert f"move:{pixie}:r5c6" not in option_ids(m)
    m, _ = build(hands={0: ["Chicken"]}, orbs={"Heavy Orb": (9, 6)}, phase="place", dice=[6, 9])
    chicken = card(m, 0, "Chicken")
    m.apply(f"summon:{chicken}")
    assert chicken not in m.creatures


def test_2_1_revenant_enters_when_a_creature_is_killed_in_combat_and_scores_a_red_chip() -> None:
    """2.1 Revenant: played only when your creature is killed in combat; its kill gives a red chip and it leaves."""
    m, (cent, skel) = build(
        [("Centipede", 0, (5, 5)), ("Skeleton", 1, (5, 6))], hands={1: ["Revenant"]}, dice=[19, 1, 5, 6]
    )
    m.apply(f"attack:{cent}:{skel}")
    decision = m.to_move()
    assert decision is not None and decision.kind == "revenant" and decision.seat == 1
    rev = card(m, 1, "Revenant")
    m.apply(f"revenant:{rev}")
    assert m.creatures[rev].pos == (6, 5) and m.creatures[rev].owner == 1
    m2, (rev2, skel2) = build([("Revenant", 0, (5, 5)), ("Skeleton", 1, (5, 6))], dice=[19, 1])
    m2.apply(f"attack:{rev2}:{skel2}")
    assert m2.red[0] == 1 and rev2 not in m2.creatures and m2.skins[0] == []


def test_2_1_noncarrier_sends_the_orb_away() -> None:
    """2.1 Noncarrier (Revenant, Magic Stump): sharing a square with an orb sends it on a loose-orb roll."""
    m, (rev,) = build([("Revenant", 0, (5, 5))], orbs={"Leather Orb": (5, 7)}, dice=[5])
    m.apply(f"move:{rev}:r5c7")
    assert m.creatures[rev].orb is None and m.orbs["Leather Orb"] == (5, 8)


def test_2_1_transmuter_exchanges_a_creature_with_a_card_in_hand() -> None:
    """2.1 Transmuter: exchanges a creature in play with a creature card in hand (friendly: no roll)."""
    m, (trans, yeti) = build([("Transmuter", 0, (5, 5)), ("Yeti", 0, (9, 9))], hands={0: ["Troll"]})
    troll = card(m, 0, "Troll")
    m.apply(f"magic:{trans}:{yeti}:{troll}")
    assert m.creatures[troll].pos == (9, 9) and yeti in m.hands[0] and chance(m).remaining == 0


def test_2_1_transmuter_against_an_opponent_needs_d8_1_to_4() -> None:
    """2.1 Transmuter: against an opponent's creature, d8 1-4; the new creature belongs to that opponent."""
    m, (trans, yeti) = build([("Transmuter", 0, (5, 5)), ("Yeti", 1, (9, 9))], hands={0: ["Chicken"]}, dice=[4])
    chicken = card(m, 0, "Chicken")
    m.apply(f"magic:{trans}:{yeti}:{chicken}")
    assert m.creatures[chicken].owner == 1 and yeti in m.hands[0]


def test_2_1_troll_regenerates_on_1_to_4() -> None:
    """2.1 Troll: if it would be killed in combat, d8 1-4: no damage."""
    m, (yeti, troll) = build([("Yeti", 0, (5, 5)), ("Troll", 1, (5, 6))], dice=[20, 1, 3])
    m.apply(f"attack:{yeti}:{troll}")
    assert troll in m.creatures


def test_2_1_minotaur_charge_needs_three_straight_squares() -> None:
    """2.1 Minotaur: no charge when the last three squares are not free in a straight line."""
    m, (mino, yeti, _) = build([("Minotaur", 0, (10, 3)), ("Yeti", 1, (10, 8)), ("Skeleton", 0, (10, 6))])
    assert f"charge:{mino}:{yeti}:e" not in option_ids(m)


@pytest.mark.parametrize("name", ["Centipede", "Scorpion", "Spider", "Tuatara", "Wyvern"])
def test_2_1_venom_destroys_an_enchanted_creature(name: str) -> None:
    """2.1 Venom: a successful attack destroys the creature even if it is enchanted."""
    m, (a, d) = build([(name, 0, (5, 5)), ("Yeti", 1, (5, 6))], enchant={1: "Morphous Armor"}, dice=[20, 1])
    m.apply(f"attack:{a}:{d}")
    assert d not in m.creatures


@pytest.mark.parametrize(("name", "attacks"), [("Chimera", 3), ("Boulder Golem", 2), ("Sphinx", 2), ("Yeti", 1)])
def test_2_1_number_of_attacks(name: str, attacks: int) -> None:
    """2.1: the sword icon gives the number of attacks in one turn."""
    m, (a, d) = build([(name, 0, (5, 5)), ("Boulder Golem", 1, (5, 6))], dice=[1, 1] * attacks)
    m.apply(f"attack:{a}:{d}")
    n = 1
    while (decision := m.to_move()) is not None and decision.kind == "attack":
        m.apply(f"attack:{a}:{d}")
        n += 1
    assert n == attacks


@pytest.mark.parametrize(
    "name", ["Dragon", "Eagle", "Gargoyle", "Ghost", "Gryphon", "Harpy", "Phoenix", "Pixie", "Sphinx", "Wyvern"]
)
def test_2_1_flyers_cannot_be_attacked_by_an_adjacent_non_ranged_creature(name: str) -> None:
    """2.1 keywords, Flying: cannot be attacked by a non-flying creature without a ranged attack."""
    m, (yeti, flyer) = build([("Yeti", 0, (5, 5)), (name, 1, (5, 6))])
    assert f"attack:{yeti}:{flyer}" not in option_ids(m)


def test_2_1_aggressive_mummy_strikes_first_with_both_attacks() -> None:
    """2.1 Mummy (Aggressive): attacked, d8 1-4 lets it attack first, with its two attacks, and not again after."""
    m, (yeti, mummy) = build([("Yeti", 0, (5, 5)), ("Mummy", 1, (5, 6))], dice=[1, 2, 3, 4, 5, 5, 15])
    m.apply(f"attack:{yeti}:{mummy}")
    m.apply(f"attack:{mummy}:{yeti}")
    strikes = [(e.data["creature"], e.data["result"]) for e in events(m, "strike")]
    assert strikes == [(mummy, "miss"), (mummy, "miss"), (yeti, "miss")]
    decision = m.to_move()
    assert decision is not None and decision.kind == "act", "no second counterattack"
    assert chance(m).remaining == 0


def test_2_1_aggressive_attacker_may_strike_first_against_a_counterattack() -> None:
    """2.1 Aggressive: a counterattack is an attack too; the Mummy's d8 1-4 lets it strike the counter-attacker
    first (a first strike is not itself answered by another first strike)."""
    m, (mummy, skel) = build([("Mummy", 0, (5, 5)), ("Skeleton", 1, (5, 6))], dice=[1, 5, 1, 5, 2, 20, 1])
    m.apply(f"attack:{mummy}:{skel}")
    m.apply(f"attack:{mummy}:{skel}")
    m.apply("counter")
    strikes = [(e.data["creature"], e.data["result"]) for e in events(m, "strike")]
    assert strikes == [(mummy, "miss"), (mummy, "miss"), (mummy, "hit")]
    assert skel not in m.creatures and chance(m).remaining == 0
