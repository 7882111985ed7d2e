"""Enchantments, Alter Reality, Dispel, Fumble and every event (rulebook 1.4, 1.5, 2.2, 2.3; B3, B4)."""

from __future__ import annotations

import pytest

from referee.games.scrumbrawl.creatures import has, stat
from tests.games.scrumbrawl.helpers import build, card, chance, events, option_ids


@pytest.mark.parametrize(
    ("ench", "stats"),
    [
        ("Angel Wings", {"M": 6}),
        ("Aura of Blessing", {"A": 7, "D": 9}),
        ("Morphous Armor", {"D": 11}),
        ("Raging Valor", {"A": 8}),
        ("Sticky Fingers", {"C": 9}),
        ("Orb Harness", {"A": 5, "D": 7}),
    ],
)
def test_2_2_creature_enchantment_attributes(ench: str, stats: dict[str, int]) -> None:
    """2.2: a creature enchantment changes the attributes printed on its card (Yeti: T7 C7 R7 M4 A5 D7)."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], enchant={0: ench})
    for k, v in stats.items():
        assert stat(m, m.creatures[yeti], k) == v


def test_2_2_angel_wings_grants_flying_and_orb_harness_adept() -> None:
    """2.2: Angel Wings gives Flying; Orb Harness gives Adept."""
    m, (yeti, troll) = build([("Yeti", 0, (5, 5)), ("Troll", 0, (9, 9))], enchant={0: "Angel Wings", 1: "Orb Harness"})
    assert has(m, m.creatures[yeti], "flying") and has(m, m.creatures[troll], "adept")


@pytest.mark.parametrize(
    ("ench", "stat_name", "value"), [("Bloodlust", "A", 7), ("Favor of the Gods", "D", 9), ("Precision", "T", 9)]
)
def test_2_2_team_enchantments_boost_own_and_teammates_creatures(ench: str, stat_name: str, value: int) -> None:
    """1.4.3 / 2.2: a team enchantment boosts the player's and the teammate's creatures, not the opponents'."""
    m, (mine, mate, foe) = build(
        [("Yeti", 0, (1, 1)), ("Yeti", 2, (5, 5)), ("Yeti", 1, (9, 9))],
        seats=4,
        config={"teams": True},
        team={0: [ench]},
    )
    assert stat(m, m.creatures[mine], stat_name) == value
    assert stat(m, m.creatures[mate], stat_name) == value
    assert stat(m, m.creatures[foe], stat_name) == value - 2


def test_1_5_2_enchant_any_creature_but_not_a_resistant_or_enchanted_one() -> None:
    """1.5.2 / keywords: enchantments go on any player's creature, one per creature, never on a Resistant one."""
    m, (yeti, skel, imp, troll) = build(
        [("Yeti", 0, (1, 1)), ("Skeleton", 1, (5, 5)), ("Lightning Imp", 1, (9, 9)), ("Troll", 0, (3, 3))],
        hands={0: ["Raging Valor"]},
        enchant={3: "Morphous Armor"},
        phase="place",
    )
    k = card(m, 0, "Raging Valor")
    ids = option_ids(m)
    assert f"enchant:{k}:{yeti}" in ids and f"enchant:{k}:{skel}" in ids
    assert f"enchant:{k}:{imp}" not in ids and f"enchant:{k}:{troll}" not in ids


def test_2_2_aura_of_cursing_damages_the_attacker() -> None:
    """2.2 Aura of Cursing: when the creature is damaged, the creature causing it is dealt one damage."""
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], enchant={1: "Aura of Cursing"}, dice=[19, 1]
    )
    m.apply(f"attack:{yeti}:{skel}")
    assert yeti not in m.creatures and skel in m.creatures and m.skins == [[], []]


def test_2_2_aura_of_deflection_stops_ranged_attacks_from_a_distance() -> None:
    """2.2 Aura of Deflection: the creature cannot be the target of range attacks."""
    m, (amazon, skel) = build([("Amazon", 0, (5, 5)), ("Skeleton", 1, (5, 8))], enchant={1: "Aura of Deflection"})
    assert f"attack:{amazon}:{skel}" not in option_ids(m)


def test_2_2_frenzied_attack_adds_attacks_and_leaves_on_7_or_8() -> None:
    """2.2 Frenzied Attack: d8 on attack: 8 gives four more attacks, then the enchantment is removed."""
    m, (yeti, golem) = build(
        [("Yeti", 0, (5, 5)), ("Boulder Golem", 1, (5, 6))], enchant={0: "Frenzied Attack"}, dice=[8, *([1, 1] * 5)]
    )
    m.apply(f"attack:{yeti}:{golem}")
    for _ in range(4):
        m.apply(f"attack:{yeti}:{golem}")
    assert len(events(m, "strike")) == 5 and m.creatures[yeti].enchant is None


