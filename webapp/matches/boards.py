"""Static board layouts for the replay viewer: what never changes during a match.

A spectator observation carries what moves (champions, creatures, orbs, traps); the fixed arena
(hex radius, statues, coloured zones, deployment rows; the size of a square arena) is read here
from each game's published content data, so the viewer can draw it. An unknown game, or one whose
data cannot be read, has no layout and the viewer falls back to its generic renderer.
"""

from __future__ import annotations

import json
import logging
from importlib import resources
from typing import Any

log = logging.getLogger(__name__)


def _sfb() -> dict[str, Any]:
    data = json.loads(resources.files("referee.games.superfantasybrawl").joinpath("data/map.json").read_text())
    return {
        "kind": "hex",
        "name": data.get("name", ""),
        "radius": int(data.get("radius", 4)),
        "statues": data.get("statues", []),
        "zones": data.get("zones", {}),
        "trap_hexes": data.get("trap_hexes", []),
        "deployment": data.get("deployment", []),
    }


def _scrumbrawl() -> dict[str, Any]:
    # The proto says squares are (row, col), both 1..20.
    return {"kind": "square", "size": 20, "origin": 1}


_LAYOUTS = {"superfantasybrawl": _sfb, "scrumbrawl": _scrumbrawl}


def board_layout(game: str) -> dict[str, Any] | None:
    """Returns the fixed layout of ``game``'s board, or ``None`` when there is none to draw."""
    make = _LAYOUTS.get(game)
    if make is None:
        return None
    try:
        return make()
    except (OSError, ValueError, ModuleNotFoundError) as exc:
        log.warning("no board layout for %s: %s", game, exc)
        return None
