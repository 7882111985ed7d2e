"""Double elimination: a winners bracket, a losers bracket, and a grand final with a bracket reset.

With P = 2^k slots the winners bracket (``W1`` ... ``Wk``) is the single-elimination bracket. The
losers bracket has 2(k - 1) rounds (``L1`` ...): round 1 pairs the winners-round-1 losers; every
even round 2i brings in the losers of winners round i + 1 against the survivors; odd rounds after
the first pair survivors among themselves. Drop-in losers enter in reversed order for winners
rounds 2, 4, ... and in natural order for rounds 3, 5, ... (brackets-manager's order for 8 slots),
which keeps a winners-round-1 pair from meeting again at once in the losers bracket.

Grand final (``GF1``): winners-bracket champion against losers-bracket champion. With
:attr:`GrandFinal.RESET` a second match (``GF2``) is played if the losers-bracket champion wins
the first, since both then have one loss. Empty slots (byes) and forfeits flow through as in
:mod:`ladder.tournaments.bracket`, so the event always ends with one champion.

Standings: champion, then the grand-final loser, then by the losers-bracket round in which an
entrant went out (later is better, same round shares a place).
"""

from __future__ import annotations

import math

from ladder.ids import EntrantId
from ladder.tournaments.bracket import Node, Resolved, Source, bracket_size, loser, rank_by_stage, resolve, winner
from ladder.tournaments.common import EventState, GrandFinal, Schedule, Standing
from ladder.tournaments.single_elim import build as build_winners
from ladder.tournaments.tiebreaks import tally

__all__ = ["build", "schedule", "standings"]


def build(entrants: int, grand_final: GrandFinal = GrandFinal.RESET) -> list[Node]:
    """Returns the fixed nodes (everything but the conditional reset match ``GF2``)."""
    size = bracket_size(entrants)
    k = int(math.log2(size))
    nodes = build_winners(entrants)
    if k >= 2:
        for j in range(size // 4):
            nodes.append(Node(f"L1-{j + 1}", 1, "losers", (loser(f"W1-{2 * j + 1}"), loser(f"W1-{2 * j + 2}"))))
        for i in range(1, k):
            count = size // 2 ** (i + 1)
            if i > 1:
                r = 2 * i - 1
                for j in range(count):
                    sources = (winner(f"L{r - 1}-{2 * j + 1}"), winner(f"L{r - 1}-{2 * j + 2}"))
                    nodes.append(Node(f"L{r}-{j + 1}", r, "losers", sources))
            r = 2 * i
            for j in range(count):
                drop = count - j if i % 2 == 1 else j + 1
                nodes.append(
                    Node(f"L{r}-{j + 1}", r, "losers", (winner(f"L{r - 1}-{j + 1}"), loser(f"W{i + 1}-{drop}")))
                )
    if grand_final is not GrandFinal.NONE:
        nodes.append(Node("GF1", 1, "final", (winner(f"W{k}-1"), _losers_champion(k))))
    return nodes


def _losers_champion(k: int) -> Source:
    return winner(f"L{2 * (k - 1)}-1") if k >= 2 else loser("W1-1")


def _resolved(state: EventState) -> tuple[Resolved, int]:
    config = state.config
    k = int(math.log2(bracket_size(len(state.entrants))))
    resolved = resolve(state, build(len(state.entrants), config.grand_final))
    first = resolved.results.get("GF1")
    if config.grand_final is GrandFinal.RESET and first is not None and first.played and first.winner is not None:
        wb_champion = resolved.results[f"W{k}-1"].winner
        if first.winner != wb_champion:
            resolve(state, [Node("GF2", 2, "final", (winner("GF1"), loser("GF1")))], resolved)
    return resolved, k


def _champion(state: EventState, resolved: Resolved, k: int) -> tuple[bool, EntrantId | None]:
    """Whether the event is over, and its champion."""
    config = state.config
    wb_final = resolved.results.get(f"W{k}-1")
    lb_key = _losers_champion(k).node
    lb_final = resolved.results.get(lb_key)
    if config.grand_final is GrandFinal.NONE:
        if wb_final is None or lb_final is None:
            return False, None
        return True, wb_final.winner
    first = resolved.results.get("GF1")
    if first is None:
        return False, None
    if "GF2" in {v.pairing.key for v in resolved.views}:
        second = resolved.results.get("GF2")
        return (True, second.winner) if second is not None else (False, None)
    return True, first.winner


def schedule(state: EventState) -> Schedule:
    """Returns every pairing known so far and whether the event is over."""
    resolved, k = _resolved(state)
    finished, _ = _champion(state, resolved, k)
    return Schedule(tuple(resolved.views), (), finished)


def standings(state: EventState) -> tuple[Standing, ...]:
    """Returns the standings (final once :func:`schedule` says the event is finished)."""
    resolved, k = _resolved(state)
    ids = state.by_seed
    stage: dict[EntrantId, float] = dict.fromkeys(ids, math.inf)
    where: dict[EntrantId, str] = dict.fromkeys(ids, "in")
    lb_rounds = 2 * (k - 1)
    for key, result in resolved.results.items():
        if key.startswith("W") and k >= 2:
            # A winners-bracket loser drops to the losers bracket and is not out yet; only a
            # double forfeit puts both sides out at once.
            for out in result.participants:
                if out not in (result.winner, result.loser):
                    stage[out], where[out] = 0, f"forfeited winners round {key[1 : key.index('-')]}"
            continue
        for out in result.participants:
            if out == result.winner:
                continue
            if key.startswith("L"):
                r = int(key[1 : key.index("-")])
                stage[out], where[out] = r, f"losers round {r}"
            elif key.startswith("W"):
                # A two-slot bracket has no losers rounds: the final's loser is the losers' champion.
                continue
            else:
                stage[out], where[out] = lb_rounds + 1, "grand final"
    finished, champion = _champion(state, resolved, k)
    if state.config.grand_final is GrandFinal.NONE and finished:
        lb_champion = resolved.results[_losers_champion(k).node]
        runner = lb_champion.winner if k >= 2 else lb_champion.loser
        if runner is not None:
            stage[runner], where[runner] = lb_rounds + 1, "losers bracket champion"
    if champion is not None:
        stage[champion], where[champion] = lb_rounds + 2, "champion"
    ranks = rank_by_stage(ids, stage)
    records = tally(resolved.views, ())
    return tuple(
        Standing(e, ranks[e], *records[e].summary(), status=where[e]) for e in sorted(ids, key=lambda e: ranks[e])
    )