def test_b4_sticky_fingers_carrier_cannot_be_fumbled() -> None:
    """B4 (engine decision): a Sticky Fingers carrier cannot be the target of Fumble."""
    m, (_yeti,) = build(
        [("Yeti", 0, (5, 5))], carry={0: "Leather Orb"}, enchant={0: "Sticky Fingers"}, hands={0: ["Fumble"]}
    )
    assert not [o for o in option_ids(m) if o.startswith("fumble")]


def test_1_5_3_alter_reality_limits_placement_rolls_to_the_arena() -> None:
    """1.5.3: placement rolls cannot be altered below 1 or above 20; part of the value may be used."""
    m, _ = build(hands={0: ["Yeti", "Alter Reality 2"]}, phase="place", dice=[19, 2])
    m.apply(f"summon:{card(m, 0, 'Yeti')}")
    ar = card(m, 0, "Alter Reality 2")
    ids = option_ids(m)
    assert f"alter:{ar}:0:+1" in ids and f"alter:{ar}:0:+2" not in ids and f"alter:{ar}:0:-2" in ids
    assert f"alter:{ar}:1:-1" in ids and f"alter:{ar}:1:-2" not in ids
    m.apply(f"alter:{ar}:1:+2")
    (yeti,) = m.creatures.values()
    assert yeti.pos == (4, 19)


def test_1_5_3_alter_reality_keeps_d8_rolls_within_1_to_8() -> None:
    """1.5.3: loose-orb and ability rolls cannot be altered beyond 1..8."""
    m, (chicken,) = build(
        [("Chicken", 0, (5, 5))], hands={0: ["Alter Reality 5"]}, phase="turn_start", deck=["Troll"] * 3, dice=[7]
    )
    ar = card(m, 0, "Alter Reality 5")
    deltas = sorted(o.params["delta"] for o in m.legal_options() if o.kind == "alter")
    assert deltas == [-5, -4, -3, -2, -1, 1]
    m.apply(f"alter:{ar}:0:-4")
    assert m.creatures[chicken].done


def test_1_5_3_no_alter_reality_on_a_multi_option_event_roll() -> None:
    """1.5.3: the d8 choosing a multi-option Instant Event's option cannot be altered."""
    m, _ = build(hands={0: ["Alter Reality 2"]}, deck=["Wild Magic", "Troll", "Troll", "Troll"], phase="draw", dice=[7])
    decision = m.to_move()
    assert decision is not None and decision.kind == "place"
    assert [e.data["name"] for e in events(m, "event_option")] == ["hailstorm"]


def test_passing_a_window_leaves_no_trace_for_the_others() -> None:
    """Hidden information: a window offered and passed leaves the other seats' event logs (and their indices)
    exactly as if the window had never been offered, since being offered one reveals the hand."""
    logs = []
    for hand in (["Alter Reality 2"], ["Troll"]):
        m, (yeti, skel) = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], hands={1: hand}, dice=[19, 1])
        m.apply(f"attack:{yeti}:{skel}")
        decision = m.to_move()
        if hand == ["Alter Reality 2"]:
            assert decision is not None and decision.seat == 1 and decision.kind == "alter_reality"
            m.apply("pass")
        logs.append([e.to_json() for e in m.events(0, 0)])
        assert m.observe(0) is not None
    assert logs[0] == logs[1]


def test_2_3_dispel_removes_an_enchantment() -> None:
    """2.3 Dispel / B5.4: removes a creature or team enchantment."""
    m, (skel,) = build([("Skeleton", 1, (5, 5))], enchant={0: "Morphous Armor"}, hands={0: ["Dispel"]}, phase="place")
    ench = m.creatures[skel].enchant
    m.apply(f"dispel:{card(m, 0, 'Dispel')}:{ench}")
    assert m.creatures[skel].enchant is None


def test_2_3_dispel_cancels_another_dispel() -> None:
    """2.3 Dispel: a Dispel can cancel another Dispel (the window goes only to a seat holding one)."""
    m, (skel,) = build(
        [("Skeleton", 1, (5, 5))], enchant={0: "Morphous Armor"}, hands={0: ["Dispel"], 1: ["Dispel"]}, phase="place"
    )
    ench = m.creatures[skel].enchant
    m.apply(f"dispel:{card(m, 0, 'Dispel')}:{ench}")
    decision = m.to_move()
    assert decision is not None and decision.kind == "dispel" and decision.seat == 1
    m.apply(f"dispel:{card(m, 1, 'Dispel')}")
    assert m.creatures[skel].enchant == ench


