"""Combat rules (rulebook section 1.6.3, FAQ/errata B5)."""

from __future__ import annotations

from tests.games.scrumbrawl.helpers import build, card, chance, events, option_ids


def _strikes(m):  # type: ignore[no-untyped-def]
    return [(e.data["attack_total"], e.data["defense_total"], e.data["result"]) for e in events(m, "strike")]


def test_1_6_3_b_natural_20_hits_whatever_the_totals() -> None:
    """1.6.3 b: a natural 20 on the attack roll hits automatically."""
    m, (skel, golem) = build([("Skeleton", 0, (5, 5)), ("Boulder Golem", 1, (5, 6))], dice=[20, 19])
    m.apply(f"attack:{skel}:{golem}")
    assert _strikes(m) == [(24, 28, "hit")] and golem not in m.creatures


def test_1_6_3_b_only_a_defending_natural_20_stops_a_natural_20() -> None:
    """1.6.3 b: the defender's natural 20 defends against a natural 20."""
    m, (skel, golem) = build([("Skeleton", 0, (5, 5)), ("Boulder Golem", 1, (5, 6))], dice=[20, 20])
    m.apply(f"attack:{skel}:{golem}")
    assert _strikes(m) == [(24, 29, "miss")] and golem in m.creatures


def test_1_6_3_b_natural_1_misses_whatever_the_totals() -> None:
    """1.6.3 b: a natural 1 on the attack roll misses automatically."""
    m, (golem, skel) = build([("Boulder Golem", 0, (5, 5)), ("Skeleton", 1, (5, 6))], dice=[1, 1])
    m.apply(f"attack:{golem}:{skel}")
    m.apply("stop")
    assert _strikes(m) == [(10, 5, "miss")] and skel in m.creatures


def test_1_6_3_b_an_altered_20_is_not_a_natural_20() -> None:
    """1.6.3 b / 1.5.3: altering a combat roll to 20 does not make an automatic hit."""
    m, (skel, golem) = build(
        [("Skeleton", 0, (5, 5)), ("Boulder Golem", 1, (5, 6))], hands={0: ["Alter Reality 2"]}, dice=[18, 19]
    )
    m.apply(f"attack:{skel}:{golem}")
    decision = m.to_move()
    assert decision is not None and decision.kind == "alter_reality" and decision.seat == 0
    m.apply(f"alter:{card(m, 0, 'Alter Reality 2')}:0:+2")
    assert _strikes(m) == [(24, 28, "miss")]


def test_1_6_3_ties_fail() -> None:
    """1.6.3: the attack hits only when its total is greater; a tie fails."""
    m, (yeti, skel) = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], dice=[10, 11, 2, 15])
    m.apply(f"attack:{yeti}:{skel}")
    assert _strikes(m)[0] == (15, 15, "miss")


def test_1_6_3_c_non_flyer_cannot_attack_a_flyer_unless_ranged() -> None:
    """1.6.3 c / B5.1: a non-flying creature may attack a flyer only with a ranged attack."""
    m, (yeti, _) = build([("Yeti", 0, (5, 5)), ("Eagle", 1, (5, 6))])
    assert not [o for o in option_ids(m) if o.startswith("attack")]
    m, (satyr, eagle) = build([("Satyr", 0, (5, 5)), ("Eagle", 1, (5, 6))])
    assert f"attack:{satyr}:{eagle}" in option_ids(m)
    del yeti


def test_b5_2_non_flyer_may_counter_a_flyer_that_attacked_it_adjacently() -> None:
    """B5.2 (errata): a flyer attacking in melee may be counterattacked by a non-flyer."""
    m, (eagle, yeti) = build([("Eagle", 0, (5, 5)), ("Yeti", 1, (5, 6))], dice=[1, 1])
    m.apply(f"attack:{eagle}:{yeti}")
    m.apply("stop")
    decision = m.to_move()
    assert decision is not None and decision.kind == "counter" and decision.seat == 1


def test_1_6_3_c_carrier_cannot_attack_unless_adept() -> None:
    """1.6.3 c: a carrier may attack only when Adept (card or Orb Harness)."""
    m, _ = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], carry={0: "Leather Orb"})
    assert not [o for o in option_ids(m) if o.startswith("attack")]
    m, (chimera, skel) = build([("Chimera", 0, (5, 5)), ("Skeleton", 1, (5, 6))], carry={0: "Leather Orb"})
    assert f"attack:{chimera}:{skel}" in option_ids(m)
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], carry={0: "Leather Orb"}, enchant={0: "Orb Harness"}
    )
    assert f"attack:{yeti}:{skel}" in option_ids(m)


