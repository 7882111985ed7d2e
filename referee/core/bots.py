"""The house-bot interface: a bot sees exactly what a remote bot sees.

A house bot is given the pending decision, its seat's observation and the legal options (the
same data the bot protocol carries) and returns an option id. It never sees the match state, so
a house bot is as fair as any remote bot, and the SDK wraps both the same way.

A policy's own randomness comes from the seed it is built with, and that seed must not be the match
seed nor derived from it: its moves would then spell the seed out (and with it every hand and deck
order). The core draws no entropy of its own, so the seed has no default here; the service gives each
instance a fresh one (:func:`referee.sdk.house.house_factory`, :func:`common.seeding.new_bot_seed`).
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
        seed: Seeds the bot's own randomness: a fresh seed, or one a local experiment chose apart
            from the match seed; never the match seed nor anything derived from it.
    """

    def __init__(self, seed: int) -> None:
        self._chance = SeededChance(seed)

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        """Returns a uniformly random option id."""
        return options[self._chance.below(len(options))].id
