"""Move generation's fast paths agree with the plain rules (issue 14): the breadth-first search on bit
sets of square indices, the search that stops at its destination, and the move options reused between
decisions.

Random games are walked decision by decision; at each action decision every creature of the seat to
move is checked against a reference search on ``(row, col)`` squares written from section 1.6.1
(8 directions, no passing through creatures unless flying, a move stops on an orb, a portal or
next to an enemy Basilisk, a carrier cannot enter a loose orb's square, a Weak creature never the
heavy orb's) and against freshly built options.
"""

from __future__ import annotations

from referee.core.chance import SeededChance
from referee.core.contract import Option
from referee.games.scrumbrawl import ScrumBrawl
from referee.games.scrumbrawl.board import NEIGHBOURS, sq
from referee.games.scrumbrawl.creatures import can_act, can_carry, has, orb_hooks
from referee.games.scrumbrawl.engine import Creature, Pos, SBMatch
from referee.games.scrumbrawl.hooks import HEAVY
from referee.games.scrumbrawl.movement import gaze_squares, move_cost, reachable, remaining
from referee.games.scrumbrawl.turn import creature_options


def reference_reach(m: SBMatch, c: Creature) -> dict[Pos, int]:
    """Section 1.6.1 on ``(row, col)`` squares, one layer of the search per square of movement."""
    budget = remaining(m, c)
    occupied = {x.pos for x in m.creatures.values()}
    loose = {p for p in m.orbs.values() if p is not None}
    halt = set(m.portals.values()) | gaze_squares(m, c) | loose
    barred = {c.pos}
    if has(m, c, "weak"):
        barred |= {p for o, p in m.orbs.items() if p is not None and HEAVY.holds(orb_hooks(o))}
    if c.orb is not None and can_carry(c):
        barred |= loose
    out: dict[Pos, int] = {}
    frontier, seen = [c.pos], set(barred)
    for cost in range(1, budget + 1):
        nxt = []
        for p in frontier:
            for q in NEIGHBOURS[p]:
                if q in seen:
                    continue
                seen.add(q)
                if q in occupied:
                    if has(m, c, "flying"):
                        nxt.append(q)
                    continue
                out[q] = cost
                if q not in halt:
                    nxt.append(q)
        frontier = nxt
    return out


def _check(m: SBMatch, seat: int) -> int:
    checked = 0
    for c in sorted(m.creatures.values(), key=lambda c: c.id):
        if c.owner != seat:
            continue
        reach = reachable(m, c)
        assert reach == reference_reach(m, c), c.id
        for dest, cost in reach.items():
            assert move_cost(m, c, dest) == cost
        assert move_cost(m, c, c.pos) is None
        moves = [o for o in creature_options(m, c) if o.kind == "move"]
        if can_act(m, c) and not c.attacked:
            fresh = [
                Option(
                    f"move:{c.id}:{sq(p)}",
                    "move",
                    f"{c.name} moves to {sq(p)}",
                    {"creature": c.id, "row": p[0], "col": p[1]},
                )
                for p in sorted(reach)
            ]
            assert moves == fresh
        else:
            assert moves == []
        checked += len(reach)
    return checked


def test_the_index_search_the_stopping_search_and_reused_options_agree_with_the_rules() -> None:
    game = ScrumBrawl()
    checked = 0
    for seed, cfg in ((3, {}), (4, {"teams": True})):
        seats = 4 if cfg else 2
        m = game.new_match(game.parse_config(cfg, seats), seats, SeededChance(seed))
        policy = SeededChance(seed ^ 0x5EED)
        for _ in range(1500):
            if m.to_move() is None:
                break
            if m.phase == "act":
                checked += _check(m, m.active)
            options = m.legal_options()
            m.apply(options[policy.below(len(options))].id)
    assert checked > 5000  # many creatures, squares and board states were compared
