"""Out-of-turn play as written (issue 13, finding 1): Dispel "at any time", Fumble "during any player's
turn", team enchantments "as soon as they are drawn", and windows that reveal nothing about a hand.

Seed 2.3: "Dispel (Played Event): Not an instant event. You may play this at any time. Remove any creature
or team enchantment from the game, cancel the effects of an Instant Event before it occurs, or cancel the
effect of another Dispel card." and "Fumble (Played Event): Not an instant event. You may play this during
any player's turn. If played during opponent's turn, it must be before a carrier moves, after a carrier
completes its move, as a creature gains possession of an orb, or before an attempted throw."
Seed 1.5.2: "Team enchantments can be put into play as soon as they are drawn, whether or not the player
controls a creature."
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.core.bots import RandomPolicy
from referee.core.chance import SeededChance
from referee.core.ids import Seat
from referee.games.scrumbrawl import ScrumBrawl
from referee.games.scrumbrawl.engine import SBMatch
from tests.games.scrumbrawl.helpers import build, card, chance, events, option_ids


def _answer_all_pass(m: SBMatch, until_kind: str) -> list[tuple[int, str, str | None]]:
    """Answers "pass" to every window until a decision of ``until_kind``; returns the windows seen."""
    seen: list[tuple[int, str, str | None]] = []
    while (d := m.to_move()) is not None and d.kind != until_kind:
        assert "pass" in option_ids(m), f"{d.kind} has no pass: {option_ids(m)}"
        seen.append((int(d.seat), d.kind, d.window))
        m.apply("pass")
    return seen


def test_2_3_raging_valor_then_an_attack_can_be_dispelled_before_the_dice() -> None:
    """2.3 Dispel "at any time": the opponent waits until the attack is declared, then removes Raging Valor
    before the attack dice; the attack is rolled with the Yeti's printed A 5, not 5 + 3."""
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))],
        hands={0: ["Raging Valor"], 1: ["Dispel"]},
        phase="place",
        dice=[10, 10],
    )
    rv = card(m, 0, "Raging Valor")
    m.apply(f"enchant:{rv}:{yeti}")
    d = m.to_move()
    assert d is not None and d.kind == "dispel_window" and d.seat == 1, "a window right after the card is played"
    m.apply("pass")  # seat 1 waits to see whether the Yeti attacks
    m.apply("end")
    m.apply(f"attack:{yeti}:{skel}")
    d = m.to_move()
    assert d is not None and d.kind == "dispel_window" and d.seat == 1 and d.window is not None
    m.apply(f"dispel:{card(m, 1, 'Dispel')}:{rv}")
    strike = events(m, "strike")[0].data
    assert strike["attack_total"] == 10 + 5, "Raging Valor was gone before the attack resolved"
    assert m.creatures[yeti].enchant is None and chance(m).remaining == 0


def _raging_valor_attack(seat1_hand: list[str]) -> list[tuple[int, str, str | None]]:
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))],
        hands={0: ["Raging Valor"], 1: seat1_hand},
        phase="place",
        dice=[10, 10],
        auto_pass=False,
    )
    m.apply(f"enchant:{card(m, 0, 'Raging Valor')}:{yeti}")
    seen = _answer_all_pass(m, "place")
    m.apply("end")
    m.apply(f"attack:{yeti}:{skel}")
    seen += _answer_all_pass(m, "act")
    return seen


def test_a_window_is_offered_whatever_the_seat_holds() -> None:
    """Being asked reveals nothing: the same seats are asked the same windows whether seat 1 holds Dispel
    and Fumble or two Trolls (with "pass" always an option)."""
    holding = _raging_valor_attack(["Dispel", "Fumble"])
    empty = _raging_valor_attack(["Troll", "Troll"])
    assert holding == empty
    kinds = {(seat, kind) for seat, kind, _ in holding}
    assert (1, "dispel_window") in kinds and (0, "dispel_window") in kinds


