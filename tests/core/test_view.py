"""The generic board view (referee.core.view) and the three hooks of both shipped games.

Partitions: each shipped game, at every table size it takes, over random playouts from several
seeds; each viewer (every seat and the spectator) at sampled positions; every event of the log
(hidden ones for the seats that may see them); every option offered. Checked: the view's JSON
follows the schema and refers only to its own cells; every event kind met has a sentence of the
game's own (not the spelled-out fallback) with no engine identifier left in it; every option's
targets name cells, pieces or cards of the deciding seat's view; a seat's view shows no other
seat's hidden cards, and is the same in a re-dealt copy of the match (so nothing hidden reaches it).
Bad views are refused with a message naming the problem.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee.core import EVERYONE, ContentError, Seat, SeededChance, get_game
from referee.core.bots import RandomPolicy
from referee.core.contract import Event, Game, Option
from referee.core.registry import shipped_game_names
from referee.core.view import (
    Area,
    BoardView,
    Card,
    Marker,
    Piece,
    Targets,
    hex_cell,
    polygon_cell,
    spelled_out,
    square_cell,
    validate_view,
)

GAMES = [(name, n) for name in shipped_game_names() for n in sorted(get_game(name).info.seat_counts)]
SEEDS = (1, 2, 3)
VIEW_SEEDS = (1, 2)
"""Seeds of the view and option checks, which stop after :data:`VIEW_DECISIONS` decisions."""
VIEW_DECISIONS = 700
SAMPLE_EVERY = 25
"""Views of every viewer are checked at every 25th decision (every option's targets at every decision)."""
VALIDATE_EVERY = 400
"""The schema (about 0.1 s of CPU for a 400-cell board) is checked at every 400th decision and at the end."""


def playout(game: Game, seats: int, seed: int, limit: int = 4000) -> Any:
    match = game.new_match(game.default_config(seats), seats, SeededChance(seed))
    policies = [RandomPolicy(seed * 10 + s) for s in range(seats)]
    n = 0
    while match.to_move() is not None and n < limit:
        decision = match.to_move()
        yield n, match, decision
        options = match.legal_options()
        match.apply(policies[decision.seat].choose(decision, match.observe(decision.seat), options))
        n += 1
    yield n, match, None


def sentence_kinds(name: str) -> set[str]:
    """The event kinds the game writes a sentence of its own for (each game's ``view.TEMPLATES``)."""
    if name == "superfantasybrawl":
        from referee.games.superfantasybrawl import view as sfb

        return set(sfb.TEMPLATES)
    from referee.games.scrumbrawl import view as sb

    return set(sb.TEMPLATES)


@pytest.mark.parametrize(("name", "seats"), GAMES)
def test_views_follow_the_schema_and_options_name_what_they_act_on(name: str, seats: int) -> None:
    game = get_game(name)
    checked_views = checked_options = targeted = validated = 0
    for seed in VIEW_SEEDS:
        for n, match, decision in playout(game, seats, seed, VIEW_DECISIONS):
            if decision is not None:
                own = game.board_view(match.observe(decision.seat), decision.seat)
                for option in match.legal_options():
                    targets = game.option_targets(option, own)
                    assert isinstance(targets, Targets)
                    assert targets.missing_from(own) == [], (option.to_json(), targets)
                    checked_options += 1
                    targeted += bool(targets)
            if n % SAMPLE_EVERY == 0 or decision is None:
                for viewer in [None, *[Seat(s) for s in range(seats)]]:
                    view = game.board_view(match.observe(viewer), viewer)
                    if n % VALIDATE_EVERY == 0 or decision is None:
                        validate_view(view.to_json())
                        validated += 1
                    for piece in view.pieces:
                        assert not piece.cell or piece.cell in view.cell_ids(), piece
                    assert view.viewer == viewer
                    assert view.cells
                    checked_views += 1
    assert checked_views > 30 and checked_options > 500 and validated >= 2 * len(VIEW_SEEDS)
    # Most options act on something of the board: the game says what, so a board can offer them on a click.
    assert targeted > checked_options // 2, (targeted, checked_options)


@pytest.mark.parametrize(("name", "seats"), GAMES)
def test_every_event_kind_has_a_sentence(name: str, seats: int) -> None:
    game = get_game(name)
    own = sentence_kinds(name)
    seen: set[str] = set()
    for seed in SEEDS:
        *_, (_, match, _) = playout(game, seats, seed)
        names = game.board_view(match.observe(None), None).names()
        for event in match.events(0, EVERYONE):
            seen.add(event.kind)
            text = game.event_text(event, None, names)
            assert text and text[0].isupper(), (event.to_json(), text)
            # No engine identifier (snake_case) or raw data is left in a sentence.
            assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), (event.to_json(), text)
            assert "{" not in text and "[" not in text and "=" not in text, (event.to_json(), text)
    assert seen - own == set(), f"event kinds with no sentence of {name}'s own: {sorted(seen - own)}"
    assert len(seen) > 20


