"""The ScrumBrawl divergences of the second rules pass (issue 13, findings 2 to 7), one rule per test,
each quoting the seed sentence it enforces, with the exact position and dice."""

from __future__ import annotations

from tests.games.scrumbrawl.helpers import build, card, chance, events, option_ids


def test_1_6_2_loose_orb_goal_credits_the_carrier_from_an_earlier_turn() -> None:
    """1.6.2 a: "If the loose orb moves to a square occupied by a portal, the player who last controlled the
    orb during the same turn scores a goal." Carrying is control: a Yeti that picked the orb up on an earlier
    turn is fumbled next to a portal before it moves; the loose orb rolls into the portal: seat 0 scores."""
    m, (yeti,) = build(
        [("Yeti", 0, (5, 5))],
        carry={0: "Leather Orb"},
        portals={"p0": (4, 5)},
        hands={0: ["Troll", "Troll", "Troll", "Troll"], 1: ["Fumble"]},
        phase="turn_start",
        # Seat 1 plays Fumble, so it rolls: d8 7 is straight down from seat 1's (top) edge: (5, 5) -> (4, 5);
        # then the new orb and the portal (2d20).
        dice=[7, 10, 10, 15, 15],
    )
    m.apply("end")  # the place phase
    m.apply(f"move:{yeti}:r5c7")
    m.apply(f"fumble:{card(m, 1, 'Fumble')}")
    goal = events(m, "goal")[0].data
    assert goal["seat"] == 0 and goal["detail"] == "loose" and m.blue == [1, 0]
    assert chance(m).remaining == 0


def test_1_6_2_b_a_player_receives_a_handoff_from_its_teammates_creature_on_its_own_turn() -> None:
    """1.6.2 b: "A player may receive a handoff from his or her teammate's creature during his or her own
    turn." Seat 0's Yeti takes the orb from seat 2's adjacent Troll; seat 2 agrees to the handoff."""
    m, (yeti, troll) = build(
        [("Yeti", 0, (5, 5)), ("Troll", 2, (5, 6))], seats=4, config={"teams": True}, carry={1: "Leather Orb"}
    )
    assert f"receive:{troll}:{yeti}" in option_ids(m)
    m.apply(f"receive:{troll}:{yeti}")
    d = m.to_move()
    assert d is not None and d.kind == "handoff_consent" and d.seat == 2
    m.apply("give")
    assert m.creatures[yeti].orb == "Leather Orb" and m.creatures[troll].orb is None
    assert m.carrier["Leather Orb"] == yeti and events(m, "handoff")


def test_1_6_2_b_no_handoff_from_an_opponent_or_outside_team_play() -> None:
    """1.6.2 b: only a teammate's creature hands off to the player; there is no such option without teams."""
    m, (yeti, skel) = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], carry={1: "Leather Orb"})
    assert not [o for o in option_ids(m) if o.startswith("receive:")]
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))], seats=4, config={"teams": True}, carry={1: "Leather Orb"}
    )
    assert f"receive:{skel}:{yeti}" not in option_ids(m)


def test_2_5_5_minotaur_charge_throws_off_the_arena_and_the_kill_is_the_minotaurs() -> None:
    """2.5.5: "If the Yeti would have been thrown beyond the edge of the Arena as a result of this movement,
    the Yeti would have been destroyed." Destroyed in combat (1.6.3 a: "If a creature is destroyed in combat,
    the player who controls the victorious creature takes the discarded creature token"): a skin for seat 0."""
    m, (mino, yeti) = build([("Minotaur", 0, (10, 15)), ("Yeti", 1, (10, 19))], dice=[2, 14])
    m.apply(f"charge:{mino}:{yeti}:e")
    assert events(m, "strike")[0].data["result"] == "miss"
    assert yeti not in m.creatures and m.skins[0] == ["Yeti"]
    destroyed = events(m, "destroyed")[0].data
    assert destroyed["detail"] == "combat" and destroyed["target"] == mino


def test_2_1_stone_gargoyle_may_counterattack() -> None:
    """2.1 Gargoyle: "Gargoyle gains +8 D, loses flying, and may not move, attack or manipulate orb on its
    next turn." A counterattack on another player's turn is none of these: the stone Gargoyle counters."""
    m, (satyr, garg) = build([("Satyr", 0, (5, 5)), ("Gargoyle", 1, (5, 6))], dice=[10, 5, 12, 3])
    m.apply(f"attack:{satyr}:{garg}")
    m.apply("stone")
    d = m.to_move()
    assert d is not None and d.kind == "counter" and d.seat == 1
    m.apply("counter")
    strikes = events(m, "strike")
    assert len(strikes) == 2 and strikes[1].data["creature"] == garg and chance(m).remaining == 0
    del satyr


def test_2_1_a_creature_raised_by_a_necromancer_did_not_die_no_revenant_chip() -> None:
    """2.1 Necromancer: "If any creature is destroyed and you do not control your maximum number of creatures,
    roll d8. On a 1-4, take control of that creature". Revenant: "If Revenant kills any creature, controller
    receives a red chip instead of creature skin and Revenant is removed from the Arena." The Necromancer rolls
    first; the raised Skeleton did not die, so no red chip and the Revenant stays."""
    m, (rev, skel, necro) = build(
        [("Revenant", 0, (5, 5)), ("Skeleton", 1, (5, 6)), ("Necromancer", 1, (15, 15))],
        # The hit, the Necromancer's d8 3, the raised Skeleton's 2d20 (red 18, blue 2: far from the Revenant).
        dice=[19, 1, 3, 18, 2],
    )
    m.apply(f"attack:{rev}:{skel}")
    assert m.creatures[skel].owner == 1 and m.creatures[skel].pos == (2, 18)
    assert m.red == [0, 0] and rev in m.creatures and m.skins[0] == []
    assert chance(m).remaining == 0
    del necro


