"""Super Fantasy Brawl: a rules engine behind the game contract, with an original roster as data.

Import :class:`SuperFantasyBrawl` (the game) from here. The rules are read in
``docs/rules/superfantasybrawl.md``; the content lives in ``data/``. :data:`INFO` is what the game
says of itself to the referee, the workers and the site (table sizes, teams, time control, board).
"""

from __future__ import annotations

import dataclasses
import json
from importlib import resources
from typing import Any

from referee.core.contract import TeamSplit, TimeControl
from referee.games.superfantasybrawl.game import SuperFantasyBrawl
from referee.games.superfantasybrawl.match import INFO as _ENGINE_INFO
from referee.games.superfantasybrawl.match import BrawlMatch


def _board() -> dict[str, Any]:
    """The arena as the viewer draws it: hex radius, statues, coloured zones, trap hexes, deployment rows."""
    data = json.loads(resources.files(__name__).joinpath("data/map.json").read_text(encoding="utf-8"))
    return {
        "kind": "hex",
        "name": data.get("name", ""),
        "radius": int(data.get("radius", 4)),
        "statues": data.get("statues", []),
        "zones": data.get("zones", {}),
        "trap_hexes": data.get("trap_hexes", []),
        "deployment": data.get("deployment", []),
    }


INFO = dataclasses.replace(
    _ENGINE_INFO,
    table_sizes=(2,),
    # Super Team Tornado: four seats are always two teams, seats 0 and 2 against 1 and 3.
    teams=(TeamSplit(4, (0, 1, 0, 1)),),
    time_control=TimeControl(),
    board=_board(),
)
"""What the game says of itself: the ladder plays duels; four seats are always 2v2."""

SuperFantasyBrawl.info = INFO
GAME = SuperFantasyBrawl
"""The registry's entry point (the package name is the game's registry name)."""

__all__ = ["GAME", "INFO", "BrawlMatch", "SuperFantasyBrawl"]
