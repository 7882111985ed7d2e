"""The rules engines, one package per game, and the list of the games the service ships.

:data:`SHIPPED` names every shipped game and how to load it: its :class:`~referee.core.contract.Game`
subclass (the package's ``GAME``) and its named house bots (``bots.HOUSE_BOTS``), each imported
on first use, so listing the games loads none of them. The registry
(:mod:`referee.core.registry`) and the house bots (:mod:`referee.sdk.house`) read it; a new game
adds its entry here. Tests add their own games through :func:`referee.core.registry.register`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from referee.core.contract import Game


@dataclass(frozen=True, slots=True)
class ShippedGame:
    """How to load one shipped game; each part is imported when first asked for."""

    game: Callable[[], type[Game]]
    """Returns the game's :class:`~referee.core.contract.Game` subclass (its package's ``GAME``)."""

    house_bots: Callable[[], Mapping[str, Any]]
    """Returns the game's named house-bot policies (its ``bots.HOUSE_BOTS``), by ladder name."""


def _scrumbrawl() -> type[Game]:
    from referee.games.scrumbrawl import GAME

    return GAME


def _scrumbrawl_bots() -> Mapping[str, Any]:
    from referee.games.scrumbrawl.bots import HOUSE_BOTS

    return HOUSE_BOTS


def _superfantasybrawl() -> type[Game]:
    from referee.games.superfantasybrawl import GAME

    return GAME


def _superfantasybrawl_bots() -> Mapping[str, Any]:
    from referee.games.superfantasybrawl.bots import HOUSE_BOTS

    return HOUSE_BOTS


SHIPPED: Mapping[str, ShippedGame] = {
    "scrumbrawl": ShippedGame(_scrumbrawl, _scrumbrawl_bots),
    "superfantasybrawl": ShippedGame(_superfantasybrawl, _superfantasybrawl_bots),
}
"""The shipped games by registry name (each package's name)."""
