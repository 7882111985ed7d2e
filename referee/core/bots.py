"""The house-bot interface: a bot sees exactly what a remote bot sees.

A house bot is given the pending decision, its seat's observation and the legal options (the
same data the bot protocol carries) and returns an option id. It never sees the match state, so
a house bot is as fair as any remote bot, and the SDK wraps both the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from referee.core.chance import SeededChance
from referee.core.contract import Decision, JSONDict, Option


class Policy(Protocol):
    """Anything that picks an option."""

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        """Returns the id of one of ``options``."""
        ...


class RandomPolicy:
    """Picks uniformly among the legal options, from its own seeded stream.

    Args:
        seed: Seeds the bot's own randomness (never the match's).
    """

    def __init__(self, seed: int = 0) -> None:
        self._chance = SeededChance(seed)

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        """Returns a uniformly random option id."""
        return options[self._chance.below(len(options))].id