def test_pieces_are_named_in_sentences() -> None:
    game = get_game("scrumbrawl")
    event = Event(0, "move", {"creature": "k10", "from_row": 2, "from_col": 9, "row": 1, "col": 6})
    assert game.event_text(event, None, {"k10": "Chicken"}) == "Chicken moves from (2, 9) to (1, 6)"
    sfb = get_game("superfantasybrawl")
    text = sfb.event_text(Event(0, "deployed", {"seat": 1, "champion": "wren", "hex": "q-1r4"}), None, {})
    assert re.fullmatch(r"Seat 1 deploys [A-Z][a-z]+( [A-Z][a-z]+)* on \(-1, 4\)", text), text


@pytest.mark.parametrize(("name", "seats"), GAMES)
def test_a_seats_view_shows_no_other_seats_hidden_cards(name: str, seats: int) -> None:
    game = get_game(name)
    compared = 0
    for n, match, decision in playout(game, seats, 5, VIEW_DECISIONS):
        if n % SAMPLE_EVERY:
            continue
        for s in range(seats):
            view = game.board_view(match.observe(Seat(s)), Seat(s))
            for other in range(seats):
                if other == s:
                    continue
                hand = next(a for a in view.areas if a.id == f"hand:{other}")
                theirs = game.board_view(match.observe(Seat(other)), Seat(other))
                held = next(a for a in theirs.areas if a.id == f"hand:{other}")
                # Face down: a count only, and the count is the size of the hand.
                assert hand.cards == () and hand.hidden == len(held.cards)
            # Re-dealing everything the seat cannot see changes nothing of its view.
            copy = match.determinize(Seat(s), SeededChance(99 + n))
            assert game.board_view(copy.observe(Seat(s)), Seat(s)).to_json() == view.to_json()
            compared += 1
        if decision is None:
            break
    assert compared >= seats * 3


def test_the_shapes_and_the_json_form() -> None:
    h = hex_cell("q0r0", 0, 0)
    assert len(h.points) == 6 and h.shape == "hex" and h.coords == (0, 0)
    s = square_cell("r1c1", 0, 0, size=2)
    assert s.center == (1.0, 1.0) and s.points[2] == (2.0, 2.0) and s.coords == (0, 0)
    t = polygon_cell("t0", [(0, 0), (2, 0), (1, 1.5)], shape="triangle")
    assert t.center == (1.0, 0.5) and t.shape == "triangle"
    view = BoardView(
        viewer=None,
        cells=(h, s, t),
        pieces=(Piece("a", "pawn", "A", cell="t0", owner=1), Piece("b", "pawn", "B")),
        markers=(Marker("q0r0", "mine"),),
        areas=(Area("hand:0", "Hand", 0, (Card("c1", "One"),)), Area("hand:1", "Hand", 1, (), 3)),
        scores=("1", "2"),
        facts=(("Round", "1"),),
    )
    data = view.to_json()
    validate_view(data)
    assert data["viewer"] == -1 and data["pieces"][1] == {
        "id": "b",
        "kind": "pawn",
        "label": "B",
        "name": "B",
        "shape": "circle",
        "size": 0.7,
    }
    assert data["areas"][1] == {"id": "hand:1", "title": "Hand", "cards": [], "seat": 1, "hidden": 3}
    assert view.names() == {"a": "A", "b": "B"} and view.card_ids() == {"c1"}
    assert Targets.of(["t0", "t0", ""], ["a"], ["c1"]).to_json() == {"cells": ["t0"], "pieces": ["a"], "cards": ["c1"]}
    assert Targets.of(["nowhere"], ["ghost"], ["c9"]).missing_from(view) == ["cell:nowhere", "piece:ghost", "card:c9"]
    assert not Targets() and Targets.of(cells=["t0"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["cells"][0].update(points=[[0, 0], [1, 1]]), "at least 3 corners"),
        (lambda d: d["pieces"][0].update(cell="nowhere"), "stands on no cell"),
        (
            lambda d: d["markers"].append({"cell": "x9", "kind": "mine", "label": "mine", "shape": "circle"}),
            "on no cell",
        ),
        (lambda d: d["cells"].append(dict(d["cells"][0])), "cell ids repeat"),
        (lambda d: d["pieces"][0].update(fill="red"), "fill"),
        (lambda d: d.update(secret=1), "secret"),
    ],
)
def test_a_bad_view_is_refused_naming_the_problem(change: Any, message: str) -> None:
    data = BoardView(
        viewer=0, cells=(square_cell("a", 0, 0), square_cell("b", 1, 0)), pieces=(Piece("p", "pawn", "P", cell="a"),)
    ).to_json()
    change(data)
    with pytest.raises(ContentError, match=re.escape(message)):
        validate_view(data)


def test_a_game_without_a_view_gets_the_defaults() -> None:
    from tests.conformance.tinygame import TinyGame

    game = TinyGame()
    match = game.new_match(game.default_config(2), 2, SeededChance(0))
    assert game.board_view(match.observe(None), None) == BoardView(viewer=None)
    event = match.events(0, EVERYONE)[0]
    assert game.event_text(event, Seat(0)) == spelled_out(event.kind, event.data)
    assert game.option_targets(Option("pass", "pass", "pass"), BoardView(viewer=0)) == Targets()
    assert (
        spelled_out("score_up", {"seat": 1, "amount": 3, "cards": [1, 2]}) == "Score up: seat 1; amount 3; cards 1, 2"
    )
