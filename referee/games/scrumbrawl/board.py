"""The Arena: squares, directions, the loose-orb d8 layout, and placement by 2d20 and d8.

Squares are ``(row, col)``, both 1..20: the blue d20 gives the row (blue numbers run down the
side walls), the red d20 the column (red numbers along the top and bottom walls). Ids print as
``r{row}c{col}``. This module places tokens and resolves where they land; it does not know what
a goal or a combat is (``orbs`` and ``combat`` do).
"""

from __future__ import annotations

from referee.games.scrumbrawl.engine import Frame, Pos, SBMatch, step

SIZE = 20
DIRS: tuple[Pos, ...] = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
DIR_NAMES = {d: n for d, n in zip(DIRS, ("nw", "n", "ne", "w", "e", "sw", "s", "se"), strict=True)}

# Loose-orb d8 from the roller's seat: 1 2 3 / 4 X 5 / 6 7 8 with "up" away from the roller.
_LOCAL = ((1, -1), (1, 0), (1, 1), (0, -1), (0, 1), (-1, -1), (-1, 0), (-1, 1))
# Forward and right vectors of the seat's edge: bottom, top, left, right.
_FRAMES = (((-1, 0), (0, 1)), ((1, 0), (0, -1)), ((0, 1), (1, 0)), ((0, -1), (-1, 0)))


_SQ = {(r, c): f"r{r}c{c}" for r in range(0, SIZE + 2) for c in range(0, SIZE + 2)}


def sq(pos: Pos) -> str:
    """Returns the id of a square: ``r5c6``."""
    return _SQ.get(pos) or f"r{pos[0]}c{pos[1]}"


def on_board(pos: Pos) -> bool:
    """Whether ``pos`` is inside the Arena."""
    return 1 <= pos[0] <= SIZE and 1 <= pos[1] <= SIZE


def dist(a: Pos, b: Pos) -> int:
    """Squares between ``a`` and ``b`` moving in 8 directions (Chebyshev distance)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


NEIGHBOURS: dict[Pos, tuple[Pos, ...]] = {
    (r, c): tuple((r + d[0], c + d[1]) for d in DIRS if 1 <= r + d[0] <= SIZE and 1 <= c + d[1] <= SIZE)
    for r in range(1, SIZE + 1)
    for c in range(1, SIZE + 1)
}
"""The squares adjacent to each square of the Arena (precomputed: movement asks this constantly)."""

_W = SIZE + 2
INDEX: dict[Pos, int] = {pos: pos[0] * _W + pos[1] for pos in NEIGHBOURS}
"""Each square of the Arena as a small integer, in the order of the squares (row, then column), rows
``SIZE + 2`` wide: movement's search runs on bit sets of these (``movement.reach_layers``)."""
POS_AT: dict[int, Pos] = {i: pos for pos, i in INDEX.items()}
"""The square of each index of :data:`INDEX`."""
SQ_AT: dict[int, str] = {i: f"r{pos[0]}c{pos[1]}" for i, pos in POS_AT.items()}
"""The id (:func:`sq`) of the square of each index."""


def neighbours(pos: Pos) -> list[Pos]:
    """The up to 8 squares adjacent to ``pos`` inside the Arena."""
    return list(NEIGHBOURS[pos])


def d8_offset(seat: int, roll: int) -> Pos:
    """Returns the board offset of d8 ``roll`` seen from ``seat``'s edge (seat 0 bottom, 1 top, 2 left, 3 right)."""
    u, x = _LOCAL[roll - 1]
    (fr, fc), (rr, rc) = _FRAMES[seat % 4]
    return (u * fr + x * rr, u * fc + x * rc)


def edge_square(seat: int, index: int) -> Pos:
    """Returns square ``index`` (10 or 11) of ``seat``'s own edge, for Last Man Standing portals."""
    return [(SIZE, index), (1, index), (index, 1), (index, SIZE)][seat % 4]


def place_2d20(m: SBMatch, what: str, then: Frame) -> None:
    """Rolls the red and blue d20 for ``what`` and schedules ``then`` with ``then["pos"]`` set."""
    m.roll(f"place {what}", [(20, 1, 20), (20, 1, 20)], Frame("placed_2d20", {"then": then, "what": what}))


@step("placed_2d20")
def _placed(m: SBMatch, f: Frame) -> None:
    red, blue = f["dice"]
    then: Frame = f["then"]
    then["pos"] = (blue, red)
    m.stack.append(then)


# -- portals ------------------------------------------------------------------------------


def destroy_portal(m: SBMatch, pid: str) -> None:
    """Destroys portal ``pid`` and rolls its new square (1.4.2: "When a portal is destroyed, roll for the
    new Arena position of the portal token"). In Last Man Standing too: it keeps its owner."""
    if m.portals.pop(pid, None) is not None:
        m.emit("portal_destroyed", {"portal": pid})
        place_portal(m, pid)


def destroy_orbs_near(m: SBMatch, pos: Pos) -> None:
    """Destroys every orb adjacent to ``pos``, loose or carried ("destroying any adjacent orbs"), and
    every adjacent portal: each orb is replaced from the orb deck, each portal rolled anew."""
    for n in neighbours(pos):
        orb = m.loose_orb_at(n)
        holder = m.at(n)
        if orb is None and holder is not None:
            orb = holder.orb
        if orb is not None:
            replace_orb(m, orb)
        pid = m.portal_at(n)
        if pid is not None:
            destroy_portal(m, pid)


def place_portal(m: SBMatch, pid: str) -> None:
    """Schedules the 2d20 placement of portal ``pid`` (re-rolled onto an orb or portal)."""
    place_2d20(m, f"portal {pid}", Frame("portal_lands", {"pid": pid}))


