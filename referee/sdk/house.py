"""House bots as SDK bots: ``random`` for every game, and each game's ``HOUSE_BOTS``.

A game may offer named house bots in ``referee/games/<game>/bots.py`` as a dict ``HOUSE_BOTS``
(loaded through its :data:`referee.games.SHIPPED` entry)
from name to a :class:`referee.core.bots.Policy` class or factory (called with ``seed=`` when it
accepts it). A policy already has the SDK's ``choose`` signature, so it runs unchanged in the
referee (in-process seats), in ``brawl play`` and through ``brawl bot run``:

    brawl bot run referee.sdk.house:RandomBot --server HOST:PORT --token T

A house bot's own randomness (the ``random`` bot's picks, a heuristic's tie-breaks) comes from a
fresh :func:`common.seeding.new_bot_seed` per instance, so what it plays reveals nothing about the
match seed and cannot be predicted from the source. A caller may pass its own bot seed for a
reproducible local experiment; it must then choose it apart from any match seed (``brawl play
--bot-seed``). Replays never need it: the bots' choices are in the decision log.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from common.seeding import new_bot_seed
from referee.core.bots import RandomPolicy
from referee.core.contract import Decision, JSONDict, Option
from referee.games import SHIPPED


class UnknownHouseBotError(LookupError):
    """No house bot of that name for that game."""


class RandomBot:
    """The ``random`` house bot as an SDK bot class (uniform over the legal options).

    Args:
        seed: The bot's own seed, for a reproducible local experiment; by default a fresh one from
            :func:`common.seeding.new_bot_seed`. Never a match seed, nor derived from one.
    """

    def __init__(self, seed: int | None = None) -> None:
        self._policy = RandomPolicy(new_bot_seed() if seed is None else seed)

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        """Returns a uniformly random option id."""
        return self._policy.choose(decision, observation, options)


def game_house_bots(game: str) -> dict[str, Any]:
    """Returns the game's ``HOUSE_BOTS`` dict (:data:`referee.games.SHIPPED`), or an empty dict when it has none."""
    shipped = SHIPPED.get(game)
    return {} if shipped is None else dict(shipped.house_bots())


def house_bot_names(game: str) -> list[str]:
    """Returns the house bots available for ``game``, ``random`` first."""
    return ["random", *sorted(n for n in game_house_bots(game) if n != "random")]


def house_factory(game: str, name: str, seed: int | None = None) -> Callable[[], Any]:
    """Returns a factory of the house bot ``name`` for ``game``.

    Args:
        game: The game's name.
        name: The house bot's name (:func:`house_bot_names`).
        seed: Every instance's own seed, for a reproducible local experiment (chosen apart from any
            match seed); by default each instance draws a fresh :func:`common.seeding.new_bot_seed`.

    Raises:
        UnknownHouseBotError: the game has no house bot of that name.
    """

    def bot_seed() -> int:
        return new_bot_seed() if seed is None else seed

    table = game_house_bots(game)
    if name in table:
        maker = table[name]
        try:
            takes_seed = "seed" in inspect.signature(maker).parameters
        except (TypeError, ValueError):
            takes_seed = False
        return (lambda: maker(seed=bot_seed())) if takes_seed else maker
    if name == "random":
        return lambda: RandomBot(bot_seed())
    raise UnknownHouseBotError(f"no house bot {name!r} for {game!r}; available: {house_bot_names(game)!r}")
