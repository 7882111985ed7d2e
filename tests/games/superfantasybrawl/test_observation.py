"""Hidden information: what each seat sees, and re-dealing what it cannot (rules-facts A5 'Hidden and open').

Hands are hidden, discard piles public, both champion sides public; deck orders, the challenge
deck and face-down traps are hidden from everyone.
"""

from __future__ import annotations

from referee.core import ScriptedChance, Seat, SeededChance
from referee.games.superfantasybrawl.challenges import met
from referee.games.superfantasybrawl.hexes import between, row_direction
from tests.games.superfantasybrawl.helpers import build, play

CHAMPS = {"wren": {"seat": 0, "hex": (0, -2)}, "tavi": {"seat": 1, "hex": (-4, 4)}}
HANDS = [["wre3", "wre1", "wre4"], ["tav1", "tav2"]]
DECKS = [["wre5", "wre6", "wre2"], ["tav3", "tav4", "tav5", "tav6"]]


def test_each_seat_sees_only_its_own_hand_and_a_spectator_none() -> None:
    """A5: hands are hidden information; discards and hand sizes are public."""
    m = build(CHAMPS, hands=HANDS, decks=DECKS, discards=[["wre2"], []])
    assert m.observe(Seat(0))["hand"] == ["wre1", "wre3", "wre4"]
    assert m.observe(Seat(1))["hand"] == ["tav1", "tav2"]
    assert m.observe(None)["hand"] == []
    assert m.observe(None)["players"][0]["discard"] == ["wre2"]
    assert [p["hand_size"] for p in m.observe(None)["players"]] == [3, 2]


def test_determinize_keeps_what_the_viewer_sees_and_redeals_the_rest() -> None:
    """determinize: the viewer's hand and planned top cards stay; other hands, decks and traps are re-dealt."""
    m = build(CHAMPS, hands=HANDS, decks=DECKS, traps={(1, -2): ("damage", 1), (3, -2): ("root", 0)})
    play(m, "card:wre3", "move:stay", "skill:use", "plan:wre1", "plan:stop")
    changed_hand = changed_traps = False
    for salt in range(20):
        other = m.determinize(Seat(0), SeededChance(salt))
        assert other.observe(Seat(0)) == m.observe(Seat(0))
        assert other.decks[0][-1] == "wre1"  # Wren's player knows the card it planned on top
        assert sorted(other.hands[1] + other.decks[1]) == sorted(m.hands[1] + m.decks[1])
        changed_hand |= other.hands[1] != m.hands[1]
        changed_traps |= other.traps != m.traps
    assert changed_hand and changed_traps


def test_a_statue_challenge_needs_adjacency_only() -> None:
    """FAQ A16.7: a challenge asking for champions adjacent to a statue is met by any adjacent hex."""
    m = build(
        {
            "brannoc": {"seat": 0, "hex": (1, -1)},
            "quill": {"seat": 0, "hex": (-1, 1)},
            "tavi": {"seat": 1, "hex": (-4, 4)},
        },
        chance=ScriptedChance(),
    )
    assert met(m, 0, "ch05")


def test_a_hex_row_is_a_continuous_straight_line() -> None:
    """FAQ A16.8: a hex row is a straight, unbroken line of adjacent hexes along one of three axes."""
    assert row_direction((0, 0), (3, 0)) == 0
    assert row_direction((0, 0), (0, -2)) == 2
    assert row_direction((0, 0), (2, -2)) == 1
    assert row_direction((0, 0), (2, -1)) is None
    assert between((-2, 0), (2, 0)) == [(-1, 0), (0, 0), (1, 0)]


def test_a_hand_revealed_by_stun_stays_known_in_the_redeal() -> None:
    """Stun (A15) reveals the hand when it holds no card of that champion; a re-deal keeps those cards."""
    m = build(
        {"greta": {"seat": 0, "hex": (0, -1)}, "tavi": {"seat": 1, "hex": (1, -1)}},
        hands=[["gre2"], ["osk1", "osk2"]],
        decks=[[], ["tav1", "tav2", "tav3"]],
    )
    play(m, "card:gre2", "move:stay", "target:tavi", "post:apply")
    for salt in range(5):
        other = m.determinize(Seat(0), SeededChance(salt))
        assert sorted(other.hands[1]) == ["osk1", "osk2"]
