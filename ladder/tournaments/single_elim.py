"""Single elimination: standard seeding, byes to the top seeds, best-of-N series, optional third place.

The bracket has P = the smallest power of two >= N slots, laid out by :func:`seeding_order`; seeds
above N are empty, so the top P - N seeds walk over round 1. Rounds are ``W1`` ... ``Wk``; the
optional third-place match (``3P``) pairs the semi-final losers. Series level after ``best_of``
games go on with deciding games (no draws in a knock-out). A withdrawn entrant forfeits every
pairing not yet decided.

Standings: the champion first, the final's loser second, then by the round in which an entrant
went out (later is better; entrants out in the same round share a place, unless the third-place
match separates them). Entrants still in share the best place not yet decided.
"""

from __future__ import annotations

import math

from ladder.ids import EntrantId
from ladder.tournaments.bracket import (
    Node,
    Resolved,
    bracket_size,
    loser,
    rank_by_stage,
    resolve,
    seed,
    seeding_order,
    winner,
)
from ladder.tournaments.common import EventState, Schedule, Standing
from ladder.tournaments.tiebreaks import tally

__all__ = ["build", "schedule", "seeding_order", "standings"]


def build(entrants: int, third_place: bool = False) -> list[Node]:
    """Returns the nodes of a single-elimination bracket for ``entrants`` entrants."""
    size = bracket_size(entrants)
    rounds = int(math.log2(size))
    order = seeding_order(size)
    nodes = [Node(f"W1-{i + 1}", 1, "winners", (seed(order[2 * i]), seed(order[2 * i + 1]))) for i in range(size // 2)]
    for r in range(2, rounds + 1):
        for i in range(size // 2**r):
            nodes.append(
                Node(f"W{r}-{i + 1}", r, "winners", (winner(f"W{r - 1}-{2 * i + 1}"), winner(f"W{r - 1}-{2 * i + 2}")))
            )
    if third_place and rounds >= 2:
        nodes.append(Node("3P", rounds, "third_place", (loser(f"W{rounds - 1}-1"), loser(f"W{rounds - 1}-2"))))
    return nodes


def _resolved(state: EventState) -> tuple[Resolved, int]:
    nodes = build(len(state.entrants), state.config.third_place)
    rounds = int(math.log2(bracket_size(len(state.entrants))))
    return resolve(state, nodes), rounds


def schedule(state: EventState) -> Schedule:
    """Returns every pairing known so far and whether the event is over."""
    resolved, rounds = _resolved(state)
    needed = [f"W{rounds}-1"] + (["3P"] if state.config.third_place and rounds >= 2 else [])
    finished = all(key in resolved.results for key in needed)
    return Schedule(tuple(resolved.views), (), finished)


def standings(state: EventState) -> tuple[Standing, ...]:
    """Returns the standings (final once :func:`schedule` says the event is finished)."""
    resolved, rounds = _resolved(state)
    ids = state.by_seed
    stage: dict[EntrantId, float] = dict.fromkeys(ids, math.inf)
    where: dict[EntrantId, str] = dict.fromkeys(ids, "in")
    for key, result in resolved.results.items():
        if key == "3P":
            continue
        r = int(key[1 : key.index("-")])
        for out in result.participants:
            if out != result.winner:
                stage[out] = r
                where[out] = "final" if r == rounds else f"winners round {r}"
    final = resolved.results.get(f"W{rounds}-1")
    if final is not None and final.winner is not None:
        stage[final.winner] = rounds + 1
        where[final.winner] = "champion"
    third = resolved.results.get("3P")
    if third is not None and third.winner is not None:
        stage[third.winner] = rounds - 0.5
        where[third.winner] = "third place"
    ranks = rank_by_stage(ids, stage)
    records = tally(resolved.views, ())
    return tuple(
        Standing(e, ranks[e], *records[e].summary(), status=where[e]) for e in sorted(ids, key=lambda e: ranks[e])
    )
