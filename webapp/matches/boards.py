"""Static board layouts for the replay viewer: what never changes during a match.

A spectator observation carries what moves (champions, creatures, orbs, traps); the fixed arena
(hex radius, statues, coloured zones, deployment rows; the size of a square arena) is part of what
each game says of itself (``GameInfo.board``), so the viewer can draw it. This module names no game:
an unknown game, one whose engine cannot load, or one without a board has no layout, and the viewer
falls back to its generic renderer.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from referee.core.registry import UnknownGameError, get_game

log = logging.getLogger(__name__)


def board_layout(game: str) -> dict[str, Any] | None:
    """Returns the fixed layout of ``game``'s board (a copy), or ``None`` when there is none to draw."""
    try:
        board = get_game(game).info.board
    except UnknownGameError:
        return None
    except Exception as exc:  # an engine's import error must not break the viewer
        log.warning("no board layout for %s: %s", game, exc)
        return None
    return copy.deepcopy(dict(board)) if board is not None else None
