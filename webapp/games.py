"""Game metadata for the site, read from the rules registry.

An engine that fails to import (for example while it is being written) is still listed by name,
with ``available`` false, so one broken engine never takes the whole site down.
"""

from __future__ import annotations

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
            "min_seats": 2,
            "max_seats": 2,
            "has_chance": True,
            "has_hidden_information": True,
            "available": False,
        }
    return {
        "name": info.name,
        "title": info.title,
        "rules_version": info.rules_version,
        "min_seats": info.min_seats,
        "max_seats": info.max_seats,
        "has_chance": info.has_chance,
        "has_hidden_information": info.has_hidden_information,
        "available": True,
    }


def all_games() -> list[dict[str, Any]]:
    """Returns the metadata of every registered game, sorted by name."""
    return [game_info(n) for n in game_names()]


def title(name: str) -> str:
    """Returns a game's display title (its name when the engine is unavailable)."""
    return str(game_info(name)["title"])