def test_held_window_answers_do_not_change_what_the_next_seat_sees() -> None:
    """Decision.window: in one window, a seat's options and observation do not depend on an earlier seat's
    answer (answers are held until the window closes), so the seats may be asked in parallel."""

    def second_seat_view(first_answer: str) -> tuple[Any, ...]:
        m, (yeti, skel, _troll) = build(
            [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6)), ("Troll", 2, (9, 9))],
            seats=3,
            hands={0: ["Troll"], 1: ["Dispel"], 2: ["Dispel"]},
            enchant={0: "Raging Valor"},
            dice=[10, 10],
            auto_pass=False,
        )
        m.apply(f"attack:{yeti}:{skel}")
        first = m.to_move()
        assert first is not None and first.seat == 0 and first.kind == "dispel_window"
        m.apply("pass")
        d = m.to_move()
        assert d is not None and d.seat == 1 and d.window == first.window
        before = len(m.events())
        m.apply(
            first_answer if first_answer == "pass" else f"dispel:{card(m, 1, 'Dispel')}:{m.creatures[yeti].enchant}"
        )
        assert len(m.events()) == before, "an answer in a window takes effect only when the window closes"
        d2 = m.to_move()
        assert d2 is not None and d2.seat == 2 and d2.window == first.window
        return (d2, option_ids(m), m.observe(Seat(2)))

    assert second_seat_view("pass") == second_seat_view("dispel")


def test_held_window_resolves_the_first_answer_in_seat_order_and_the_others_keep_their_cards() -> None:
    """When two seats Dispel the same enchantment in one window, the first in turn order plays; the other
    keeps its Dispel (nothing is lost) and is asked again."""
    m, (yeti, skel, _troll) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6)), ("Troll", 2, (9, 9))],
        seats=3,
        hands={1: ["Dispel"], 2: ["Dispel"]},
        enchant={0: "Raging Valor"},
        dice=[10, 10],
    )
    rv = m.creatures[yeti].enchant
    m.apply(f"attack:{yeti}:{skel}")
    m.apply(f"dispel:{card(m, 1, 'Dispel')}:{rv}")
    m.apply(f"dispel:{card(m, 2, 'Dispel')}:{rv}")
    plays = [e for e in events(m, "play") if e.data["name"] == "Dispel"]
    assert [e.data["seat"] for e in plays] == [1]
    assert [m.card_names[k] for k in m.hands[2]] == ["Dispel"], "seat 2 keeps its card"
    d = m.to_move()
    assert d is not None and d.seat == 2 and d.kind == "dispel", "seat 2 may now answer seat 1's Dispel"


def test_2_3_fumble_in_2v2_opponents_get_the_carrier_moments_not_the_teammate() -> None:
    """2.3 Fumble "If played during opponent's turn, it must be before a carrier moves ...": the carrier
    moments are asked of the opponents (seats 1 and 3); a teammate's turn is not an opponent's turn."""
    m, (yeti,) = build(
        [("Yeti", 0, (5, 5))],
        seats=4,
        config={"teams": True},
        carry={0: "Leather Orb"},
        hands={1: ["Fumble"], 2: ["Fumble"], 3: ["Fumble"]},
        dice=[8],
        auto_pass=False,
    )
    m.apply(f"move:{yeti}:r5c8")
    asked = []
    while (d := m.to_move()) is not None and d.kind == "fumble_window":
        asked.append(int(d.seat))
        m.apply("pass")
    assert asked == [1, 3, 1, 3], "before the move and after it, each time seats 1 and 3, never seat 2"


def test_2_3_fumble_teammate_may_play_it_at_any_time_in_its_teammates_turn() -> None:
    """2.3 Fumble "during any player's turn": on a teammate's turn it is not limited to the opponent's
    moments; here the teammate (seat 2) fumbles an enemy carrier before its teammate's attack resolves. Seat 2
    plays the card, so it rolls the d8 from its (left) edge: 8 is (1, -1) on the board."""
    m, (yeti, skel, _mate) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6)), ("Troll", 2, (12, 12))],
        seats=4,
        config={"teams": True},
        carry={1: "Leather Orb"},
        hands={2: ["Fumble"]},
        dice=[8, 1, 10],
    )
    m.apply(f"attack:{yeti}:{skel}")
    d = m.to_move()
    assert d is not None and d.kind == "dispel_window" and d.seat == 2
    m.apply(f"fumble:{card(m, 2, 'Fumble')}:{skel}")
    assert m.creatures[skel].orb is None and m.orbs["Leather Orb"] == (6, 5)
    assert events(m, "strike") and chance(m).remaining == 0


