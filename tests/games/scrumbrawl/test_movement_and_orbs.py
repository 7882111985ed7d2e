"""Movement, orb maneuvering and goals (rulebook sections 1.6.1, 1.6.2)."""

from __future__ import annotations

from referee.games.scrumbrawl.board import d8_offset
from tests.games.scrumbrawl.helpers import build, chance, events, option_ids


def _moves(m, cid: str) -> set[tuple[int, int]]:  # type: ignore[no-untyped-def]
    return {
        (o.params["row"], o.params["col"])
        for o in m.legal_options()
        if o.kind == "move" and o.params["creature"] == cid
    }


def test_1_6_1_movement_is_straight_or_diagonal_up_to_M() -> None:
    """1.6.1: M squares in any of 8 directions: a Yeti (M 4) in the open reaches a 9x9 square less its own."""
    m, (yeti,) = build([("Yeti", 0, (10, 10))])
    assert len(_moves(m, yeti)) == 80


def test_1_6_1_cannot_move_off_the_arena() -> None:
    """1.6.1: a creature cannot move off the sides of the Arena."""
    m, (yeti,) = build([("Yeti", 0, (1, 1))])
    assert len(_moves(m, yeti)) == 24


def test_1_6_1_cannot_pass_through_creatures_unless_flying() -> None:
    """1.6.1: a walled-in creature cannot move; a flyer passes over but cannot end on a creature."""
    walls = [(4, 4), (4, 5), (4, 6), (5, 4), (5, 6), (6, 4), (6, 5), (6, 6)]
    ring = [("Skeleton", 1, p) for p in walls]
    m, ids = build([("Yeti", 0, (5, 5)), *ring])
    assert _moves(m, ids[0]) == set()
    m, ids = build([("Eagle", 0, (5, 5)), *ring])
    reach = _moves(m, ids[0])
    assert (3, 3) in reach and not reach & set(walls)


def test_1_6_1_suicide_rule_non_carrier_into_portal_is_destroyed() -> None:
    """1.6.1: moving a creature without an orb into a portal destroys it (no skin)."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], portals={"p0": (5, 7)})
    m.apply(f"move:{yeti}:r5c7")
    assert yeti not in m.creatures and events(m, "suicide") and m.skins == [[], []]


def test_1_6_2_moving_onto_an_orb_picks_it_up_and_stops_there() -> None:
    """1.6.2: a creature moving into an orb's square must pick it up; it may then move on."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], orbs={"Leather Orb": (5, 7)})
    m.apply(f"move:{yeti}:r5c7")
    assert m.creatures[yeti].orb == "Leather Orb"
    assert _moves(m, yeti), "two squares of movement left after the pick-up"


def test_1_6_2_c_carrying_the_orb_into_a_portal_scores_a_blue_chip_and_replaces_both() -> None:
    """1.6.2 c/d: carrying an orb into a portal scores; orb and portal leave and are rolled anew."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], carry={0: "Leather Orb"}, portals={"p0": (5, 7)}, dice=[1, 1, 20, 20])
    m.apply(f"move:{yeti}:r5c7")
    assert m.blue[0] == 1
    assert m.portals == {"p0": (1, 1)}
    assert m.orbs == {"Chaos Orb": (20, 20)} and m.orb_deck[-1] == "Leather Orb"
    assert m.creatures[yeti].done and chance(m).remaining == 0


def test_1_6_2_a_throw_and_catch_with_tribal_bonus() -> None:
    """1.6.2 a: d20 <= T + C (+4 when both share a colour) is a catch; the thrower's turn is over."""
    # Yeti T 7 + Fire Giant C 4 + 4 (both purple) = 15: a roll of 15 is caught.
    m, (yeti, giant) = build([("Yeti", 0, (5, 5)), ("Fire Giant", 0, (5, 9))], carry={0: "Leather Orb"}, dice=[15])
    m.apply(f"throw:{yeti}:{giant}")
    assert m.creatures[giant].orb == "Leather Orb" and m.creatures[yeti].done
    assert events(m, "catch_roll")[0].data["total"] == 15


def test_1_6_2_a_failed_catch_is_a_loose_orb_from_the_receiver() -> None:
    """1.6.2 a: a dropped catch takes a loose-orb (d8) roll from the receiver's square."""
    # Yeti T 7 + Skeleton C 2, different colours: 9. A 10 drops; d8 2 from seat 0 is one square up.
    m, (yeti, skel) = build([("Yeti", 0, (5, 5)), ("Skeleton", 0, (5, 9))], carry={0: "Leather Orb"}, dice=[10, 2])
    m.apply(f"throw:{yeti}:{skel}")
    assert m.orbs["Leather Orb"] == (4, 9) and m.creatures[skel].orb is None


