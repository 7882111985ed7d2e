"""Game metadata for the site, read from the rules registry (``GameInfo``: what each game says of itself).

Seats and table sizes, teams, the default time control and the kind of board the viewer draws are
passed on as plain data, for the API (``/api/v1/games/``) and the pages' context alike.

An engine that fails to import (for example while it is being written) is still listed by name,
with ``available`` false, so one broken engine never takes the whole site down.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from referee.core.registry import game_names, get_game

log = logging.getLogger(__name__)


def game_info(name: str) -> dict[str, Any]:
    """Returns the metadata of game ``name`` as plain data."""
    try:
        info = get_game(name).info
    except Exception as exc:  # an engine's import error must not break every page
        log.warning("game %s unavailable: %s", name, exc)
        return {
            "name": name,
            "title": name,
            "rules_version": "",
            "seat_counts": [2],
            "seats_text": "2",
            "min_seats": 2,
            "max_seats": 2,
            "has_chance": True,
            "has_hidden_information": True,
            "table_sizes": [],
            "free_for_all": False,
            "teams": [],
            "time_control": None,
            "board_kind": None,
            "available": False,
        }
    board = info.board
    return {
        "name": info.name,
        "title": info.title,
        "rules_version": info.rules_version,
        "seat_counts": sorted(info.seat_counts),
        "seats_text": info.seats_text(),
        "min_seats": info.min_seats,
        "max_seats": info.max_seats,
        "has_chance": info.has_chance,
        "has_hidden_information": info.has_hidden_information,
        "table_sizes": list(info.table_sizes),
        "free_for_all": info.free_for_all,
        "teams": [{"seats": t.seats, "team_of_seat": list(t.team_of_seat), "when": t.when} for t in info.teams],
        "time_control": dataclasses.asdict(info.time_control),
        # The kind of board the viewer draws ("hex", "square"); the layout itself travels with a
        # match's frames (webapp.matches.boards), not with every page that lists the games.
        "board_kind": str(board["kind"]) if board is not None and "kind" in board else None,
        "available": True,
    }


def all_games() -> list[dict[str, Any]]:
    """Returns the metadata of every registered game, sorted by name."""
    return [game_info(n) for n in game_names()]


def title(name: str) -> str:
    """Returns a game's display title (its name when the engine is unavailable)."""
    return str(game_info(name)["title"])