def test_2_1_revenant_kill_not_raised_still_scores_the_red_chip() -> None:
    """2.1 Revenant: its kill gives a red chip and it leaves, once the Necromancer's d8 fails (5-8)."""
    m, (rev, skel, _necro) = build(
        [("Revenant", 0, (5, 5)), ("Skeleton", 1, (5, 6)), ("Necromancer", 1, (15, 15))], dice=[19, 1, 6]
    )
    m.apply(f"attack:{rev}:{skel}")
    assert m.red == [1, 0] and rev not in m.creatures and skel not in m.creatures


def test_2_4_slippery_orb_rolls_when_it_lands_on_a_creature() -> None:
    """2.4 Slippery Orb: "On attempted pickup, throw, catch or handoff, roll d8. 1-4: fumble/end creature's
    turn." A loose Slippery Orb landing on the Troll is a pick-up: d8 3 and it slips again."""
    m, (yeti, troll) = build(
        [("Yeti", 0, (5, 5)), ("Troll", 1, (4, 5))],
        carry={0: "Slippery Orb"},
        hands={0: ["Fumble"]},
        # Fumble: d8 2 (up) onto the Troll; its Slippery d8 3 fumbles; d8 5 (right) from the Troll's square.
        dice=[2, 3, 5],
    )
    m.apply(f"fumble:{card(m, 0, 'Fumble')}:{yeti}")
    assert m.creatures[troll].orb is None and m.orbs["Slippery Orb"] == (4, 6)
    assert chance(m).remaining == 0


def test_2_4_crystal_orb_does_not_shatter_on_a_missed_portal_throw() -> None:
    """2.4 Crystal Orb: "Orb shatters on fumble, failed catch or drop by a destroyed creature." A missed throw
    at a portal is none of these: the orb takes a loose-orb roll from the portal's square."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], carry={0: "Crystal Orb"}, portals={"p0": (5, 8)}, dice=[20, 7])
    m.apply(f"shoot:{yeti}:p0")
    assert not events(m, "orb_shatters") and m.orbs["Crystal Orb"] == (6, 8)
    assert chance(m).remaining == 0


def test_2_4_unstable_orb_1_destroys_an_orb_carried_next_to_it() -> None:
    """2.4 Unstable Orb: "1: Orb destroys carrier and any adjacent creatures, orbs and portals." The Leather
    Orb carried by the adjacent Skeleton is destroyed (replaced from the orb deck), not dropped by a d8; the
    Unstable Orb itself is relocated (2d20) after its replacement lands."""
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))],
        carry={0: "Unstable Orb", 1: "Leather Orb"},
        phase="orb_turn_end",
        dice=[1, 12, 12, 14, 14],
    )
    assert yeti not in m.creatures and skel not in m.creatures
    removed = [e.data["orb"] for e in events(m, "orb_removed")]
    assert removed == ["Leather Orb"]
    assert not events(m, "orb_loose") and chance(m).remaining == 0
    assert "Leather Orb" not in m.orbs and m.orbs["Unstable Orb"] == (14, 14)


def test_2_1_nork_explosion_destroys_an_orb_carried_next_to_it() -> None:
    """2.1 The Nork: "If Nork is destroyed, it explodes dealing 1 damage to all adjacent creatures and
    destroying any adjacent orbs or portals." The adjacent Troll survives (its enchantment takes the damage)
    but the Leather Orb it carries is destroyed and replaced."""
    m, (cent, nork, troll) = build(
        [("Centipede", 0, (5, 5)), ("The Nork", 1, (5, 6)), ("Troll", 1, (5, 7))],
        carry={2: "Leather Orb"},
        enchant={2: "Morphous Armor"},
        dice=[19, 1, 12, 12],
    )
    m.apply(f"attack:{cent}:{nork}")
    assert troll in m.creatures and m.creatures[troll].orb is None and m.creatures[troll].enchant is None
    assert "Leather Orb" not in m.orbs and [e.data["orb"] for e in events(m, "orb_removed")] == ["Leather Orb"]
    assert chance(m).remaining == 0


def test_1_8_last_man_standing_portal_destroyed_by_an_event_is_rolled_anew() -> None:
    """1.4.2 "When a portal is destroyed, roll for the new Arena position of the portal token", in Last Man
    Standing too: a Fissure (row 2, column 3) through portal p1 on the top edge rolls it to a new square;
    p0 on the bottom edge is out of the Fissure and stays. A portal keeps its id, so its owner."""
    m, _ = build(
        [],
        config={"last_man_standing": True},
        portals={"p0": (20, 10), "p1": (1, 10)},
        deck=["Fissure", "Troll", "Troll", "Troll", "Troll"],
        phase="draw",
        dice=[3, 2, 9, 9],
    )
    assert m.portals == {"p0": (20, 10), "p1": (9, 9)} and chance(m).remaining == 0
