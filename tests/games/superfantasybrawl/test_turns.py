"""Rounds, turns, cores, standard actions, upkeep, the challenge track and the end of the match.

Sources: rules-facts A5 (round and turn structure, winning), A6 (cores and standard actions),
A8 (challenge track); seed-ja 'ラウンド' and 'スコアボードフェイズ'; seed-it 'Round di gioco'.
"""

from __future__ import annotations

from referee.core import Seat, Termination
from tests.games.superfantasybrawl.helpers import build, events, h, ids, play

TEAMS = {
    "brannoc": {"seat": 0, "hex": (0, -1)},
    "tavi": {"seat": 1, "hex": (1, -1)},
}


def test_playing_a_card_spends_the_core_of_its_colour() -> None:
    """A6: an action card uses the core of its colour; that core is exhausted until upkeep."""
    m = build(TEAMS, hands=[["bra1", "bra2"], []])
    assert "card:bra1" in ids(m) and "card:bra2" in ids(m)
    play(m, "card:bra1", "move:stay", "target:tavi")
    assert m.cores[0] == {"red": False, "yellow": True, "blue": True}
    assert "card:bra2" not in ids(m)  # the other red card has no core left
    assert not any(i.startswith("std:red") or i.endswith(":red") for i in ids(m))


def test_each_standard_action_once_per_activation_phase() -> None:
    """A6: the four standard actions, each at most once per activation phase, each costing a core."""
    m = build(TEAMS)
    assert {i.split(":")[1] for i in ids(m) if i.startswith("std:")} == {"blue", "yellow", "red", "move2"}
    play(m, "std:move2:brannoc:blue", "move:stay")
    left = ids(m)
    assert not any(i.startswith("std:move2") for i in left)
    assert not any(i.startswith("std:blue") for i in left)  # the blue core is spent
    assert "std:yellow:brannoc" in left and "std:red:brannoc" in left


def test_red_standard_action_deals_one_damage_ignoring_defence() -> None:
    """A6: red standard action, Move 1 and 1 damage to an adjacent Enemy (damage, so defence does not apply)."""
    m = build(TEAMS)
    play(m, "std:red:brannoc", "move:stay")
    assert ids(m) == ["strike:tavi", "strike:none"]
    play(m, "strike:tavi")
    assert m.champs["tavi"].damage == 1  # Tavi has defence 1


def test_yellow_and_blue_standard_actions_heal_and_plan() -> None:
    """A6: yellow Move 1 + Heal 1; blue Move 1 + Plan 1."""
    m = build({**TEAMS, "brannoc": {"seat": 0, "hex": (0, -1), "damage": 2}}, hands=[["bra3", "bra4"], []])
    play(m, "std:yellow:brannoc", "move:stay")
    assert m.champs["brannoc"].damage == 1
    play(m, "std:blue:brannoc", "move:stay", "plan:bra4")
    assert m.decks[0][-1] == "bra4" and m.hands[0] == ["bra3"]


def test_only_end_possible_offers_no_decision() -> None:
    """A window is offered only with something legal to do: no cores left, the turn passes on."""
    none = {"red": False, "yellow": False, "blue": False}
    m = build(TEAMS, cores=[none, {}], decks=[[], ["tav1", "tav2", "tav3", "tav4", "tav5"]])
    d = m.to_move()
    assert d is not None and d.seat == 1 and d.kind == "main"


def test_upkeep_readies_cores_discards_the_hand_and_draws_five_reshuffling_an_empty_deck() -> None:
    """A5 upkeep and seed-ja 'カードドロー': discard the hand, draw 5; an empty deck is the shuffled discard pile."""
    m = build(
        TEAMS,
        hands=[["bra1", "bra2"], []],
        decks=[["bra3", "bra4", "bra5"], []],
        discards=[["bra6"], []],
        cores=[{"red": False}, {}],
    )
    play(m, "end")
    assert sorted(m.hands[0]) == ["bra1", "bra2", "bra3", "bra4", "bra5"]
    assert m.discards[0] == [] and m.decks[0] == ["bra6"]
    assert all(m.cores[0].values())
    assert events(m, "deck_reshuffled") == [{"seat": 0, "count": 3}]


def test_a_core_spent_on_a_reaction_stays_exhausted_through_the_own_next_turn() -> None:
    """A5/A18.15: cores ready only in your own upkeep, so a reaction's core is gone in your next turn."""
    m = build(TEAMS, hands=[["bra4"], ["tav6"]], decks=[[], ["tav1", "tav2", "tav3", "tav4", "tav5"]])
    play(m, "card:bra4", "move:stay", "target:tavi", "react:tav6:tavi", "jump:stay", "end")
    d = m.to_move()
    assert d is not None and d.seat == 1
    assert m.cores[1]["yellow"] is False
    assert "card:tav4" not in ids(m)  # a yellow card cannot be played this turn
    play(m, "end")
    assert m.cores[1]["yellow"] is True


