"""The 4-player team variant, Super Team Tornado (rules-facts A4).

Two teams of two seats (team = seat % 2), 2 champions each, hands of 4, 7 VP for the team,
turns alternate teams, the track moves two slots and draws two cards, teammates' champions
count as your own for challenges and reactions.
"""

from __future__ import annotations

from referee.core import Seat, SeededChance
from referee.games.superfantasybrawl import SuperFantasyBrawl
from tests.games.superfantasybrawl.helpers import build, events, ids, play

GAME = SuperFantasyBrawl()
TEAMS = {
    "selection": "fixed",
    "teams": [["brannoc", "quill"], ["tavi", "oska"], ["gloam", "wren"], ["greta", "korrin"]],
}


def test_four_players_two_champions_each_hands_of_four_and_seven_vp() -> None:
    """A4: each player controls 2 champions, hand size 4, a team wins on 7 VP combined."""
    m = GAME.new_match(TEAMS, 4, SeededChance(2))
    while m.to_move().kind != "mulligan":  # type: ignore[union-attr]
        play(m, ids(m)[0])
    assert len(ids(m)) == 16  # subsets of a 4-card hand
    assert m.vp_to_win == 7 and m.hand_size == 4
    assert sorted(c.seat for c in m.champs.values()) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert len(m.traps) == 4


def test_turn_order_alternates_teams() -> None:
    """A4: seats 1 -> 2 -> 3 -> 4, so the teams alternate."""
    m = GAME.new_match(TEAMS, 4, SeededChance(4))
    order = m.order_from(m.first)
    assert [s % 2 for s in order] in ([0, 1, 0, 1], [1, 0, 1, 0])


def test_the_track_advances_two_slots_and_draws_two_challenges() -> None:
    """A4: each advance moves every challenge two slots right and draws two new ones."""
    champs = {"brannoc": {"seat": 0, "hex": (0, -4)}, "tavi": {"seat": 1, "hex": (-4, 4)}}
    m = build(
        champs,
        seats=4,
        active=3,
        first=0,
        track=["ch01", "ch02", "ch03", None, None, "ch04"],
        challenge_deck=["ch05", "ch06"],
        config={"round_cap": 15},
    )
    # Seat 3 (the last in turn order) has nothing to do, so its turn ends at once and the round closes.
    advanced = events(m, "track_advanced")[-1]["challenges"]
    assert advanced == ["ch06", "ch05", "ch01", "ch02", "ch03", ""]
    assert "ch04" in m.ch_discard


def test_teammates_champions_count_as_your_own_for_challenges() -> None:
    """A4: when checking challenge conditions, the teammate's champions count as the player's own."""
    champs = {
        "brannoc": {"seat": 0, "hex": (-2, -1)},
        "gloam": {"seat": 2, "hex": (-4, 0)},
        "tavi": {"seat": 1, "hex": (-3, 1)},
    }
    m = build(champs, seats=4, track=[None, None, "ch01", None, None, None], start="turn", round=2)
    assert m.vp == [1, 0]


def test_reaction_window_passes_to_the_teammate_and_may_protect_a_teammates_champion() -> None:
    """A4/A12: in an opponent's turn a player may play a reaction on a teammate's champion; still one per attack."""
    champs = {
        "oska": {"seat": 0, "hex": (-1, -1)},
        "tavi": {"seat": 1, "hex": (-1, -2)},
        "greta": {"seat": 3, "hex": (0, -1)},
    }
    m = build(champs, seats=4, hands=[["osk2"], ["tav6"], [], ["gre6"]])
    play(m, "card:osk2", "aoe:0")
    d = m.to_move()
    assert d is not None and d.seat == 1 and ids(m) == ["react:tav6:tavi", "react:tav6:greta", "react:pass"]
    play(m, "react:pass")
    d = m.to_move()
    assert d is not None and d.seat == 3
    play(m, "react:gre6:tavi")
    assert m.to_move().kind == "main"  # type: ignore[union-attr]
    assert m.champs["tavi"].damage == 0  # 2 - (1 + 1)


def test_a_team_wins_together() -> None:
    """A4: the team wins or loses together."""
    champs = {"brannoc": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (1, -1), "damage": 4}}
    m = build(champs, seats=4, hands=[["bra4"], [], [], []], vp=[6, 0])
    play(m, "card:bra4", "move:stay", "target:tavi")
    out = m.outcome()
    assert out is not None and out.winners == (Seat(0), Seat(2))
