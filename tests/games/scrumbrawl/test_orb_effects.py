"""The eight orbs (rulebook section 2.4)."""

from __future__ import annotations

from referee.games.scrumbrawl.creatures import has, stat
from tests.games.scrumbrawl.helpers import build, chance, events, option_ids


def test_2_4_chaos_orb_relocates_its_carrier_on_pick_up() -> None:
    """2.4 Chaos Orb: relocate the carrier (2d20) on pick up, catch, handoff and at the start of its turn."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], orbs={"Chaos Orb": (5, 6)}, dice=[12, 14])
    m.apply(f"move:{yeti}:r5c6")
    assert m.creatures[yeti].pos == (14, 12) and m.creatures[yeti].orb == "Chaos Orb"


def test_2_4_chaos_orb_relocates_its_carrier_at_the_start_of_its_turn() -> None:
    """2.4 Chaos Orb: at the beginning of the carrier's turn."""
    m, (yeti,) = build(
        [("Yeti", 0, (5, 5))], carry={0: "Chaos Orb"}, phase="turn_start", deck=["Troll"] * 4, dice=[3, 4]
    )
    assert m.creatures[yeti].pos == (4, 3)


def test_2_4_crystal_orb_shatters_on_a_failed_catch() -> None:
    """2.4 Crystal Orb: a failed catch shatters it; a new Crystal Orb is placed by 2d20."""
    m, (yeti, skel) = build([("Yeti", 0, (5, 5)), ("Skeleton", 0, (5, 9))], carry={0: "Crystal Orb"}, dice=[20, 17, 18])
    m.apply(f"throw:{yeti}:{skel}")
    assert m.orbs["Crystal Orb"] == (18, 17)


def test_2_4_heavy_orb_slows_and_grounds_its_carrier() -> None:
    """2.4 Heavy Orb: -1 M, -3 R and no flying for a carrier that is not Strong."""
    m, (eagle,) = build([("Eagle", 0, (5, 5))], carry={0: "Heavy Orb"})
    c = m.creatures[eagle]
    assert stat(m, c, "M") == 5 and stat(m, c, "R") == 1 and not has(m, c, "flying")


def test_2_4_killer_orb_is_a_ranged_t_vs_d_attack() -> None:
    """2.4 Killer Orb: attack anything in throwing range, T against D; if the defender lives the orb is loose
    (d8) from it."""
    m, (yeti, skel) = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 10))], carry={0: "Killer Orb"}, dice=[2, 10, 5])
    m.apply(f"killer:{yeti}:{skel}")
    strike = events(m, "strike")[0].data
    assert (strike["attack_total"], strike["defense_total"]) == (9, 14)
    assert m.orbs["Killer Orb"] == (5, 11) and m.creatures[yeti].orb is None


def test_2_4_killer_orb_stays_where_the_defender_died() -> None:
    """2.4 Killer Orb: if the defender is destroyed the orb remains on that square."""
    m, (yeti, skel) = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 10))], carry={0: "Killer Orb"}, dice=[19, 1])
    m.apply(f"killer:{yeti}:{skel}")
    assert skel not in m.creatures and m.orbs["Killer Orb"] == (5, 10) and chance(m).remaining == 0


def test_2_4_killer_orb_destroys_its_carrier_at_the_end_of_its_controllers_turn() -> None:
    """2.4 Killer Orb: the carrier is destroyed at the end of its controller's turn."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], carry={0: "Killer Orb"}, phase="orb_turn_end", dice=[4])
    assert yeti not in m.creatures


def test_2_4_leather_orb_changes_nothing() -> None:
    """2.4 Leather Orb: throws, catches, range and movement are unaffected."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], carry={0: "Leather Orb"})
    assert [stat(m, m.creatures[yeti], k) for k in "TCRMAD"] == [7, 7, 7, 4, 5, 7]


def test_2_4_shield_orb_gives_plus_4_D() -> None:
    """2.4 Shield Orb: the carrier receives +4 D."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], carry={0: "Shield Orb"})
    assert stat(m, m.creatures[yeti], "D") == 11


def test_2_4_slippery_orb_fumbles_on_1_to_4_at_pick_up() -> None:
    """2.4 Slippery Orb: on attempted pick up, d8 1-4: fumble and the creature's turn ends."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], orbs={"Slippery Orb": (5, 6)}, dice=[3, 8])
    m.apply(f"move:{yeti}:r5c6")
    assert m.creatures[yeti].orb is None and m.creatures[yeti].done and m.orbs["Slippery Orb"] == (6, 7)
    m, (yeti,) = build([("Yeti", 0, (5, 5))], orbs={"Slippery Orb": (5, 6)}, dice=[5])
    m.apply(f"move:{yeti}:r5c6")
    assert m.creatures[yeti].orb == "Slippery Orb"


def test_2_4_unstable_orb_explodes_on_1_and_destroys_its_carrier_on_2_to_4() -> None:
    """2.4 Unstable Orb: end of the controller's turn d8: 1 destroys carrier and neighbours; 2-4 the carrier,
    and the orb is relocated (2d20)."""
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], carry={0: "Unstable Orb"}, phase="orb_turn_end", dice=[1, 1, 1]
    )
    assert yeti not in m.creatures and skel not in m.creatures
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], carry={0: "Unstable Orb"}, phase="orb_turn_end", dice=[3, 9, 8]
    )
    assert yeti not in m.creatures and skel in m.creatures and m.orbs["Unstable Orb"] == (8, 9)


def test_2_4_weak_creature_cannot_take_the_heavy_orb_by_handoff() -> None:
    """2.4 Heavy Orb: Weak creatures cannot move the Heavy Orb (no handoff or throw to them)."""
    m, (yeti, pixie) = build([("Yeti", 0, (5, 5)), ("Pixie", 0, (5, 6))], carry={0: "Heavy Orb"})
    ids = option_ids(m)
    assert f"handoff:{yeti}:{pixie}" not in ids and f"throw:{yeti}:{pixie}" not in ids