def test_2_3_fumble_on_own_turn_also_in_the_place_phase() -> None:
    """2.3 Fumble "during any player's turn": on its own turn a player may Fumble in the place phases too."""
    m, (_yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (9, 9))],
        carry={1: "Leather Orb"},
        hands={0: ["Fumble"]},
        phase="place",
        dice=[2],
    )
    m.apply(f"fumble:{card(m, 0, 'Fumble')}:{skel}")
    assert m.orbs["Leather Orb"] == (8, 9)


def test_1_5_2_team_enchantment_dealt_by_gypsy_bazaar_is_played_at_once_on_anothers_turn() -> None:
    """1.5.2: "Team enchantments can be put into play as soon as they are drawn": seat 1, dealt Bloodlust by
    a Gypsy Bazaar on seat 0's turn, plays it at once."""
    m, _ = build(
        hands={0: ["Troll"], 1: ["Troll"]},
        deck=["Gypsy Bazaar", "Troll", "Troll", "Troll", "Bloodlust", "Troll", "Troll", "Troll"],
        phase="draw",
    )
    d = m.to_move()
    assert d is not None and d.kind == "team_window" and d.seat == 1
    bloodlust = card(m, 1, "Bloodlust")
    m.apply(f"team:{bloodlust}")
    assert m.team_ench[1] == [bloodlust]


def test_2_3_instant_event_dispel_window_is_offered_to_every_seat() -> None:
    """2.3 Dispel cancels "the effects of an Instant Event before it occurs": every seat is asked, with only
    "pass" when it holds no Dispel, so the question says nothing about its hand."""
    m, _ = build(
        [("Yeti", 0, (5, 5))],
        deck=["Hailstorm", "Troll", "Troll", "Troll", "Troll"],
        phase="draw",
        auto_pass=False,
    )
    seen = _answer_all_pass(m, "place")
    assert (0, "dispel", seen[1][2]) in seen and (1, "dispel", seen[1][2]) in seen


def test_2_1_revenant_window_is_offered_whatever_the_victim_holds() -> None:
    """2.1 Revenant "can only be played when a creature you control is killed in combat": the victim's
    player is asked when it has a free stand, holding the Revenant or not."""
    m, (cent, skel) = build(
        [("Centipede", 0, (5, 5)), ("Skeleton", 1, (5, 6))], hands={1: ["Troll"]}, dice=[19, 1], auto_pass=False
    )
    m.apply(f"attack:{cent}:{skel}")
    while (d := m.to_move()) is not None and d.kind == "alter_reality":
        m.apply("pass")  # the Alter Reality window after the attack dice (1.5.3)
    assert d is not None and d.kind == "revenant" and d.seat == 1 and option_ids(m) == ["pass"]


@pytest.mark.parametrize(("seats", "config"), [(3, {"max_rounds": 3}), (4, {"teams": True, "max_rounds": 3})])
def test_held_window_guarantee_over_random_games(seats: int, config: dict[str, Any]) -> None:
    """docs/engine.md, Decision.window: the decisions of one window are consecutive, for distinct seats, and
    nothing happens (no event, no observation changes) until the last seat has answered."""
    game = ScrumBrawl()
    cfg = game.parse_config(config, seats)
    windows = 0
    for seed in range(2):
        m = game.new_match(cfg, seats, SeededChance(seed))
        policy = RandomPolicy(seed)
        closed: set[str] = set()
        current: str | None = None
        asked: list[int] = []
        frozen: tuple[int, list[Any]] | None = None
        while (d := m.to_move()) is not None:
            if d.window != current:
                if current is not None:
                    closed.add(current)
                assert d.window not in closed, f"window {d.window} reopened after other decisions"
                current, asked = d.window, []
                frozen = None
                if d.window is not None:
                    windows += 1
                    frozen = (len(m.events()), [m.observe(Seat(s)) for s in range(seats)])
            if frozen is not None:
                assert int(d.seat) not in asked, "a seat asked twice in one window"
                assert len(m.events()) == frozen[0], "an answer took effect before the window closed"
                assert [m.observe(Seat(s)) for s in range(seats)] == frozen[1]
                asked.append(int(d.seat))
            m.apply(policy.choose(d, m.observe(d.seat), m.legal_options()))
    assert windows > 10, "the games opened too few windows for the check to mean anything"