def test_2_3_dispel_cancels_an_instant_event_before_it_occurs() -> None:
    """2.3 Dispel: cancels an Instant Event after it is determined but before its dice."""
    m, (yeti,) = build(
        [("Yeti", 0, (5, 5))],
        hands={1: ["Dispel"]},
        deck=["Earthquake", "Troll", "Troll", "Troll", "Troll"],
        phase="draw",
    )
    decision = m.to_move()
    assert decision is not None and decision.kind == "dispel" and decision.seat == 1
    m.apply(f"dispel:{card(m, 1, 'Dispel')}")
    assert events(m, "event_cancelled") and yeti in m.creatures and chance(m).remaining == 0


def test_2_3_fumble_window_before_a_carrier_moves() -> None:
    """2.3 Fumble: on an opponent's turn, before a carrier moves: it fumbles (d8) and its turn ends.

    "Roll d8 for placement" is the card's player's roll: seat 1 (top edge) sees 8 as down-right from its
    seat, (5, 5) -> (4, 4) on the board."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], carry={0: "Leather Orb"}, hands={1: ["Fumble"], 0: ["Dispel"]}, dice=[8])
    m.apply(f"move:{yeti}:r5c8")
    decision = m.to_move()
    assert decision is not None and decision.kind == "fumble_window" and decision.seat == 1
    m.apply(f"fumble:{card(m, 1, 'Fumble')}")
    assert m.creatures[yeti].pos == (5, 5) and m.orbs["Leather Orb"] == (4, 4) and m.creatures[yeti].done
    decision = m.to_move()
    assert decision is not None and decision.kind == "act", "Fumble cannot be Dispelled: no window"


def test_2_3_fumble_on_own_turn() -> None:
    """2.3 Fumble: playable during its owner's own turn on any carrier."""
    m, (_yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (9, 9))], carry={1: "Leather Orb"}, hands={0: ["Fumble"]}, dice=[2]
    )
    m.apply(f"fumble:{card(m, 0, 'Fumble')}:{skel}")
    assert m.orbs["Leather Orb"] == (8, 9)


def _instant(deck_event: str, creatures, dice, **kw):  # type: ignore[no-untyped-def]
    return build(creatures, deck=[deck_event, "Troll", "Troll", "Troll", "Troll"], phase="draw", dice=dice, **kw)


def test_2_3_chaos_rerolls_portals_orbs_then_creatures() -> None:
    """2.3 Chaos: empty the Arena; new squares for portals, orbs, then creatures from the active player clockwise."""
    m, (a, b) = _instant(
        "Chaos",
        [("Yeti", 1, (5, 5)), ("Troll", 0, (9, 9))],
        [1, 1, 2, 2, 3, 3, 4, 4],
        portals={"p0": (10, 10)},
        orbs={"Leather Orb": (12, 12)},
    )
    assert m.portals == {"p0": (1, 1)} and m.orbs == {"Leather Orb": (2, 2)}
    assert m.creatures[b].pos == (3, 3) and m.creatures[a].pos == (4, 4)


def test_2_3_earthquake_destroys_non_flyers_on_1_to_4() -> None:
    """2.3 Earthquake: each non-flying creature rolls d8; 1-4 destroys it."""
    m, (a, b, c) = _instant("Earthquake", [("Yeti", 0, (5, 5)), ("Troll", 1, (9, 9)), ("Eagle", 1, (1, 1))], [4, 5])
    assert a not in m.creatures and b in m.creatures and c in m.creatures


def test_2_3_fissure_destroys_along_the_row_and_column() -> None:
    """2.3 Fissure: non-flying creatures, orbs and portals on and adjacent to the rolled row and column."""
    m, (a, b, c) = _instant(
        "Fissure",
        [("Yeti", 0, (5, 10)), ("Troll", 1, (15, 15)), ("Eagle", 1, (9, 5))],
        [9, 9, 20, 20],
        portals={"p0": (10, 1)},
    )
    assert a not in m.creatures and b in m.creatures and c in m.creatures and m.portals == {"p0": (20, 20)}


def test_2_3_gypsy_bazaar_replaces_every_hand_with_three_cards() -> None:
    """2.3 Gypsy Bazaar: every hand is discarded and three new cards dealt to each player."""
    m, _ = build(
        hands={0: ["Yeti"], 1: ["Fumble", "Alter Reality 2"]}, deck=["Gypsy Bazaar", *(["Troll"] * 8)], phase="draw"
    )
    assert len(m.hands[1]) == 3 and all(m.card_names[k] == "Troll" for k in m.hands[1])
    assert len(m.hands[0]) == 4


