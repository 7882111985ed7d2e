"""The registry of games by name.

Product games are the subpackages of :mod:`referee.games`: each package's name is its registry
name, and the package exports its :class:`~referee.core.contract.Game` subclass as ``GAME``. The
registry lists the packages without importing them, so importing it stays cheap, and loads a game
on first use; nothing here (or anywhere outside ``referee/games``) names a game. Tests register
their own games with :func:`register`.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from referee.core.contract import Game

_PACKAGE = "referee.games"
_LOADED: dict[str, Game] = {}


class UnknownGameError(LookupError):
    """No game is registered under the name asked for."""


@functools.cache
def _builtin() -> tuple[str, ...]:
    games = importlib.import_module(_PACKAGE)
    return tuple(m.name for m in pkgutil.iter_modules(games.__path__) if m.ispkg and not m.name.startswith("_"))


def register(game: Game) -> None:
    """Registers ``game`` under ``game.info.name``, replacing any earlier one."""
    _LOADED[game.info.name] = game


def game_names() -> list[str]:
    """Returns the names of every known game (shipped or registered), sorted."""
    return sorted(set(_builtin()) | set(_LOADED))


def shipped_game_names() -> list[str]:
    """Returns the names of the games shipped in :mod:`referee.games` (not those tests register), sorted."""
    return sorted(_builtin())


def get_game(name: str) -> Game:
    """Returns the game registered as ``name``.

    Raises:
        UnknownGameError: no game has that name; the message lists the known ones.
        TypeError: the game's package exports no ``GAME`` class, or one registered under another name.
    """
    if name in _LOADED:
        return _LOADED[name]
    if name not in _builtin():
        raise UnknownGameError(f"unknown game {name!r}; known games: {game_names()!r}")
    module = importlib.import_module(f"{_PACKAGE}.{name}")
    cls = getattr(module, "GAME", None)
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise TypeError(f"{_PACKAGE}.{name} must export its Game subclass as GAME, got {cls!r}")
    game = cls()
    if game.info.name != name:
        raise TypeError(f"{_PACKAGE}.{name}.GAME says its name is {game.info.name!r}; it must be {name!r}")
    _LOADED[name] = game
    return game
