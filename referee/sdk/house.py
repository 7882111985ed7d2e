"""House bots as SDK bots: ``random`` for every game, and each game's ``HOUSE_BOTS``.

A game may offer named house bots in ``referee/games/<game>/bots.py`` as a dict ``HOUSE_BOTS``
from name to a :class:`referee.core.bots.Policy` class or factory (called with ``seed=`` when it
accepts it). A policy already has the SDK's ``choose`` signature, so it runs unchanged in the
referee (in-process seats), in ``brawl play`` and through ``brawl bot run``:

    brawl bot run referee.sdk.house:RandomBot --server HOST:PORT --token T
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from referee.core.bots import RandomPolicy
from referee.core.contract import Decision, JSONDict, Option


class UnknownHouseBotError(LookupError):
    """No house bot of that name for that game."""


class RandomBot:
    """The ``random`` house bot as an SDK bot class (uniform over the legal options)."""

    def __init__(self, seed: int = 0) -> None:
        self._policy = RandomPolicy(seed)

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        """Returns a uniformly random option id."""
        return self._policy.choose(decision, observation, options)


def game_house_bots(game: str) -> dict[str, Any]:
    """Returns the game's ``HOUSE_BOTS`` dict, or an empty dict when it has none."""
    try:
        module = importlib.import_module(f"referee.games.{game}.bots")
    except ModuleNotFoundError as exc:
        if exc.name and (exc.name == f"referee.games.{game}.bots" or exc.name == f"referee.games.{game}"):
            return {}
        raise
    bots: dict[str, Any] = dict(getattr(module, "HOUSE_BOTS", {}))
    return bots


def house_bot_names(game: str) -> list[str]:
    """Returns the house bots available for ``game``, ``random`` first."""
    return ["random", *sorted(n for n in game_house_bots(game) if n != "random")]


def house_factory(game: str, name: str, seed: int = 0) -> Callable[[], Any]:
    """Returns a factory of the house bot ``name`` for ``game``; each instance is seeded by ``seed``.

    Raises:
        UnknownHouseBotError: the game has no house bot of that name.
    """
    table = game_house_bots(game)
    if name in table:
        maker = table[name]
        try:
            takes_seed = "seed" in inspect.signature(maker).parameters
        except (TypeError, ValueError):
            takes_seed = False
        return (lambda: maker(seed=seed)) if takes_seed else maker
    if name == "random":
        return lambda: RandomBot(seed)
    raise UnknownHouseBotError(f"no house bot {name!r} for {game!r}; available: {house_bot_names(game)!r}")