def test_a_pending_window_is_the_same_whatever_the_hidden_hands() -> None:
    """Being asked reveals nothing, checked on real games: whenever a held window is pending, re-dealing
    every hand hidden from any viewer leaves the pending decision (seat, kind, window id) unchanged."""
    game = ScrumBrawl()
    cfg = game.parse_config({"teams": True, "max_rounds": 3}, 4)
    checked = 0
    for seed in range(2):
        m = game.new_match(cfg, 4, SeededChance(seed))
        policy = RandomPolicy(seed)
        step = 0
        while (d := m.to_move()) is not None:
            step += 1
            if d.window is not None and step % 3 == 0:
                for viewer in range(4):
                    other = m.determinize(Seat(viewer), SeededChance(seed * 1000 + step + viewer))
                    assert other.to_move() == d
                checked += 1
            m.apply(policy.choose(d, m.observe(d.seat), m.legal_options()))
    assert checked > 5


# -- Alter Reality (1.5.3) -----------------------------------------------------------------------
# Seed 1.5.3: "Alter Reality cards can be played at any time immediately following a die roll to change the
# value rolled by up to the value of the card."


def _attack_windows(seat1_hand: list[str]) -> list[tuple[int, str, str | None, tuple[str, ...]]]:
    """Seat 0's Yeti attacks (dice 10, 10); every window up to the next act decision, all answered "pass"."""
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))],
        hands={0: ["Troll"], 1: seat1_hand},
        dice=[10, 10],
        auto_pass=False,
    )
    m.apply(f"attack:{yeti}:{skel}")
    seen = []
    while (d := m.to_move()) is not None and d.kind != "act":
        assert "pass" in option_ids(m)
        # Seat 0's options are its own; seat 1's depend on its hand, which is what the test varies.
        seen.append((int(d.seat), d.kind, d.window, tuple(option_ids(m)) if d.seat == 0 else ()))
        m.apply("pass")
    assert chance(m).remaining == 0
    return seen


def test_1_5_3_alter_reality_window_is_offered_to_every_seat_whatever_it_holds() -> None:
    """1.5.3 "at any time immediately following a die roll": after the attack dice every live seat is asked,
    clockwise from the active player, in one held window, whether seat 1 holds an Alter Reality card or not."""
    holding = _attack_windows(["Alter Reality 3"])
    empty = _attack_windows(["Troll"])
    assert holding == empty
    alter = [(seat, window) for seat, kind, window, _ in holding if kind == "alter_reality"]
    assert [seat for seat, _ in alter] == [0, 1], "both seats, the active player first"
    assert alter[0][1] is not None and alter[0][1] == alter[1][1], "one window: one id"


def test_1_5_3_alter_reality_answers_are_held_and_the_first_in_seat_order_plays() -> None:
    """1.5.3: two seats alter the same attack die in one window; the first clockwise from the active player plays,
    the other keeps its card and the window reopens from the next seat, so it may answer the new value."""
    m, (yeti, skel, _troll) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6)), ("Troll", 2, (9, 9))],
        seats=3,
        hands={0: ["Troll"], 1: ["Alter Reality 2"], 2: ["Alter Reality 3"]},
        dice=[10, 10],
        auto_pass=False,
    )
    m.apply(f"attack:{yeti}:{skel}")
    first = m.to_move()
    assert first is not None and first.kind == "alter_reality" and first.seat == 0
    assert option_ids(m) == ["pass"], "seat 0 holds no Alter Reality card: pass is its only option"
    m.apply("pass")
    a1, a3 = card(m, 1, "Alter Reality 2"), card(m, 2, "Alter Reality 3")
    m.apply(f"alter:{a1}:0:+2")
    d = m.to_move()
    assert d is not None and d.seat == 2 and d.window == first.window
    assert f"alter:{a3}:0:-3" in option_ids(m), "seat 2 sees the roll as rolled: the answer before it is held"
    m.apply(f"alter:{a3}:0:-3")
    assert [e.data["seat"] for e in events(m, "alter")] == [1], "the first answer in seat order plays"
    assert events(m, "alter")[0].data["dice"] == [12, 10]
    assert [m.card_names[k] for k in m.hands[2]] == ["Alter Reality 3"], "seat 2 keeps its card"
    reopened = m.to_move()
    assert reopened is not None and reopened.kind == "alter_reality" and reopened.window != first.window
    assert reopened.seat == 2, "the window reopens clockwise from the seat after the player"
    m.apply(f"alter:{a3}:0:-3")
    m.apply("pass")  # seat 0
    m.apply("pass")  # seat 1, now without a card
    again = m.to_move()
    assert again is not None and again.kind == "alter_reality" and again.seat == 0, "it reopens after every card"
    while (d := m.to_move()) is not None and d.kind != "act":
        m.apply("pass")
    strike = events(m, "strike")[0].data
    assert [e.data["dice"] for e in events(m, "alter")] == [[12, 10], [9, 10]]
    assert strike["attack_total"] == 9 + 5, "10 + 2 - 3 on the attack die, with the Yeti's A 5"


