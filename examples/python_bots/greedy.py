"""A one-ply greedy bot that reads only the option list, so it plays every game.

It scores each option from its structured ``params``: any number whose field name sounds like a
gain (damage, points, value, vp...) counts for it, and options of kinds that do nothing (``pass``,
``end_turn``) count a little against. Ties are broken at random. It uses the full :class:`Turn`
(``choose_turn``) to log its time budget and to leave a note in the replay.
"""

from __future__ import annotations

import logging
import random
from typing import Any

from referee.sdk import MatchInfo, MatchResult, Turn

log = logging.getLogger(__name__)

GAINS = ("damage", "points", "score", "value", "vp", "gain", "kills", "heal", "orbs", "cards")
"""Field-name fragments that mean "more is better"."""
IDLE_KINDS = {"pass", "end_turn", "skip", "wait", "done"}


def _numbers(data: Any, prefix: str = "") -> list[tuple[str, float]]:
    """Returns every (field path, number) in nested plain data."""
    if isinstance(data, bool):
        return []
    if isinstance(data, int | float):
        return [(prefix, float(data))]
    if isinstance(data, dict):
        return [pair for k, v in data.items() for pair in _numbers(v, f"{prefix}.{k}" if prefix else k)]
    if isinstance(data, list):
        return [pair for v in data for pair in _numbers(v, prefix)]
    return []


def option_score(kind: str, params: dict[str, Any]) -> float:
    """Returns how good an option looks from its kind and params alone."""
    score = sum(value for path, value in _numbers(params) if any(g in path.lower() for g in GAINS))
    if kind in IDLE_KINDS:
        score -= 0.5
    return score


class GreedyBot:
    """Takes the option whose params promise the most."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def match_started(self, info: MatchInfo) -> None:
        log.info("match %s: %s, seat %d of %s", info.match_id, info.game, info.seat, info.seat_names)

    def choose_turn(self, turn: Turn) -> tuple[str, str]:
        scored = [(option_score(o.kind, o.params), self.rng.random(), o) for o in turn.options]
        best_score, _, best = max(scored, key=lambda t: (t[0], t[1]))
        if turn.deadline < 0.1:
            log.warning("only %.3f s left on decision %s", turn.deadline, turn.decision_id)
        return best.id, f"greedy {best_score:g} of {len(turn.options)}"

    def match_ended(self, result: MatchResult) -> None:
        log.info("match %s over: rank %d (%s)", result.match_id, result.rank, result.outcome.reason)