def test_2_3_hailstorm_destroys_enchantments_on_1_to_6() -> None:
    """2.3 Hailstorm: each enchantment in play rolls d8; 1-6 destroys it."""
    m, (a, b) = _instant(
        "Hailstorm",
        [("Yeti", 0, (5, 5)), ("Troll", 1, (9, 9))],
        [6, 7, 1],
        enchant={0: "Raging Valor", 1: "Morphous Armor"},
        team={1: ["Bloodlust"]},
    )
    assert m.creatures[a].enchant is None and m.creatures[b].enchant is not None and m.team_ench[1] == []


def test_2_3_lightning_storm_strikes_d8_times() -> None:
    """2.3 Lightning Storm: d8 strikes, each 2d20, destroying everything on and around the square."""
    m, (a, b) = _instant("Lightning Storm", [("Yeti", 0, (5, 5)), ("Eagle", 1, (9, 9))], [2, 6, 4, 15, 15])
    assert a not in m.creatures and b in m.creatures


def test_b3_orbstorm_adds_d8_orbs_and_suspends_replacement() -> None:
    """B3 Orbstorm: d8 orbs enter the Arena; a removed orb is not replaced while more than the start count remain."""
    m, _ = _instant("Orbstorm", [], [2, 1, 1, 2, 2], orbs={"Leather Orb": (10, 10)})
    assert len(m.orbs) == 3 and m.base_orbs == 1


def test_b3_sacrifice_each_player_removes_one_of_its_creatures() -> None:
    """B3 Sacrifice (engine decision): each player, from the active one, removes one of its own creatures."""
    m, (a, b) = _instant("Sacrifice", [("Yeti", 0, (5, 5)), ("Troll", 1, (9, 9))], [])
    assert m.to_move() is not None and m.to_move().kind == "sacrifice"  # type: ignore[union-attr]
    m.apply(f"sacrifice:{a}")
    m.apply(f"sacrifice:{b}")
    assert not m.creatures


def test_2_3_fumble_window_after_a_carrier_completes_its_move() -> None:
    """2.3 Fumble: on an opponent's turn, after a carrier completes its move (seat 1 rolls: 8 is (-1, -1))."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], carry={0: "Leather Orb"}, hands={1: ["Fumble"]}, dice=[8])
    m.apply(f"move:{yeti}:r5c8")
    m.apply("pass")
    decision = m.to_move()
    assert decision is not None and decision.kind == "fumble_window"
    m.apply(f"fumble:{card(m, 1, 'Fumble')}")
    assert m.creatures[yeti].pos == (5, 8) and m.orbs["Leather Orb"] == (4, 7)


def test_2_3_fumble_window_as_a_creature_gains_the_orb() -> None:
    """2.3 Fumble: on an opponent's turn, as a creature gains possession of an orb (seat 1 rolls: 2 is (1, 0))."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], orbs={"Leather Orb": (5, 6)}, hands={1: ["Fumble"]}, dice=[2])
    m.apply(f"move:{yeti}:r5c6")
    decision = m.to_move()
    assert decision is not None and decision.kind == "fumble_window"
    m.apply(f"fumble:{card(m, 1, 'Fumble')}")
    assert m.creatures[yeti].orb is None and m.orbs["Leather Orb"] == (6, 6)


def test_2_3_fumble_window_before_a_throw() -> None:
    """2.3 Fumble: on an opponent's turn, before an attempted throw (no catch roll follows); seat 1 rolls: 7 is
    (-1, 0)."""
    m, (yeti, giant) = build(
        [("Yeti", 0, (5, 5)), ("Fire Giant", 0, (5, 9))], carry={0: "Leather Orb"}, hands={1: ["Fumble"]}, dice=[7]
    )
    m.apply(f"throw:{yeti}:{giant}")
    decision = m.to_move()
    assert decision is not None and decision.kind == "fumble_window"
    m.apply(f"fumble:{card(m, 1, 'Fumble')}")
    assert m.orbs["Leather Orb"] == (4, 5) and m.creatures[giant].orb is None and chance(m).remaining == 0


def test_2_2_precision_adds_to_the_throw() -> None:
    """2.2 Precision: +2 T for friendly creatures, so a catch needing T + C succeeds two higher."""
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 0, (5, 9))], carry={0: "Leather Orb"}, team={0: ["Precision"]}, dice=[11]
    )
    m.apply(f"throw:{yeti}:{skel}")
    assert m.creatures[skel].orb == "Leather Orb"


def test_2_2_angel_wings_lets_a_creature_fly_over_others() -> None:
    """2.2 Angel Wings: the creature flies (passes over creatures) with +2 M."""
    walls = [(4, 4), (4, 5), (4, 6), (5, 4), (5, 6), (6, 4), (6, 5), (6, 6)]
    m, ids = build([("Yeti", 0, (5, 5)), *[("Skeleton", 1, p) for p in walls]], enchant={0: "Angel Wings"})
    assert f"move:{ids[0]}:r5c11" in option_ids(m)