def test_1_5_3_no_alter_reality_window_when_no_card_can_be_held() -> None:
    """1.8 "Remove Alter Reality cards ... to simplify the game": with none in the deck (a public fact) no seat is
    asked after a roll."""
    m, (yeti, skel) = build(
        [("Yeti", 0, (5, 5)), ("Skeleton", 1, (5, 6))],
        config={"simple_remove_alter_reality": True},
        dice=[10, 10],
        auto_pass=False,
    )
    m.apply(f"attack:{yeti}:{skel}")
    while (d := m.to_move()) is not None and d.kind != "act":
        assert d.kind != "alter_reality"
        m.apply("pass")
    assert events(m, "strike") and chance(m).remaining == 0


@pytest.mark.parametrize(("seats", "config"), [(2, {"max_rounds": 3}), (4, {"teams": True, "max_rounds": 2})])
def test_a_pending_alter_reality_window_is_the_same_whatever_the_hidden_hands(
    seats: int, config: dict[str, Any]
) -> None:
    """Being asked to alter a roll reveals nothing, checked on real games: whenever an Alter Reality window is
    pending, re-dealing every hand hidden from any viewer leaves the whole window (its seats, kind, id, and
    the options of the viewer's own seat) unchanged."""
    game = ScrumBrawl()
    cfg = game.parse_config(config, seats)
    checked = 0
    for seed in range(2):
        m = game.new_match(cfg, seats, SeededChance(seed))
        policy = RandomPolicy(seed)
        step = 0
        while (d := m.to_move()) is not None:
            step += 1
            if d.kind == "alter_reality" and step % 2 == 0:
                window = m.window_decisions()
                # The seats still to answer: a clockwise run of live seats (every one, whatever it holds).
                live = m.order_from(int(d.seat))
                assert [int(dec.seat) for dec, _ in window] == live[: len(window)]
                assert all(dec.kind == "alter_reality" and dec.window == d.window for dec, _ in window)
                for viewer in range(seats):
                    other = m.determinize(Seat(viewer), SeededChance(seed * 1000 + step + viewer))
                    theirs = other.window_decisions()
                    assert [dec for dec, _ in theirs] == [dec for dec, _ in window]
                    mine = [opts for dec, opts in window if int(dec.seat) == viewer]
                    assert mine == [opts for dec, opts in theirs if int(dec.seat) == viewer]
                checked += 1
            m.apply(policy.choose(d, m.observe(d.seat), m.legal_options()))
    assert checked > 5


def test_1_5_2_team_enchantment_may_be_played_before_a_first_turn_redraw_discards_it() -> None:
    """1.5.2 "Team enchantments can be put into play as soon as they are drawn": a first-turn hand with no creature
    may be redrawn (1.2, "discard all cards and draw four new cards"), and the team enchantment drawn in it is
    played first instead of being discarded."""
    no_creature = ["Fumble", "Dispel", "Bloodlust", "Morphous Armor", "Yeti", "Troll", "Lich", "Skeleton"]
    m, _ = build(deck=no_creature, phase="draw", first_turn=True, auto_pass=False)
    d = m.to_move()
    assert d is not None and d.kind == "team_window" and d.seat == 0 and d.window is not None
    sin = card(m, 0, "Bloodlust")
    m.apply(f"team:{sin}")
    assert m.team_ench[0] == [sin]
    while (d := m.to_move()) is not None and d.kind == "team_window":
        m.apply("pass")
    assert d is not None and d.kind == "redraw"
    m.apply("redraw")
    assert sin not in m.discard and m.team_ench[0] == [sin], "played, not discarded by the redraw"