def test_challenges_are_scored_at_the_start_of_the_turn_for_the_slot_value_then_discarded() -> None:
    """A5 scoreboard and A8: a met challenge scores its slot's VP at the start of the turn and is discarded."""
    far = {"brannoc": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (2, -2)}}
    m = build(far, track=[None, "ch02", "ch05", None], start="turn", round=2)
    # Brannoc stands next to the yellow statue: controls the yellow ring, but one champion is not 2 for ch05.
    assert m.vp == [1, 0]
    assert m.track == [None, None, "ch05", None]
    assert m.ch_discard == ["ch02"]
    assert events(m, "challenge_scored")[0]["amount"] == 1


def test_challenges_cannot_be_scored_in_the_first_round() -> None:
    """A5: challenges cannot be scored in round 1."""
    m = build(TEAMS, track=[None, "ch02", None, None], start="turn", round=1)
    assert m.vp == [0, 0] and m.track[1] == "ch02"


def test_the_track_advances_one_slot_after_both_turns_and_draws_into_the_unscorable_slot() -> None:
    """A5 'Advance Challenge Track': every challenge moves right, the last falls off, a new one enters slot 0."""
    m = build(
        TEAMS,
        active=1,
        first=0,
        track=["ch01", "ch07", "ch03", "ch04"],
        challenge_deck=["ch05"],
    )
    play(m, "end")
    assert m.track == ["ch05", "ch01", "ch07", "ch03"] and m.vp == [0, 0]
    assert "ch04" in m.ch_discard
    assert events(m, "track_advanced")[-1]["challenges"] == ["ch05", "ch01", "ch07", "ch03"]


def test_first_to_five_vp_wins_at_once_mid_turn() -> None:
    """A5: the first player to reach 5 VP wins at once, even mid-turn."""
    m = build({**TEAMS, "tavi": {"seat": 1, "hex": (1, -1), "damage": 4}}, hands=[["bra4"], []], vp=[4, 0])
    play(m, "card:bra4", "move:stay", "target:tavi")
    out = m.outcome()
    assert out is not None and out.termination is Termination.VICTORY and out.winners == (Seat(0),)
    assert m.to_move() is None


def test_round_cap_ends_the_match_most_vp_wins_equal_vp_draws() -> None:
    """Documented round cap: after the last turn of round ``round_cap`` the match ends; more VP wins, else a draw."""
    m = build(TEAMS, active=1, round=3, vp=[1, 1], config={"round_cap": 3}, challenge_deck=["ch01"])
    play(m, "end")
    out = m.outcome()
    assert out is not None and out.termination is Termination.ROUND_CAP and out.is_draw
    m = build(TEAMS, active=1, round=3, vp=[2, 1], config={"round_cap": 3}, challenge_deck=["ch01"])
    play(m, "end")
    out = m.outcome()
    assert out is not None and out.winners == (Seat(0),) and out.termination is Termination.ROUND_CAP


def test_turn_passes_to_the_other_seat_and_root_ends_with_the_turn() -> None:
    """A5 turn order; FAQ A16.2: Root lasts until the end of the turn."""
    m = build({**TEAMS, "tavi": {"seat": 1, "hex": (1, -1), "rooted": True}})
    play(m, "end")
    assert m.active == 1 and not m.champs["tavi"].rooted
    assert h(1, -1) == "q1r-1"


def test_option_counts_in_a_named_position() -> None:
    """Counts (perft-style): the opening activation of a full team with a full hand and three ready cores."""
    champs = {
        "brannoc": {"seat": 0, "hex": (0, -4)},
        "quill": {"seat": 0, "hex": (1, -4)},
        "gloam": {"seat": 0, "hex": (2, -4)},
        "tavi": {"seat": 1, "hex": (-4, 4)},
    }
    m = build(champs, hands=[["bra1", "bra6", "qui2", "glo3", "glo5"], []])
    options = ids(m)
    expected = (
        ["card:bra1", "card:glo3", "card:glo5", "card:qui2"]  # the reaction bra6 is not offered
        + [f"std:{a}:{c}" for a in ("blue", "yellow", "red") for c in ("brannoc", "quill", "gloam")]
        + [f"std:move2:{c}:{k}" for k in ("red", "yellow", "blue") for c in ("brannoc", "quill", "gloam")]
        + ["end"]
    )
    assert sorted(options) == sorted(expected), sorted(set(options) ^ set(expected))
    assert len(options) == 23
    play(m, "card:bra1")
    moves = ids(m)
    # Brannoc on q0r-4 with Move 1: q-1r-3, q0r-3 and stay (allies on q1r-4 can be passed but not ended on).
    assert moves == ["move:stay", "move:q-1r-3", "move:q0r-3"], moves


def test_an_empty_seat_challenge_needs_an_enemy_out_of_action() -> None:
    """A8 'and others': challenge ch10 is met while an enemy champion waits on its Gate."""
    m = build(
        {"brannoc": {"seat": 0, "hex": (0, -4)}, "tavi": {"seat": 1, "hex": None}},
        track=[None, "ch10", None, None],
        start="turn",
        round=2,
    )
    assert m.vp == [1, 0]
