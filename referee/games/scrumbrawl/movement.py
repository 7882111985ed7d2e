"""Movement (section 1.6.1): 8 directions, flying, no passing through creatures, the suicide rule.

A move option names a destination; the engine finds the shortest path (breadth-first, flyers pass
over creatures). A move stops on a square with an orb (it must be picked up), a portal (a goal for
a carrier, the suicide rule otherwise) or next to an enemy Basilisk (its gaze roll); the creature
may then move on with what is left of its movement. This module does not resolve combat.
"""

from __future__ import annotations

from referee.games.scrumbrawl.board import INDEX, POS_AT, SIZE, neighbours
from referee.games.scrumbrawl.creatures import can_carry, has, heavy, orb_hooks, spec, stat
from referee.games.scrumbrawl.engine import Creature, Frame, Pos, SBMatch, step
from referee.games.scrumbrawl.hooks import GAZES, HEAVY
from referee.games.scrumbrawl.orbs import control, open_fumble_window

_W = SIZE + 2
ARENA = sum(1 << i for i in POS_AT)
"""The bit set of every square of the Arena (bit ``i`` for square index ``i``)."""
_BYTES = (_W * _W + 7) // 8
BIT: dict[Pos, int] = {pos: 1 << i for pos, i in INDEX.items()}
"""Each square of the Arena as a bit set of one square."""
_BYTE_SQUARES = [[tuple(8 * k + b for b in range(8) if byte >> b & 1) for byte in range(256)] for k in range(_BYTES)]


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


def board_masks(m: SBMatch, seat: int) -> tuple[int, int, int, int]:
    """The bit sets of the squares that hold a creature, a loose orb and a portal, and of those next
    to a Basilisk that is an enemy of ``seat``, in that order.

    What :func:`reach_layers` needs of the board besides the creature itself: the same for every
    creature of ``seat`` in one decision, so a caller listing several creatures' moves computes it
    once.
    """
    occupied = loose = portals = gaze = 0
    side = m.team_of(seat)
    for x in m.creatures.values():
        occupied |= BIT[x.pos]
        if GAZES.holds(spec(x).hooks) and m.team_of(x.owner) != side:
            gaze |= _NEAR[x.pos]
    for p in m.orbs.values():
        if p is not None:
            loose |= BIT[p]
    for p in m.portals.values():
        portals |= BIT[p]
    return occupied, loose, portals, gaze


def reachable(m: SBMatch, c: Creature) -> dict[Pos, int]:
    """Returns each square ``c`` may end a move on, with its cost in squares."""
    return {POS_AT[i]: cost for cost, layer in enumerate(reach_layers(m, c), 1) for i in squares_of(layer)}


def move_cost(m: SBMatch, c: Creature, dest: Pos) -> int | None:
    """The cost in squares of ``c``'s move to ``dest``, or None if it cannot end a move there.

    The same as ``reachable(m, c).get(dest)``, but the search stops as soon as it reaches ``dest``.
    """
    target = INDEX.get(dest)
    if target is None:
        return None
    return layer_cost(reach_layers(m, c, target), target)


def layer_cost(layers: list[int], i: int) -> int | None:
    """The cost of square index ``i`` in :func:`reach_layers` ``layers``, or None if none holds it."""
    bit = 1 << i
    for cost, layer in enumerate(layers, 1):
        if layer & bit:
            return cost
    return None


def _spread(f: int) -> int:
    """The squares next to any square of the set ``f`` (bit ``i`` for index ``i``), inside the Arena.

    A row of the index is ``SIZE + 2`` wide with an off-board column on each side, so a shift never
    wraps from one row's edge to the next row's square: the mask drops what falls off the Arena.
    """
    rows = f | (f << 1) | (f >> 1)  # each square with its left and right neighbours
    return (rows | (rows << _W) | (rows >> _W)) & ARENA


_NEAR: dict[Pos, int] = {pos: _spread(bit) & ~bit for pos, bit in BIT.items()}
"""The squares adjacent to each square, as a bit set."""


def reach_layers(
    m: SBMatch, c: Creature, target: int = -1, board: tuple[int, int, int, int] | None = None
) -> list[int]:
    """:func:`reachable` as bit sets of square indices (:data:`~referee.games.scrumbrawl.board.INDEX`),
    one per cost: ``layers[k]`` holds the squares ``c`` may end a move on for ``k + 1`` squares.

    The breadth-first search of section 1.6.1 runs a whole layer at once on the bit sets. With a
    ``target`` it stops at the first layer that holds that square. ``board`` is
    :func:`board_masks` of ``c``'s owner, when the caller has it.
    """
    budget = remaining(m, c)
    if budget <= 0:
        return []
    flying = has(m, c, "flying")
    occupied, loose, portals, gaze = board_masks(m, c.owner) if board is None else board
    halt = portals | loose if c.gazed else portals | loose | gaze
    start = BIT[c.pos]
    seen = start
    if has(m, c, "weak"):
        heavy_sq = next((p for o, p in m.orbs.items() if p is not None and HEAVY.holds(orb_hooks(o))), None)
        if heavy_sq is not None:
            seen |= BIT[heavy_sq]
    if c.orb is not None and can_carry(c):
        seen |= loose
    if not flying:
        seen |= occupied  # a walker neither ends on nor passes an occupied square
    goal = 1 << target if target >= 0 else 0
    layers: list[int] = []
    free = ARENA & ~seen  # the squares not reached yet
    frontier = start
    for _ in range(budget):
        rows = frontier | (frontier << 1) | (frontier >> 1)  # _spread, inlined: the innermost loop
        new = (rows | (rows << _W) | (rows >> _W)) & free
        free ^= new
        if flying:
            land = new & ~occupied
            frontier = (new & occupied) | (land & ~halt)  # a flyer passes over a creature
        else:
            land = new
            frontier = new & ~halt
        layers.append(land)
        if land & goal or not frontier:
            break
    return layers


def squares_of(mask: int) -> list[int]:
    """The square indices of bit set ``mask``, in increasing order (the order of the squares)."""
    out: list[int] = []
    if not mask:
        return out
    # Only the bytes from the lowest square's to the highest's: a reach is a few rows of the Arena.
    low = ((mask & -mask).bit_length() - 1) >> 3
    for k, byte in enumerate((mask >> 8 * low).to_bytes((mask.bit_length() + 7 >> 3) - low, "little"), low):
        if byte:
            out.extend(_BYTE_SQUARES[k][byte])
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
