"""The normal move search against a plain reference search (A10, A14; movement.py's house reading).

``movement.reachable`` searches a layer of steps at a time over a table of open neighbours and
compares traps only. The reference below is the search as first written: every neighbour tested
against the board, statues and Enemies, and (traps, steps) compared as a pair. On random
positions (champions of both teams, face-down traps, Allies in the way, re-entry from the Gate)
both must give the same destinations with the same paths.
"""

from __future__ import annotations

import random

from referee.games.superfantasybrawl.hexes import DIRECTIONS, Hex
from referee.games.superfantasybrawl.match import BrawlMatch
from referee.games.superfantasybrawl.movement import endable, move_destinations
from referee.games.superfantasybrawl.state import ChampState, occupied, team
from tests.games.superfantasybrawl.helpers import build

ROSTER = ["brannoc", "quill", "gloam", "greta", "tavi", "wren"]


def _reference(m: BrawlMatch, mover: ChampState, starts: list[tuple[Hex, int]], budget: int) -> dict[Hex, list[Hex]]:
    occ = occupied(m)
    cells, statues = m.content.arena.cells, m.statues
    best: dict[Hex, tuple[int, int, list[Hex]]] = {}
    frontier: list[tuple[Hex, int, int, list[Hex]]] = []
    for h, cost in starts:
        if cost <= budget:
            t = 1 if (cost and h in m.traps) else 0
            path = [h] if cost else []
            frontier.append((h, t, cost, path))
            if h not in best or (t, cost) < best[h][:2]:
                best[h] = (t, cost, path)
    while frontier:
        nxt = []
        for h, t, steps, path in frontier:
            if steps >= budget:
                continue
            for d in DIRECTIONS:
                n = (h[0] + d[0], h[1] + d[1])
                if n not in cells or n in statues:
                    continue
                other = occ.get(n)
                if other is not None and other.id != mover.id and team(m, other.seat) != team(m, mover.seat):
                    continue
                nt = t + (1 if n in m.traps else 0)
                if n in best and best[n][:2] <= (nt, steps + 1):
                    continue
                best[n] = (nt, steps + 1, [*path, n])
                nxt.append((n, nt, steps + 1, [*path, n]))
        frontier = nxt
    return {h: p for h, (_t, _s, p) in best.items() if p and h in cells and h not in statues and h not in occ}


def _reference_move(m: BrawlMatch, mover: ChampState, budget: int) -> dict[Hex, list[Hex]]:
    if budget <= 0 or mover.rooted:
        return {}
    if mover.hex is None:
        area = m.content.arena.deployment[m.deploy_side[team(m, mover.seat)]]
        return _reference(m, mover, [(h, 1) for h in area if endable(m, h)], budget)
    return _reference(m, mover, [(mover.hex, 0)], budget)


def test_the_move_search_finds_the_reference_searchs_destinations_and_paths() -> None:
    rng = random.Random(14)
    base = build({"brannoc": {"seat": 0, "hex": (0, -1)}})
    open_hexes = sorted(h for h in base.content.arena.cells if h not in base.statues)
    searched = with_traps = from_gate = 0
    for _ in range(300):
        spots = rng.sample(open_hexes, len(ROSTER) + 8)
        champs = {
            cid: {"seat": i % 2, "hex": None if rng.random() < 0.15 else spots[i]} for i, cid in enumerate(ROSTER)
        }
        traps = {h: ("damage", 1) for h in spots[len(ROSTER) : len(ROSTER) + rng.randint(0, 8)]}
        m = build(champs, traps=traps)
        for c in m.champs.values():
            for budget in (1, 2, 3, 5):
                got = move_destinations(m, c, budget)
                assert got == _reference_move(m, c, budget), (c.id, c.hex, budget, traps)
                searched += 1
                with_traps += any(h in traps for p in got.values() for h in p)
                from_gate += c.hex is None and bool(got)
    assert searched == 300 * len(ROSTER) * 4
    assert with_traps > 100 and from_gate > 50
