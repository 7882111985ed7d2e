"""Movement (section 1.6.1): 8 directions, flying, no passing through creatures, the suicide rule.

A move option names a destination; the engine finds the shortest path (breadth-first, flyers pass
over creatures). A move stops on a square with an orb (it must be picked up), a portal (a goal for
a carrier, the suicide rule otherwise) or next to an enemy Basilisk (its gaze roll); the creature
may then move on with what is left of its movement. This module does not resolve combat.
"""

from __future__ import annotations

from referee.games.scrumbrawl.board import INDEX, NEIGHBOUR_INDEX, POS_AT, neighbours
from referee.games.scrumbrawl.creatures import can_carry, has, heavy, orb_hooks, spec, stat
from referee.games.scrumbrawl.engine import Creature, Frame, Pos, SBMatch, step
from referee.games.scrumbrawl.hooks import GAZES, HEAVY
from referee.games.scrumbrawl.orbs import control, open_fumble_window


def remaining(m: SBMatch, c: Creature) -> int:
    """Squares of movement ``c`` has left this turn."""
    return max(stat(m, c, "M") - c.steps, 0)


def gaze_squares(m: SBMatch, c: Creature) -> set[Pos]:
    """Squares adjacent to an enemy Basilisk, if ``c`` has not been gazed at this turn."""
    if c.gazed:
        return set()
    out: set[Pos] = set()
    for b in m.creatures.values():
        if GAZES.holds(spec(b).hooks) and not m.friendly(b.owner, c.owner):
            out.update(neighbours(b.pos))
    return out


def reachable(m: SBMatch, c: Creature) -> dict[Pos, int]:
    """Returns each square ``c`` may end a move on, with its cost in squares."""
    return {POS_AT[i]: cost for i, cost in reach_indices(m, c).items()}


def move_cost(m: SBMatch, c: Creature, dest: Pos) -> int | None:
    """The cost in squares of ``c``'s move to ``dest``, or None if it cannot end a move there.

    The same as ``reachable(m, c).get(dest)``, but the search stops as soon as it reaches ``dest``.
    """
    target = INDEX.get(dest)
    if target is None:
        return None
    return reach_indices(m, c, target).get(target)


def reach_indices(m: SBMatch, c: Creature, target: int = -1) -> dict[int, int]:
    """:func:`reachable` with the squares as :data:`~referee.games.scrumbrawl.board.INDEX` numbers.

    With a ``target`` the search stops once it has reached that square (breadth first: at its least cost).
    """
    budget = remaining(m, c)
    if budget <= 0:
        return {}
    flying = has(m, c, "flying")
    occupied = {INDEX[x.pos] for x in m.creatures.values()}
    stops = {INDEX[p] for p in m.portals.values()} | {INDEX[p] for p in gaze_squares(m, c)}
    loose = {INDEX[p] for p in m.orbs.values() if p is not None}
    weak = has(m, c, "weak")
    heavy_sq = next((p for o, p in m.orbs.items() if p is not None and HEAVY.holds(orb_hooks(o))), None)
    blocked_orb = c.orb is not None and can_carry(c)
    out: dict[int, int] = {}
    start = INDEX[c.pos]
    frontier = [start]
    seen = {start}
    if weak and heavy_sq is not None:
        seen.add(INDEX[heavy_sq])
    if blocked_orb:
        seen |= loose
    halt = stops | loose
    for cost in range(1, budget + 1):
        nxt: list[int] = []
        for p in frontier:
            for q in NEIGHBOUR_INDEX[p]:
                if q in seen:
                    continue
                seen.add(q)
                if q in occupied:
                    if flying:
                        nxt.append(q)
                    continue
                out[q] = cost
                if q == target:
                    return out
                if q not in halt:
                    nxt.append(q)
        frontier = nxt
    return out


def move(m: SBMatch, c: Creature, dest: Pos) -> None:
    """Schedules ``c``'s move to ``dest`` (a Fumble window opens first when it carries an orb)."""
    m.push("move_go", cid=c.id, dest=list(dest))
    open_fumble_window(m, c.id, "before the carrier moves")


@step("move_go")
def _move_go(m: SBMatch, f: Frame) -> None:
    c = m.creatures.get(f["cid"])
    if c is None or c.done:
        return
    dest: Pos = tuple(f["dest"])
    cost = move_cost(m, c, dest)
    if cost is None:
        return
    control(m, c)
    old = c.pos
    c.pos = dest
    c.steps += cost
    c.moved = True
    m.emit(
        "move",
        {"creature": c.id, "from_row": old[0], "from_col": old[1], "row": dest[0], "col": dest[1], "values": [cost]},
    )
    portal = m.portal_at(dest)
    if portal is not None:
        if c.orb is not None:
            m.push("goal", orb=c.orb, portal=portal, seat=c.owner, how="carry")
        else:
            m.emit("suicide", {"creature": c.id, "portal": portal})
            m.push("destroy", cid=c.id, killer=None, cause="suicide")
        return
    if c.orb is not None:
        open_fumble_window(m, c.id, "after the carrier moves")
    if dest in gaze_squares(m, c):
        m.push("gaze", cid=c.id)
    orb = m.loose_orb_at(dest)
    if orb is not None:
        m.push("gain_orb", cid=c.id, orb=orb, how="move")


@step("gaze")
def _gaze(m: SBMatch, f: Frame) -> None:
    c = m.creatures.get(f["cid"])
    if c is None or c.gazed:
        return
    c.gazed = True
    m.roll("Basilisk gaze", [(8, 1, 8)], Frame("gaze_check", {"cid": c.id}))


@step("gaze_check")
def _gaze_check(m: SBMatch, f: Frame) -> None:
    c = m.creatures.get(f["cid"])
    if c is not None and f["dice"][0] <= 4:
        c.done = True
        m.emit("ability", {"name": "Basilisk", "target": c.id, "detail": "paralysed: its turn ends"})


def heavy_blocks_flight(m: SBMatch, c: Creature) -> bool:
    """Whether the Heavy Orb keeps ``c`` on the ground."""
    return heavy(m, c)


GAZES.mark("basilisk_gaze")
