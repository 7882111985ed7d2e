"""Set-up, champion selection and content validation (rules-facts A2, A3, A7; seed-it 'Inizio gioco')."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest

from referee.core import ConfigError, ContentError, ScriptedChance, SeededChance
from referee.games.superfantasybrawl import SuperFantasyBrawl
from referee.games.superfantasybrawl.content import build_content
from referee.games.superfantasybrawl.game import CONTENT
from referee.games.superfantasybrawl.hexes import mirror
from tests.games.superfantasybrawl.helpers import events, ids, play

GAME = SuperFantasyBrawl()


def _files() -> dict[str, object]:
    base = resources.files("referee.games.superfantasybrawl").joinpath("data")
    return {
        n: json.loads(base.joinpath(n).read_text())
        for n in ("map.json", "champions.json", "challenges.json", "traps.json")
    }


def _fixed(seats: int = 2) -> dict[str, object]:
    if seats == 2:
        return {"selection": "fixed", "teams": [["brannoc", "quill", "gloam"], ["tavi", "oska", "greta"]]}
    return {
        "selection": "fixed",
        "teams": [["brannoc", "quill"], ["tavi", "oska"], ["gloam", "wren"], ["greta", "korrin"]],
    }


def test_first_player_is_random_and_chooses_the_deployment_area() -> None:
    """A2.1: the first player is picked at random and chooses a deployment area."""
    m = GAME.new_match(_fixed(), 2, ScriptedChance.of(1))
    assert events(m, "first_player") == [{"seat": 1}]
    d = m.to_move()
    assert d is not None and d.seat == 1 and d.kind == "side"
    play(m, "side:1")
    assert m.deploy_side == [0, 1]


def test_each_player_places_two_face_down_traps_leaving_two_empty_trap_hexes() -> None:
    """A2.6-7: the first player puts 2 traps on trap hexes of their choice, then the second 2; 4 traps, 2 empty."""
    m = GAME.new_match(_fixed(), 2, SeededChance(3))
    play(m, "side:0")
    seats = []
    while m.to_move() is not None and m.to_move().kind == "setup_trap":  # type: ignore[union-attr]
        seats.append(m.to_move().seat)  # type: ignore[union-attr]
        play(m, ids(m)[0])
    first = m.first
    assert seats == [first, first, 1 - first, 1 - first]
    assert len(m.traps) == 4
    assert len([h for h in m.trap_hexes if h not in m.traps]) == 2
    obs = m.observe(0)
    assert all(set(t) == {"hex", "has_trap"} for t in obs["trap_hexes"])  # what a token is stays hidden


def test_mulligan_is_one_redraw_and_the_redrawn_cards_go_back_into_the_deck() -> None:
    """A2.8-9: draw 5, put back any number, draw as many, then shuffle them back; first player first."""
    m = GAME.new_match(_fixed(), 2, SeededChance(5))
    play(m, "side:0")
    while m.to_move().kind == "setup_trap":  # type: ignore[union-attr]
        play(m, ids(m)[0])
    d = m.to_move()
    assert d is not None and d.kind == "mulligan" and d.seat == m.first
    assert len(ids(m)) == 32  # every subset of 5 cards
    seat = d.seat
    hand = sorted(m.hands[seat])
    play(m, f"mulligan:{hand[0]}+{hand[1]}")
    assert len(m.hands[seat]) == 5
    assert hand[2] in m.hands[seat] and hand[0] not in m.hands[seat]
    assert len(m.decks[seat]) == 13
    assert m.to_move().kind == "mulligan" and m.to_move().seat == 1 - seat  # type: ignore[union-attr]


def test_champions_deploy_in_their_own_area_first_player_first() -> None:
    """A2.10-11: the first player places all champions in their area, then the second player."""
    m = GAME.new_match(_fixed(), 2, SeededChance(9))
    play(m, "side:0")
    while m.to_move().kind != "deploy":  # type: ignore[union-attr]
        play(m, ids(m)[0])
    order = []
    while m.to_move().kind == "deploy":  # type: ignore[union-attr]
        order.append(m.to_move().seat)  # type: ignore[union-attr]
        play(m, ids(m)[-1])
    assert order == [m.first] * 3 + [1 - m.first] * 3
    for c in m.champs.values():
        area = CONTENT.arena.deployment[m.deploy_side[c.seat]]
        assert c.hex in area


def test_challenge_track_starts_with_one_card_in_the_unscorable_slot() -> None:
    """A2.4 (dized, followed over BGA): one challenge in the Cannot Be Scored slot at set-up."""
    m = GAME.new_match(_fixed(), 2, SeededChance(1))
    while m.to_move().kind != "mulligan":  # type: ignore[union-attr]
        play(m, ids(m)[0])
    assert m.track[0] is not None and m.track[1:] == [None, None, None]
    assert len(m.ch_deck) == 10


def test_casual_draft_second_player_picks_first_and_alternates() -> None:
    """A3: casual draft, shared pool, picks P2, P1, P2, P1, P2, P1."""
    m = GAME.new_match({"selection": "casual"}, 2, ScriptedChance.of(0))
    play(m, "side:0")
    seats = []
    while m.to_move().kind == "pick":  # type: ignore[union-attr]
        seats.append(m.to_move().seat)  # type: ignore[union-attr]
        play(m, ids(m)[0])
    assert seats == [1, 0, 1, 0, 1, 0]
    assert sorted(c.seat for c in m.champs.values()) == [0, 0, 0, 1, 1, 1]


def test_competitive_draft_bans_one_from_each_pool_then_picks_from_own_pool() -> None:
    """A3: own pools of 5; P1 bans one of P2's, P2 one of P1's; picks alternate from own pools, P1 first."""
    pools = [["brannoc", "quill", "gloam", "tavi", "oska"], ["greta", "wren", "korrin", "nyx", "durgan"]]
    m = GAME.new_match({"selection": "competitive", "pools": pools}, 2, ScriptedChance.of(0))
    play(m, "side:0")
    assert m.to_move().kind == "ban" and m.to_move().seat == 0  # type: ignore[union-attr]
    assert ids(m) == [f"ban:{c}" for c in pools[1]]
    play(m, "ban:greta")
    assert ids(m) == [f"ban:{c}" for c in pools[0]]
    play(m, "ban:brannoc")
    assert m.to_move().kind == "pick" and ids(m) == [f"pick:{c}" for c in pools[0][1:]]  # type: ignore[union-attr]
    seats = []
    while m.to_move().kind == "pick":  # type: ignore[union-attr]
        seats.append(m.to_move().seat)  # type: ignore[union-attr]
        play(m, ids(m)[0])
    assert seats == [0, 1, 0, 1, 0, 1]
    assert {c for c, s in m.champs.items() if s.seat == 1} == {"wren", "korrin", "nyx"}


def test_free_choice_each_seat_picks_its_team_with_no_duplicates() -> None:
    """A3 free choice: 3 champions each, one copy of each champion."""
    m = GAME.new_match({}, 2, ScriptedChance.of(0))
    play(m, "side:0")
    for _ in range(6):
        assert m.to_move().kind == "pick"  # type: ignore[union-attr]
        play(m, ids(m)[0])
    assert len(m.champs) == 6


@pytest.mark.parametrize(
    ("raw", "seats", "needle"),
    [
        ({}, 3, "2 or 4 seats"),
        ({"colour": 1}, 2, "unknown config fields"),
        ({"selection": "fixed", "teams": [["brannoc"], ["quill"]]}, 2, "exactly 3"),
        ({"selection": "fixed", "teams": [["a", "b", "c"], ["d", "e", "f"]]}, 2, "unknown champions"),
        ({"selection": "competitive"}, 4, "2 seats"),
        ({"round_cap": 0}, 2, "round_cap"),
    ],
)
def test_config_errors_name_the_field(raw: dict[str, object], seats: int, needle: str) -> None:
    """Config validation: a bad field raises ConfigError naming it."""
    with pytest.raises(ConfigError, match=needle):
        GAME.parse_config(raw, seats)


@pytest.mark.parametrize(
    ("file", "edit", "needle"),
    [
        ("champions.json", lambda d: d["champions"][0]["cards"].pop(), "exactly 6 cards"),
        ("champions.json", lambda d: d["champions"][0]["cards"][0].update(colour="green"), "colour"),
        (
            "champions.json",
            lambda d: d["champions"][0]["cards"][0]["post"].append({"kw": "teleport", "who": "self"}),
            "teleport",
        ),
        ("map.json", lambda d: d["trap_hexes"].pop(), "6 distinct trap hexes"),
        ("map.json", lambda d: d["statues"].pop(), "one statue per colour"),
        ("challenges.json", lambda d: d["cards"][0]["condition"].update(kind="be_nice"), "be_nice"),
        ("traps.json", lambda d: d["tokens"][0].update(kind="gold"), "gold"),
    ],
)
def test_content_is_validated_at_load_with_clear_errors(file: str, edit: object, needle: str) -> None:
    """Content as data: a broken file raises ContentError naming the file, item and field."""
    files = copy.deepcopy(_files())
    edit(files[file])  # type: ignore[operator]
    with pytest.raises(ContentError, match=needle):
        build_content(files)  # type: ignore[arg-type]


def test_the_map_is_symmetric_between_the_two_sides() -> None:
    """A7 advice: the layout is mirror-symmetric (reflection across the middle row)."""
    arena = CONTENT.arena
    assert {mirror(h) for h in arena.cells} == arena.cells
    assert {mirror(h) for h in arena.trap_hexes} == set(arena.trap_hexes)
    assert {mirror(h) for h in arena.deployment[0]} == set(arena.deployment[1])
    for colour, hexes in arena.zones.items():
        assert {mirror(h) for h in hexes} == hexes
        assert mirror(arena.statues[colour]) == arena.statues[colour]


def test_roster_has_ten_champions_with_six_cards_and_a_reaction_each() -> None:
    """A17 structure: 6 cards per champion, about 2 per core colour, at least one reaction."""
    assert len(CONTENT.champions) == 10
    for champ in CONTENT.champions.values():
        cards = [CONTENT.cards[c] for c in champ.cards]
        assert len(cards) == 6
        assert any(c.type == "reaction" for c in cards)
        assert {c.colour for c in cards} == {"red", "yellow", "blue"}