def test_1_6_2_a_receiver_that_moved_cannot_move_after_the_catch() -> None:
    """1.6.2 a: a receiver that moved to get in range cannot move or throw after receiving."""
    m, (yeti, giant) = build([("Yeti", 0, (5, 5)), ("Fire Giant", 0, (5, 14))], carry={0: "Leather Orb"}, dice=[1])
    m.apply(f"move:{giant}:r5c12")
    m.apply(f"throw:{yeti}:{giant}")
    assert m.creatures[giant].orb == "Leather Orb" and m.creatures[giant].done


def test_1_6_2_a_receiver_that_has_not_moved_may_move_and_throw() -> None:
    """1.6.2 a: a receiver that has not moved acts as though it started its turn with the orb."""
    m, (yeti, giant) = build([("Yeti", 0, (5, 5)), ("Fire Giant", 0, (5, 9))], carry={0: "Leather Orb"}, dice=[1])
    m.apply(f"throw:{yeti}:{giant}")
    assert _moves(m, giant)


def test_1_6_2_b_handoff_needs_no_roll_and_ends_the_carriers_turn() -> None:
    """1.6.2 b: a handoff to an adjacent teammate needs no roll; the giver's turn ends."""
    m, (yeti, giant) = build([("Yeti", 0, (5, 5)), ("Fire Giant", 0, (5, 6))], carry={0: "Leather Orb"})
    m.apply(f"handoff:{yeti}:{giant}")
    assert m.creatures[giant].orb == "Leather Orb" and m.creatures[yeti].done
    assert chance(m).remaining == 0


def test_1_6_2_carrier_cannot_throw_to_an_opponent_or_an_empty_square() -> None:
    """1.6.2: no throw to the opposing team (except the Killer Orb) and no intentional grounding."""
    m, (_yeti, _) = build([("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 7))], carry={0: "Leather Orb"})
    assert not [o for o in option_ids(m) if o.startswith(("throw", "handoff"))]


def test_1_6_2_c_throw_into_a_portal_needs_T_plus_2() -> None:
    """1.6.2 c: a throw at a portal in range scores on d20 <= T + 2."""
    m, (yeti,) = build([("Yeti", 0, (5, 5))], carry={0: "Leather Orb"}, portals={"p0": (5, 10)}, dice=[9, 1, 1, 20, 20])
    m.apply(f"shoot:{yeti}:p0")
    assert m.blue[0] == 1
    m2, (yeti2,) = build([("Yeti", 0, (5, 5))], carry={0: "Leather Orb"}, portals={"p0": (5, 10)}, dice=[10, 7])
    m2.apply(f"shoot:{yeti2}:p0")
    assert m2.blue[0] == 0
    assert m2.orbs["Leather Orb"] == (6, 10), "a miss is a loose orb from the portal (d8 7: one square down)"


def test_b6_loose_orb_d8_layout_is_seen_from_the_rollers_edge() -> None:
    """B6: 1 is up-left and 8 down-right from the rolling player's point of view."""
    assert d8_offset(0, 1) == (-1, -1) and d8_offset(0, 8) == (1, 1) and d8_offset(0, 2) == (-1, 0)
    assert d8_offset(1, 1) == (1, 1), "the player across the table sees the board turned round"


def test_1_6_2_loose_orb_rerolls_off_the_arena() -> None:
    """1.6.2: a loose orb that would leave the Arena is rolled again from the same square."""
    m, (yeti, skel) = build([("Yeti", 0, (1, 5)), ("Skeleton", 0, (1, 9))], carry={0: "Leather Orb"}, dice=[20, 2, 7])
    m.apply(f"throw:{yeti}:{skel}")
    assert m.orbs["Leather Orb"] == (2, 9)


def test_1_6_2_loose_orb_onto_a_portal_scores_for_the_last_controller() -> None:
    """1.6.2 c: a loose orb landing in a portal is a goal for the player who last controlled it this turn."""
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 0, (5, 9))],
        carry={0: "Leather Orb"},
        portals={"p0": (4, 9)},
        dice=[20, 2, 1, 1, 20, 20],
    )
    m.apply(f"throw:{yeti}:{skel}")
    assert m.blue[0] == 1
