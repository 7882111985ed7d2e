"""The smallest useful bot: a uniformly random legal option, from its own seeded generator."""

from __future__ import annotations

import random
from collections.abc import Sequence

from referee.sdk import Decision, Option


class RandomBot:
    """Picks any offered option at random."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, decision: Decision, observation: dict, options: Sequence[Option]) -> str:
        return self.rng.choice(options).id
