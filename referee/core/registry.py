"""The registry of games by name.

Product games are listed in :data:`referee.games.SHIPPED`: each entry's name is its registry name
and loads the game's :class:`~referee.core.contract.Game` subclass. Listing them imports no engine,
so importing the registry stays cheap, and a game is loaded on first use; nothing here (or anywhere
outside ``referee/games``) names a game. Tests register their own games with :func:`register`.

The registry is the one module of ``referee.core`` that reaches up to ``referee.games`` (inside its
functions; the import contracts list that one arrow as a known exception): the replay functions
of the core look a game up by name, and the engines never call the registry.
"""

from __future__ import annotations

from referee.core.contract import Game

_LOADED: dict[str, Game] = {}


class UnknownGameError(LookupError):
    """No game is registered under the name asked for."""


def _builtin() -> tuple[str, ...]:
    from referee.games import SHIPPED

    return tuple(SHIPPED)


def register(game: Game) -> None:
    """Registers ``game`` under ``game.info.name``, replacing any earlier one."""
    _LOADED[game.info.name] = game


def game_names() -> list[str]:
    """Returns the names of every known game (shipped or registered), sorted."""
    return sorted(set(_builtin()) | set(_LOADED))


def shipped_game_names() -> list[str]:
    """Returns the names of the games :data:`referee.games.SHIPPED` lists (not those tests register), sorted."""
    return sorted(_builtin())


def get_game(name: str) -> Game:
    """Returns the game registered as ``name``.

    Raises:
        UnknownGameError: no game has that name; the message lists the known ones.
        TypeError: the listed entry loads no ``Game`` subclass, or one that says another name.
    """
    if name in _LOADED:
        return _LOADED[name]
    from referee.games import SHIPPED

    if name not in SHIPPED:
        raise UnknownGameError(f"unknown game {name!r}; known games: {game_names()!r}")
    cls = SHIPPED[name].game()
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise TypeError(f"referee.games.SHIPPED[{name!r}] must load a Game subclass, got {cls!r}")
    game = cls()
    if game.info.name != name:
        raise TypeError(f"referee.games.SHIPPED[{name!r}] says its name is {game.info.name!r}; it must be {name!r}")
    _LOADED[name] = game
    return game
