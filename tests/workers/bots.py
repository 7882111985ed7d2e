"""Test-only bots of graded strength for the ladder tests, all instant.

``Heuristic`` is Super Fantasy Brawl's house heuristic, ``Mixed`` plays it half the time and a
random legal option otherwise, ``Random`` is the house random bot. Each instance gets its own seed
(the SDK makes one per match and seat), so their random choices differ between matches.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from referee.core.bots import RandomPolicy
from referee.core.chance import SeededChance
from referee.core.contract import Decision, JSONDict, Option
from referee.games.superfantasybrawl.bots import HeuristicPolicy

_seeds = itertools.count(1)


class Heuristic:
    """The house heuristic."""

    def __init__(self) -> None:
        self._policy = HeuristicPolicy(seed=next(_seeds))

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        return self._policy.choose(decision, observation, options)


class Mixed:
    """The heuristic with probability one half, a random option otherwise."""

    def __init__(self) -> None:
        seed = next(_seeds)
        self._heuristic = HeuristicPolicy(seed=seed)
        self._random = RandomPolicy(seed)
        self._coin = SeededChance(seed ^ 0xC0FFEE)

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        if self._coin.below(2):
            return self._random.choose(decision, observation, options)
        return self._heuristic.choose(decision, observation, options)


class Random:
    """Uniformly random legal options."""

    def __init__(self) -> None:
        self._policy = RandomPolicy(next(_seeds))

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        return self._policy.choose(decision, observation, options)