@step("portal_lands")
def _portal_lands(m: SBMatch, f: Frame) -> None:
    pos: Pos = tuple(f["pos"])
    if m.portal_at(pos) is not None or m.loose_orb_at(pos) is not None or _carried_orb_at(m, pos):
        m.emit("reroll", {"detail": f"portal {f['pid']} onto an orb or portal", "row": pos[0], "col": pos[1]})
        place_portal(m, f["pid"])
        return
    m.portals[f["pid"]] = pos
    m.emit("portal_placed", {"portal": f["pid"], "row": pos[0], "col": pos[1]})
    victim = m.at(pos)
    if victim is not None:
        m.push("destroy", cid=victim.id, killer=None, cause="portal")


def _carried_orb_at(m: SBMatch, pos: Pos) -> bool:
    c = m.at(pos)
    return c is not None and c.orb is not None


# -- orbs -----------------------------------------------------------------------------------


def draw_orb(m: SBMatch) -> str | None:
    """Draws the top orb card, or ``None`` when the orb deck is empty."""
    if not m.orb_deck:
        return None
    name = m.orb_deck.pop(0)
    m.orb_known = min(m.orb_known, len(m.orb_deck))
    m.emit("orb_drawn", {"orb": name})
    return name


def place_new_orb(m: SBMatch, name: str) -> None:
    """Schedules the 2d20 placement of orb ``name``."""
    place_2d20(m, name, Frame("orb_lands", {"orb": name}))


@step("orb_lands")
def _orb_lands(m: SBMatch, f: Frame) -> None:
    pos: Pos = tuple(f["pos"])
    name = f["orb"]
    holder = m.at(pos)
    if m.portal_at(pos) is not None or m.loose_orb_at(pos) is not None or (holder is not None and holder.orb):
        m.emit("reroll", {"detail": f"{name} onto an orb or portal", "row": pos[0], "col": pos[1]})
        place_new_orb(m, name)
        return
    m.orbs[name] = pos
    m.emit("orb_placed", {"orb": name, "row": pos[0], "col": pos[1]})
    if holder is not None:
        m.push("gain_orb", cid=holder.id, orb=name, how="placement")


def replace_orb(m: SBMatch, name: str) -> None:
    """Removes orb ``name`` from play (card to the bottom of the orb deck) and brings in the next one.

    After an Orbstorm no orb is replaced until the count is back below the starting count.
    """
    m.orbs.pop(name, None)
    cid = m.carrier.pop(name, None)
    if cid is not None and cid in m.creatures:
        m.creatures[cid].orb = None
    m.orb_deck.append(name)
    m.orb_known += 1
    m.emit("orb_removed", {"orb": name})
    if len(m.orbs) < m.base_orbs:
        new = draw_orb(m)
        if new is not None:
            place_new_orb(m, new)


def relocate_orb(m: SBMatch, name: str) -> None:
    """Takes orb ``name`` off its square or carrier and rolls a new square for it (2d20)."""
    m.orbs[name] = None
    cid = m.carrier.pop(name, None)
    if cid is not None and cid in m.creatures:
        m.creatures[cid].orb = None
    del m.orbs[name]
    place_new_orb(m, name)


# -- loose orb (d8) -------------------------------------------------------------------------


def loose_orb(m: SBMatch, name: str, origin: Pos, roller: int | None = None) -> None:
    """Schedules a loose-orb placement roll (d8) of ``name`` from ``origin``.

    ``roller`` is the rolling player whose view the d8 is read from (``d8_offset``): the player
    whose action, card or creature made the orb loose; the active player when not given.
    """
    m.orbs[name] = None
    cid = m.carrier.pop(name, None)
    if cid is not None and cid in m.creatures:
        m.creatures[cid].orb = None
    m.orbs.pop(name, None)
    seat = m.active if roller is None else roller
    m.roll(
        f"loose {name}",
        [(8, 1, 8)],
        Frame("loose_lands", {"orb": name, "origin": list(origin), "roller": seat}),
        roller=seat,
    )


@step("loose_lands")
def _loose_lands(m: SBMatch, f: Frame) -> None:
    name, origin, roller = f["orb"], tuple(f["origin"]), f["roller"]
    off = d8_offset(roller, f["dice"][0])
    pos = (origin[0] + off[0], origin[1] + off[1])
    if not on_board(pos) or m.loose_orb_at(pos) is not None:
        # A re-roll is the same placement, so the same player rolls it.
        m.emit("reroll", {"detail": f"{name} would leave the Arena or land on an orb", "row": pos[0], "col": pos[1]})
        frame = Frame("loose_lands", {"orb": name, "origin": list(origin), "roller": roller})
        m.roll(f"loose {name}", [(8, 1, 8)], frame, roller=roller)
        return
    m.emit("orb_loose", {"orb": name, "row": pos[0], "col": pos[1], "from_row": origin[0], "from_col": origin[1]})
    portal = m.portal_at(pos)
    if portal is not None:
        m.orbs[name] = pos
        m.push("goal", orb=name, portal=portal, seat=_last_controller(m, name), how="loose")
        return
    m.orbs[name] = pos
    holder = m.at(pos)
    if holder is not None:
        if holder.orb is not None:
            m.emit("reroll", {"detail": f"{name} bounced off a carrier", "row": pos[0], "col": pos[1]})
            loose_orb(m, name, pos, roller)
            return
        m.push("gain_orb", cid=holder.id, orb=name, how="loose", roller=roller)


def _last_controller(m: SBMatch, name: str) -> int:
    seat, turn = m.last_control.get(name, (-1, -1))
    return seat if turn == m.turn else -1
