"""Helpers for tournament tests: build events and play them out with scripted or random results."""

from __future__ import annotations

import random
from collections.abc import Callable

from ladder.ids import EntrantId, EventId, MatchId
from ladder.tournaments import (
    EventConfig,
    EventState,
    Format,
    Pairing,
    Report,
    new_event,
    next_pairings,
    record_result,
    seed_manual,
)


def players(n: int) -> list[EntrantId]:
    return [EntrantId(f"p{i}") for i in range(1, n + 1)]


def event(fmt: Format, n: int, **options: object) -> EventState:
    return new_event(EventId("e1"), EventConfig(fmt, **options), seed_manual(players(n)))  # type: ignore[arg-type]


def seed_number(entrant: EntrantId) -> int:
    return int(entrant[1:])


def better_seed_wins(pairing: Pairing, game: int) -> tuple[int, ...]:
    """Ranks per participant: the lower seed number wins, pods ranked by seed."""
    order = sorted(pairing.participants, key=seed_number)
    return tuple(order.index(e) + 1 for e in pairing.participants)


def play_out(
    state: EventState,
    decide: Callable[[Pairing, int], tuple[int, ...]],
    limit: int = 10_000,
) -> EventState:
    """Plays every pending pairing with ``decide`` until nothing is pending."""
    counter = 0
    while pending := next_pairings(state):
        for pairing in pending:
            counter += 1
            assert counter < limit, "the event does not terminate"
            ranks = decide(pairing, pairing.games_played)
            state = record_result(state, Report(pairing.key, MatchId(f"m{counter}"), ranks))
    return state


def random_decider(rng: random.Random, draw_chance: float = 0.0) -> Callable[[Pairing, int], tuple[int, ...]]:
    def decide(pairing: Pairing, game: int) -> tuple[int, ...]:
        n = len(pairing.participants)
        if rng.random() < draw_chance:
            return (1,) * n
        ranks = list(range(1, n + 1))
        rng.shuffle(ranks)
        return tuple(ranks)

    return decide
