"""The registry of games by name.

Product games are listed here by import path and loaded on first use, so importing the
registry stays cheap. Tests register their own games with :func:`register`.
"""

from __future__ import annotations

import importlib

from referee.core.contract import Game

_BUILTIN: dict[str, str] = {
    "scrumbrawl": "referee.games.scrumbrawl:ScrumBrawl",
    "superfantasybrawl": "referee.games.superfantasybrawl:SuperFantasyBrawl",
}
_LOADED: dict[str, Game] = {}


class UnknownGameError(LookupError):
    """No game is registered under the name asked for."""


def register(game: Game) -> None:
    """Registers ``game`` under ``game.info.name``, replacing any earlier one."""
    _LOADED[game.info.name] = game


def game_names() -> list[str]:
    """Returns the names of every known game, sorted."""
    return sorted(set(_BUILTIN) | set(_LOADED))


def get_game(name: str) -> Game:
    """Returns the game registered as ``name``.

    Raises:
        UnknownGameError: no game has that name; the message lists the known ones.
    """
    if name in _LOADED:
        return _LOADED[name]
    path = _BUILTIN.get(name)
    if path is None:
        raise UnknownGameError(f"unknown game {name!r}; known games: {game_names()!r}")
    module_name, _, attr = path.partition(":")
    game: Game = getattr(importlib.import_module(module_name), attr)()
    _LOADED[name] = game
    return game
