"""Static board layouts, as each game says of itself (``GameInfo.board``), sent with the frames.

The viewer draws the game's generic board view (``Game.board_view``, which every frame carries);
the layout (hex radius, statues, coloured zones, deployment rows; the size of a square arena) is
plain data for API clients and the games API's ``board_kind``. This module names no game: an
unknown game, one whose engine cannot load, or one without a board has no layout.
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
