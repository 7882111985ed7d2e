"""The machinery shared by the elimination formats: seeding order and a resolver for bracket nodes.

A bracket is a fixed list of nodes built at the start from the bracket size alone. Each node has
two sources: a seed slot, or the winner or loser of an earlier node. Resolving walks the nodes in
order and fills them from the reports: a node with two known entrants is a pairing, a node with
one entrant and one empty slot (a bye, or a loser that never existed) is a walkover, and a node
with two empty slots yields nobody. So byes, forfeits and withdrawals travel through the bracket
without special cases, and every pairing is derived, never stored.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ladder.errors import InvalidEventError
from ladder.ids import EntrantId, PairingKey
from ladder.tournaments import series
from ladder.tournaments.common import EventState, Pairing, PairingView, Report


def bracket_size(entrants: int) -> int:
    """Returns the smallest power of two that holds ``entrants`` (at least 2)."""
    size = 2
    while size < entrants:
        size *= 2
    return size


def seeding_order(size: int) -> list[int]:
    """Returns the standard seed layout of a bracket of ``size`` slots (a power of two).

    Start from [1, 2] and replace every seed s by (s, 2·len + 1 − s) until the size is reached, so
    consecutive slots meet in round 1 and seeds 1 and 2 can only meet in the final.

    >>> seeding_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]

    Raises:
        InvalidEventError: if ``size`` is not a power of two of at least 2.
    """
    if size < 2 or size & (size - 1):
        raise InvalidEventError(f"bracket size must be a power of two, got {size!r}")
    order = [1, 2]
    while len(order) < size:
        n = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, n - seed)]
    return order


@dataclass(frozen=True, slots=True)
class Source:
    """Where a node's entrant comes from."""

    kind: Literal["seed", "winner", "loser"]
    """A seed slot, or the winner or loser of an earlier node."""
    seed: int = 0
    """The seed number, for ``"seed"``."""
    node: str = ""
    """The earlier node's key, for ``"winner"`` and ``"loser"``."""


def seed(number: int) -> Source:
    """A seed slot."""
    return Source("seed", seed=number)


def winner(key: str) -> Source:
    """The winner of an earlier node."""
    return Source("winner", node=key)


def loser(key: str) -> Source:
    """The loser of an earlier node."""
    return Source("loser", node=key)


@dataclass(frozen=True, slots=True)
class Node:
    """One match slot of a bracket."""

    key: str
    """Stable key, such as ``"W1-3"``."""
    round: int
    """Round within its bracket."""
    bracket: str
    """``"winners"``, ``"losers"``, ``"final"`` or ``"third_place"``."""
    sources: tuple[Source, Source]
    """Where its two entrants come from."""


@dataclass(frozen=True, slots=True)
class NodeResult:
    """A resolved node: who advanced and who dropped (``None`` for an empty slot)."""

    winner: EntrantId | None
    """Who goes on."""
    loser: EntrantId | None
    """Who lost (``None`` after a walkover)."""
    played: bool
    """Whether it was a real pairing rather than a walkover or an empty node."""
    participants: tuple[EntrantId, ...] = ()
    """Who was in the node; everyone but the winner is out of this bracket."""


@dataclass(slots=True)
class Resolved:
    """The state of every node after reading the reports."""

    views: list[PairingView]
    """Pairings, decided or pending, in node order."""
    results: dict[str, NodeResult]
    """Decided nodes by key."""


def reports_by_pairing(state: EventState) -> dict[str, list[Report]]:
    """The state's reports grouped by pairing key, in arrival order."""
    grouped: dict[str, list[Report]] = defaultdict(list)
    for report in state.reports:
        grouped[report.pairing].append(report)
    return grouped


def resolve(state: EventState, nodes: Sequence[Node], resolved: Resolved | None = None) -> Resolved:
    """Resolves ``nodes`` in order from the state's reports (continuing ``resolved`` if given).

    Raises:
        InvalidEventError: if a node refers to a node that does not exist.
    """
    out = resolved or Resolved([], {})
    seeds = {e.seed: e.id for e in state.entrants}
    by_id = {e.id: e.seed for e in state.entrants}
    grouped = reports_by_pairing(state)
    withdrawn = list(state.withdrawn)
    known_keys = {n.key for n in nodes} | set(out.results)
    for node in nodes:
        values: list[EntrantId | None] = []
        ready = True
        for source in node.sources:
            if source.kind == "seed":
                values.append(seeds.get(source.seed))
                continue
            if source.node not in known_keys:
                raise InvalidEventError(f"node {node.key!r} refers to unknown node {source.node!r}")
            result = out.results.get(source.node)
            if result is None:
                ready = False
                break
            values.append(result.winner if source.kind == "winner" else result.loser)
        if not ready:
            continue
        present = sorted((e for e in values if e is not None), key=lambda e: by_id[e])
        if not present:
            out.results[node.key] = NodeResult(None, None, False)
            continue
        if len(present) == 1:
            out.results[node.key] = NodeResult(present[0], None, False, tuple(present))
            continue
        reports = grouped.get(node.key, [])
        pairing = Pairing(
            key=PairingKey(node.key),
            round=node.round,
            participants=tuple(present),
            best_of=state.config.best_of,
            bracket=node.bracket,
            games_played=sum(1 for r in reports if not r.forfeited),
        )
        outcome = series.resolve(pairing, reports, withdrawn, allow_draw=False)
        out.views.append(PairingView(pairing, outcome))
        if outcome is None:
            continue
        index = outcome.winner_index
        if index is None:
            # Both sides forfeited: nobody goes on and both are out.
            out.results[node.key] = NodeResult(None, None, True, tuple(present))
        else:
            out.results[node.key] = NodeResult(present[index], present[1 - index], True, tuple(present))
    return out


def rank_by_stage(entrant_ids: Sequence[EntrantId], stage: dict[EntrantId, float]) -> dict[EntrantId, int]:
    """Ranks entrants by stage reached (higher is better); equal stages share a rank."""
    return {e: 1 + sum(1 for other in entrant_ids if stage[other] > stage[e]) for e in entrant_ids}