def test_1_6_3_ranged_attack_reaches_range_x_and_no_further() -> None:
    """1.6.3 c: Range Attack X reaches X squares; an adjacent target may still be attacked."""
    m, (amazon, near, far) = build([("Amazon", 0, (5, 5)), ("Skeleton", 1, (5, 8)), ("Yeti", 1, (5, 9))])
    ids = option_ids(m)
    assert f"attack:{amazon}:{near}" in ids and f"attack:{amazon}:{far}" not in ids


def test_1_6_3_enchantment_is_a_hit_point_and_venom_ignores_it() -> None:
    """1.6.3 / keywords: damage removes an enchantment instead; Venom destroys the enchanted creature."""
    m, (yeti, skel) = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], enchant={1: "Morphous Armor"}, dice=[19, 1])
    m.apply(f"attack:{yeti}:{skel}")
    assert skel in m.creatures and m.creatures[skel].enchant is None
    m, (spider, skel) = build(
        [("Spider", 0, (5, 5)), ("Skeleton", 1, (5, 6))], enchant={1: "Morphous Armor"}, dice=[19, 1]
    )
    m.apply(f"attack:{spider}:{skel}")
    assert skel not in m.creatures


def test_b5_5_wrest_takes_the_orb_instead_of_damage_and_the_carrier_may_counter() -> None:
    """B5.5: a successful attack on an adjacent enemy carrier may take the orb instead of dealing damage."""
    m, (yeti, skel) = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], carry={1: "Leather Orb"}, dice=[15, 1])
    m.apply(f"attack:{yeti}:{skel}")
    decision = m.to_move()
    assert decision is not None and decision.kind == "wrest"
    m.apply("wrest")
    assert m.creatures[yeti].orb == "Leather Orb" and skel in m.creatures
    decision = m.to_move()
    assert decision is not None and decision.kind == "counter"


def test_1_6_3_several_attacks_may_switch_target() -> None:
    """1.6.3: a creature with more attacks attacks again, the same creature or another in range."""
    m, (hell, a, b) = build(
        [("Hellspawn", 0, (5, 5)), ("Skeleton", 1, (5, 6)), ("Chicken", 1, (6, 5))], dice=[19, 1, 19, 1]
    )
    m.apply(f"attack:{hell}:{a}")
    assert a not in m.creatures
    assert option_ids(m) == [f"attack:{hell}:{b}", "stop"]
    m.apply(f"attack:{hell}:{b}")
    assert b not in m.creatures and chance(m).remaining == 0


def test_2_5_2_defender_counters_each_attacker_with_its_full_attacks() -> None:
    """2.5.2: a counterattack uses the defender's full number of attacks."""
    m, (yeti, mummy) = build([("Yeti", 0, (5, 5)), ("Mummy", 1, (5, 6))], dice=[5, 1, 8, 1, 1, 1, 1])
    # The Mummy is Aggressive: its d8 5 gives no first strike; the Yeti misses; the Mummy counters twice.
    m.apply(f"attack:{yeti}:{mummy}")
    m.apply("counter")
    m.apply(f"attack:{mummy}:{yeti}")
    assert len(events(m, "strike")) == 3 and chance(m).remaining == 0


def test_1_6_3_a_three_skins_make_a_red_chip() -> None:
    """1.6.3 a: three skins trade for a red scoring chip."""
    m, (yeti, skel) = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], dice=[19, 1])
    m.skins[0] = ["Troll", "Lich"]
    m.apply(f"attack:{yeti}:{skel}")
    assert m.red[0] == 1 and m.skins[0] == []


def test_1_7_three_chips_with_a_blue_win_and_three_red_do_not() -> None:
    """1.7: three chips, at least one blue, win at once; three red chips alone do not."""
    m, (yeti, skel) = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], dice=[19, 1])
    m.blue[0], m.red[0], m.skins[0] = 1, 1, ["Troll", "Lich"]
    m.apply(f"attack:{yeti}:{skel}")
    outcome = m.outcome()
    assert outcome is not None and outcome.termination.value == "victory" and outcome.ranks == (1, 2)
    m, (yeti, skel) = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], dice=[19, 1])
    m.red[0], m.skins[0] = 2, ["Troll", "Lich"]
    m.apply(f"attack:{yeti}:{skel}")
    assert m.red[0] == 3 and m.outcome() is None
