"""The ScrumBrawl rules of the third rules pass (issue 24), one rule per test, each quoting the seed
sentence it enforces, with the exact position and dice."""

from __future__ import annotations

from tests.games.scrumbrawl.helpers import build, card, chance, events, option_ids


def test_2_4_unstable_orb_on_1_relocates_itself_after_the_blast() -> None:
    """2.4 Unstable Orb: "1: Orb destroys carrier and any adjacent creatures, orbs and portals. 2-4: Orb destroys
    carrier. Relocate Unstable Orb (2d20)." On a 1 the Yeti and the adjacent Skeleton are destroyed, then the
    Unstable Orb itself is rolled to red 9, blue 8: (8, 9). No orb card leaves the orb deck."""
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], carry={0: "Unstable Orb"}, phase="orb_turn_end", dice=[1, 9, 8]
    )
    assert yeti not in m.creatures and skel not in m.creatures
    assert m.orbs == {"Unstable Orb": (8, 9)} and not m.carrier
    assert not events(m, "orb_drawn") and not events(m, "orb_removed") and "Unstable Orb" not in m.orb_deck
    assert chance(m).remaining == 0


def test_2_4_unstable_orb_relocation_rerolls_onto_a_portal_and_lands_on_a_creature() -> None:
    """1.1: "If an orb or portal is to be placed at a location already occupied by either a portal or an orb,
    perform a new placement roll"; an orb landing on a creature makes it the carrier (rules doc, Set-up). The
    Unstable Orb's 1 blasts the Yeti; its relocation rolls onto portal p0 at (10, 10), is rolled again, and lands
    on the far Troll at (12, 3), which now carries it."""
    m, (yeti, troll) = build(
        [("Yeti", 0, (5, 5)), ("Troll", 1, (12, 3))],
        carry={0: "Unstable Orb"},
        portals={"p0": (10, 10)},
        phase="orb_turn_end",
        dice=[1, 10, 10, 3, 12],
    )
    assert yeti not in m.creatures and m.portals == {"p0": (10, 10)}
    assert [e.data["detail"] for e in events(m, "reroll")] == ["Unstable Orb onto an orb or portal"]
    assert m.carrier == {"Unstable Orb": troll} and m.creatures[troll].orb == "Unstable Orb"
    assert chance(m).remaining == 0


def test_1_6_2_a_fumble_card_is_rolled_from_its_players_edge() -> None:
    """1.6.2 a: "From the point of view of the rolling player, a roll of 1 is to the upper left whereas an 8
    would be to the lower right"; 2.3 Fumble: "Orb carrier fumbles the orb. Roll d8 for placement." The card's
    player rolls (the roll is its card's instruction), not the active player: seat 1 (top edge) fumbles seat 0's
    Yeti at (10, 10) on seat 0's turn; d8 1 is up-left from seat 1's seat, (11, 11) on the board."""
    m, (yeti,) = build([("Yeti", 0, (10, 10))], carry={0: "Leather Orb"}, hands={1: ["Fumble"]}, dice=[1])
    m.apply(f"move:{yeti}:r10c12")
    decision = m.to_move()
    assert decision is not None and decision.kind == "fumble_window" and decision.seat == 1
    m.apply(f"fumble:{card(m, 1, 'Fumble')}")
    assert m.orbs["Leather Orb"] == (11, 11) and chance(m).remaining == 0
    assert events(m, "roll")[-1].data == {"purpose": "loose Leather Orb", "dice": [1], "seat": 1}


def test_1_6_2_a_a_roll_that_follows_a_loose_orb_is_rolled_by_the_same_player() -> None:
    """1.6.2 a, the rolling player, and 2.4 Slippery Orb: "On attempted pickup ... roll d8. 1-4: fumble". Seat 1
    fumbles seat 0's carrier at (10, 10): d8 8 from seat 1's edge is (9, 9), where seat 0's Troll stands; the
    Slippery pick-up d8 2 slips, and that loose orb, following from seat 1's Fumble, is rolled by seat 1 too:
    d8 7 is "down" from the top edge, (8, 9)."""
    m, (yeti, troll) = build(
        [("Yeti", 0, (10, 10)), ("Troll", 0, (9, 9))],
        carry={0: "Slippery Orb"},
        hands={1: ["Fumble"]},
        dice=[8, 2, 7],
    )
    m.apply(f"move:{yeti}:r10c12")
    m.apply(f"fumble:{card(m, 1, 'Fumble')}")
    assert [e.data["creature"] for e in events(m, "fumble")] == [yeti, troll]
    assert m.creatures[troll].orb is None and m.orbs["Slippery Orb"] == (8, 9)
    assert chance(m).remaining == 0


def test_1_6_2_a_a_catch_dropped_on_the_active_players_turn_is_rolled_by_it() -> None:
    """1.6.2 a: "In the event that ... a creature drops a catch ... roll a d8"; the throw is the active player's
    act, so seat 1 (top edge), active, rolls: d8 2 is "up" away from its edge, from the receiver at (5, 9) to
    (6, 9)."""
    m, (yeti, skel) = build(
        [("Yeti", 1, (5, 5)), ("Skeleton", 1, (5, 9))], carry={0: "Leather Orb"}, active=1, dice=[20, 2]
    )
    m.apply(f"throw:{yeti}:{skel}")
    assert m.orbs["Leather Orb"] == (6, 9) and chance(m).remaining == 0


def test_2_1_druid_placement_is_read_from_the_druids_controller() -> None:
    """2.1 Druid: "If a friendly creature ... is destroyed, roll d8. On a 1-4, that creature remains alive and is
    placed adjacent to the Druid (d8/Loose Orb Placement to place)." The roll is the Druid's ability, its
    controller's roll (as 2.1 Phoenix: "controller rolls d8"): seat 1's Druid at (10, 10) saves the Skeleton that
    seat 0's Centipede destroyed; d8 1 is up-left from seat 1's (top) edge: (11, 11)."""
    m, (cent, skel, _druid) = build(
        [("Centipede", 0, (5, 5)), ("Skeleton", 1, (5, 6)), ("Druid", 1, (10, 10))], dice=[14, 1, 1, 1]
    )
    m.apply(f"attack:{cent}:{skel}")
    assert m.creatures[skel].pos == (11, 11) and chance(m).remaining == 0
    assert [e.data["seat"] for e in events(m, "roll") if e.data["purpose"].startswith("Druid")] == [1, 1]


def test_1_6_2_b_the_giving_teammate_may_refuse_a_handoff() -> None:
    """1.6.2 b: "A player may receive a handoff from his or her teammate's creature during his or her own turn",
    and "Creatures can hand the orb off to a teammate": the handoff is the carrier's act, and the carrier is the
    teammate's creature, so its controller decides. Seat 2 refuses: the Troll keeps the orb, its turn is not
    ended, and seat 0 goes on with its own turn."""
    m, (yeti, troll) = build(
        [("Yeti", 0, (5, 5)), ("Troll", 2, (5, 6))], seats=4, config={"teams": True}, carry={1: "Leather Orb"}
    )
    m.apply(f"receive:{troll}:{yeti}")
    d = m.to_move()
    assert d is not None and d.kind == "handoff_consent" and d.seat == 2
    assert [o.id for o in m.legal_options()] == ["give", "refuse"]
    m.apply("refuse")
    assert m.carrier == {"Leather Orb": troll} and m.creatures[yeti].orb is None
    assert not events(m, "handoff") and not m.creatures[troll].done
    d = m.to_move()
    assert d is not None and d.kind == "act" and d.seat == 0 and f"move:{yeti}:r5c4" in option_ids(m)
