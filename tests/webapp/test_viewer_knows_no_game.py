"""The pages that draw a board know no game: no name, rule or field of any shipped game is in their JavaScript.

The scripts scanned: the replay viewer (viewer.js), the board drawing it shares with the tables'
page (board.js), and a person's table (table.js).

Partitions: every shipped game's content names (champions, cards, creatures, orbs, challenges and
their ids), its event kinds (every kind the engine's sentence table lists), the field names of its
observation, and its layout words. A multi-word identifier or a name may not appear anywhere in
a script; a one-word event kind or field ("move", "hand") may appear as an English word but never
as a property the script reads (``.move``, ``move:``, ``["move"]``). The viewer draws from the
generic board view alone (referee/core/view.py), which the frames carry.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from referee.core import SeededChance, get_game
from referee.core.registry import shipped_game_names

JS = Path(__file__).resolve().parents[2] / "webapp/static/webapp/js"
SCRIPTS = ["viewer.js", "board.js", "table.js"]


def content_names(game: str) -> set[str]:
    """Every name and id of the game's content files (data/*.json): the values of ``id`` and ``name`` keys."""
    folder = Path(__file__).resolve().parents[2] / "referee/games" / game / "data"
    out: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("id", "name") and isinstance(v, str):
                    out.add(v)
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for path in folder.glob("*.json"):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return out


def event_kinds(game: str) -> set[str]:
    if game == "superfantasybrawl":
        from referee.games.superfantasybrawl.view import TEMPLATES
    else:
        from referee.games.scrumbrawl.view import TEMPLATES
    return set(TEMPLATES)


def observation_fields(game: str) -> set[str]:
    """Every key of a spectator observation of the game, nested ones included."""
    engine = get_game(game)
    seats = min(engine.info.seat_counts)
    match = engine.new_match(engine.default_config(seats), seats, SeededChance(0))
    keys: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                keys.add(k)
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(match.observe(None))
    walk(dict(engine.info.board or {}))
    return keys


GENERIC_FIELDS = {"viewer", "seats", "kind", "name", "id", "seat", "owner", "label", "cards", "size", "round"}
"""Field names the generic view itself uses (referee/core/view.py), which a game's observation may share."""
TABLE_FIELDS = {"turn", "status", "options", "events", "outcome", "board", "prompt", "version", "targets"}
"""Field names of the table socket's own messages (webapp/tables: ``SeatView.to_json``, ``table_json``,
each option's ``targets``), which table.js reads and a game's observation may share."""


def allowed(script: str) -> set[str]:
    return GENERIC_FIELDS | (TABLE_FIELDS if script == "table.js" else set())


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("game", shipped_game_names())
def test_board_scripts_hold_no_name_of_the_game(game: str, script: str) -> None:
    source = (JS / script).read_text(encoding="utf-8")
    names = sorted(n for n in content_names(game) if len(n) >= 3)
    assert len(names) > 30  # the content was read
    found = [n for n in names if re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", source, re.IGNORECASE)]
    assert found == [], f"{script} names {game}'s content: {found}"


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("game", shipped_game_names())
def test_board_scripts_read_no_event_kind_or_field_of_the_game(game: str, script: str) -> None:
    source = (JS / script).read_text(encoding="utf-8")
    words = (event_kinds(game) | observation_fields(game)) - allowed(script)
    assert len(words) > 30
    found = []
    for w in sorted(words):
        quoted = re.escape(w)
        if "_" in w and re.search(rf"\b{quoted}\b", source):
            found.append(w)  # an identifier of the game, anywhere
        elif re.search(
            rf"\.{quoted}\b|(?:[{{,]|^)\s*{quoted}\s*:|\[\s*[\"']{quoted}[\"']\s*\]|[\"']{quoted}[\"']\s*:",
            source,
            re.M,
        ):
            found.append(w)  # read as a property or a key
    assert found == [], f"{script} reads {game}'s event kinds or observation fields: {found}"
