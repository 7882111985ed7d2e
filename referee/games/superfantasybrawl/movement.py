"""Movement on the hex grid: move, Dash, Swoop, Jump, Place, Force, Fear, Push and Pull.

The functions here compute where a champion may go and by which path (A10, A15); the ``walk``
step then moves it hex by hex so that traps trigger on entry (A9). This module decides
geometry only; it deals no damage itself (blocked Push/Pull damage is queued as a step).

House reading (A18.4 and paths): a move is chosen by its destination. Of the paths that reach
it within the movement allowance, the engine walks the one that enters the fewest trap hexes,
then the shortest, then the first in direction order. A player never gains by entering a
face-down trap, so this loses no choice a player would make.
"""

from __future__ import annotations

from referee.games.superfantasybrawl.hexes import DIRECTIONS, Hex, add, distance, hex_id, row_direction
from referee.games.superfantasybrawl.state import ChampState, MatchState, occupied, team
from referee.games.superfantasybrawl.steps import Frame, Pending, Step, step
from referee.games.superfantasybrawl.traps import trigger_steps

Path = list[Hex]


def endable(m: MatchState, h: Hex, occ: dict[Hex, ChampState] | None = None) -> bool:
    """Whether a champion may end a move on ``h``: on the board, no statue, nobody there."""
    occ = occupied(m) if occ is None else occ
    return h in m.content.arena.cells and h not in m.statues and h not in occ


def _passable(m: MatchState, mover: ChampState, h: Hex, occ: dict[Hex, ChampState]) -> bool:
    if h not in m.content.arena.cells or h in m.statues:
        return False
    other = occ.get(h)
    return other is None or other.id == mover.id or team(m, other.seat) == team(m, mover.seat)


_OPEN: dict[tuple[int, frozenset[Hex]], tuple[frozenset[Hex], dict[Hex, tuple[Hex, ...]]]] = {}
""":func:`open_neighbours` by (the cells' identity, the statues); the cells are kept alive in the
value, so that their id is never reused. Pure geometry, computed once per arena."""


def open_neighbours(cells: frozenset[Hex], statues: frozenset[Hex]) -> dict[Hex, tuple[Hex, ...]]:
    """Each hex of ``cells`` that is not a statue, with its neighbours in ``cells`` that are not statues.

    The neighbours come in direction order (:data:`~.hexes.DIRECTIONS`), as a search visits them.
    """
    key = (id(cells), statues)
    entry = _OPEN.get(key)
    if entry is None or entry[0] is not cells:
        table = {h: _open_around(h, cells, statues) for h in cells if h not in statues}
        entry = _OPEN[key] = (cells, table)
    return entry[1]


def _open_around(h: Hex, cells: frozenset[Hex], statues: frozenset[Hex]) -> tuple[Hex, ...]:
    return tuple(n for n in ((h[0] + d[0], h[1] + d[1]) for d in DIRECTIONS) if n in cells and n not in statues)


def reachable(m: MatchState, mover: ChampState, starts: list[Hex], cost: int, budget: int) -> dict[Hex, Path]:
    """Returns each hex ``mover`` may end a normal move on, with the path it walks.

    ``starts`` are the hexes the move starts from, all at ``cost``: the champion's own hex at 0, or
    for re-entry each free deployment hex at 1 (A14). Statues and Enemies block; Allies may be
    passed but not ended on (A10).
    """
    if cost > budget:
        return {}
    occ = occupied(m)
    traps = m.traps
    cells, statues = m.content.arena.cells, m.statues
    # The hexes an Enemy stands on: the rest of :func:`_passable`, computed once per search.
    mine = team(m, mover.seat)
    enemies = {h for h, other in occ.items() if other.id != mover.id and team(m, other.seat) != mine}
    # Fewest traps entered first, then fewest steps. The search goes a layer of steps at a time from
    # starts at one cost, so a hex seen again is never fewer steps away: only fewer traps improve it.
    best: dict[Hex, int] = {}
    paths: dict[Hex, Path] = {}
    frontier: list[tuple[Hex, int, Path]] = []
    for h in starts:
        t = 1 if (cost and h in traps) else 0
        path = [h] if cost else []
        frontier.append((h, t, path))
        if h not in best or t < best[h]:
            best[h] = t
            paths[h] = path
    around = open_neighbours(cells, statues)
    steps = cost
    while frontier and steps < budget:
        steps += 1
        nxt: list[tuple[Hex, int, Path]] = []
        for h, t, path in frontier:
            nbrs = around.get(h)
            if nbrs is None:  # a start off the open board (never in play): its neighbours one by one
                nbrs = _open_around(h, cells, statues)
            for n in nbrs:
                if n in enemies:
                    continue
                nt = t + 1 if n in traps else t
                old = best.get(n)
                if old is not None and old <= nt:
                    continue
                npath = [*path, n]
                best[n] = nt
                paths[n] = npath
                nxt.append((n, nt, npath))
        frontier = nxt
    # Only a start can be off the open board; every other hex came from the table.
    closed = {h for h in starts if h not in cells or h in statues}
    return {h: p for h, p in paths.items() if p and h not in occ and h not in closed}


def move_destinations(m: MatchState, mover: ChampState, budget: int) -> dict[Hex, Path]:
    """Destinations of a normal move of up to ``budget``, including re-entry from the Gate (A14)."""
    if budget <= 0 or mover.rooted:
        return {}
    if mover.hex is None:
        occ = occupied(m)
        area = m.content.arena.deployment[m.deploy_side[team(m, mover.seat)]]
        return reachable(m, mover, [h for h in area if endable(m, h, occ)], 1, budget)
    return reachable(m, mover, [mover.hex], 0, budget)


def line_destinations(m: MatchState, mover: ChampState, budget: int, *, swoop: bool) -> dict[Hex, Path]:
    """Dash (normal restrictions) or Swoop (passes statues and champions) destinations along hex rows."""
    if mover.hex is None or mover.rooted:
        return {}
    occ = occupied(m)
    out: dict[Hex, Path] = {}
    for d in DIRECTIONS:
        h = mover.hex
        path: Path = []
        for _ in range(budget):
            h = add(h, d)
            if h not in m.content.arena.cells:
                break
            if not swoop and not _passable(m, mover, h, occ):
                break
            path.append(h)
            if endable(m, h, occ):
                out[h] = list(path)
    return out


def jump_destinations(m: MatchState, mover: ChampState, budget: int) -> dict[Hex, Path]:
    """Jump: any free hex within ``budget``; everything in between is passed over (A15)."""
    if mover.hex is None or mover.rooted:
        return {}
    occ = occupied(m)
    here = mover.hex
    return {h: [h] for h in sorted(m.content.arena.cells) if 0 < distance(here, h) <= budget and endable(m, h, occ)}


def place_destinations(m: MatchState, anchor: Hex, lo: int, hi: int) -> list[Hex]:
    """Free hexes within ``lo..hi`` of ``anchor``, for Place (not movement, so Root does not stop it)."""
    occ = occupied(m)
    return [h for h in sorted(m.content.arena.cells) if lo <= distance(anchor, h) <= hi and endable(m, h, occ)]


def force_destinations(m: MatchState, target: ChampState, budget: int) -> dict[Hex, Path]:
    """Force: the card's player moves the target up to ``budget`` through free hexes (A15).

    House reading: the forced champion may not pass through statues or any champion.
    """
    if target.hex is None or target.rooted:
        return {}
    occ = occupied(m)
    best: dict[Hex, Path] = {target.hex: []}
    frontier = [target.hex]
    for _ in range(budget):
        nxt = []
        for h in frontier:
            for d in DIRECTIONS:
                n = add(h, d)
                if n in best or not endable(m, n, occ):
                    continue
                best[n] = [*best[h], n]
                nxt.append(n)
        frontier = nxt
    return {h: p for h, p in best.items() if p}


def straight_displacement(
    m: MatchState, source: Hex, target: ChampState, value: int, *, away: bool
) -> tuple[Path, int]:
    """Push (``away``) or Pull: the path along the shared hex row and the hexes it could not move.

    Returns ``([], 0)`` when source and target share no hex row (the effect is ignored, A15).
    The move stops before a champion, a statue or the board edge; each hex not moved is 1
    damage (dized, followed over the Italian seed: A15 CONFLICT).
    """
    assert target.hex is not None
    d = row_direction(source, target.hex)
    if d is None:
        return [], 0
    step_dir = DIRECTIONS[d] if away else DIRECTIONS[(d + 3) % 6]
    occ = occupied(m)
    path: Path = []
    h = target.hex
    for _ in range(value):
        n = add(h, step_dir)
        if not endable(m, n, occ):
            break
        path.append(n)
        h = n
    return path, value - len(path)


def towards(start: Hex, end: Hex, element: Hex) -> bool:
    """Whether a move from ``start`` to ``end`` goes towards ``element``.

    Seed-ja (向かう): after the move the champion must be fewer hexes from the element than before;
    only the whole move counts, not each step.
    """
    return distance(end, element) < distance(start, element)


def away(start: Hex, end: Hex, element: Hex) -> bool:
    """Whether a move from ``start`` to ``end`` goes away from ``element``.

    Seed-ja (遠ざかる): after the move the champion must be more hexes from the element than before;
    a sideways Dash that ends further away qualifies.
    """
    return distance(end, element) > distance(start, element)


def relative(dests: dict[Hex, Path], start: Hex, element: Hex, relation: str) -> dict[Hex, Path]:
    """Keeps the destinations that go ``relation`` (``"towards"`` or ``"away"``) relative to ``element``.

    An empty result means the champion does not move (seed-ja: "それができない場合、その戦士は移動しません").
    """
    keep = towards if relation == "towards" else away
    return {h: p for h, p in dests.items() if keep(start, h, element)}


def fear_destinations(m: MatchState, target: ChampState, source: Hex, value: int) -> dict[Hex, Path]:
    """Fear X: the longest Dashes of up to X that end further from ``source`` than the champion starts.

    Seed-it: the feared champion "deve scattare X in una direzione a sua scelta, purché sia lontano
    dalla fonte" and "deve muovere il massimo dello scatto possibile"; seed-ja measures "away"
    after the move. So every Dash destination (normal restrictions: Allies passed, not ended on)
    that ends further away is a candidate, and only the candidates of the greatest length remain;
    its controller picks among them. None ends further away: the champion does not move.
    """
    if target.hex is None or target.rooted:
        return {}
    dashes = relative(line_destinations(m, target, value, swoop=False), target.hex, source, "away")
    if not dashes:
        return {}
    longest = max(len(p) for p in dashes.values())
    return {h: p for h, p in dashes.items() if len(p) == longest}


def walk_step(
    champ: str, path: Path, mode: str, source: str | None, *, then_damage: int = 0, straight: bool = False
) -> Step:
    """Builds a ``walk`` step: ``mode`` is ``move`` (traps on every hex entered), ``leap`` (Jump,
    Swoop, Place: only the last hex) or ``displace`` (Push, Pull, Fear, Force)."""
    return Frame(
        "walk",
        {
            "champ": champ,
            "path": tuple(path),
            "mode": mode,
            "source": source,
            "i": 0,
            "then_damage": then_damage,
            "straight": straight,
        },
    )


@step("walk")
def _walk(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    c = m.champs[st["champ"]]
    path: tuple[Hex, ...] = st["path"]
    i = st["i"]
    start = c.hex
    walked: list[Hex] = []
    interrupted = False
    entering = i == 0 and c.hex is None
    if c.hex is None and not entering:
        return None  # taken out of action part-way: the rest of the movement is lost
    while i < len(path):
        if c.hex is None and not (entering and i == 0):
            break
        if c.rooted and st["mode"] in ("move", "displace"):
            if st["straight"]:
                # A Push or Pull stopped by Root: the hexes not moved are damage; Fear and Force just stop.
                st["then_damage"] += len(path) - i
            break
        h = path[i]
        i += 1
        c.hex = h
        walked.append(h)
        if h in m.traps and (st["mode"] != "leap" or i == len(path)):
            st["i"] = i
            m.emit(
                "moved",
                {"champion": c.id, "from_hex": _hid(start), "path": [_hid(x) for x in walked], "mode": st["mode"]},
            )
            m.push_all([*trigger_steps(m, c, h, st["source"]), st.but(path=st["path"], i=i)])
            interrupted = True
            break
    if interrupted:
        return None
    if walked:
        m.emit(
            "moved", {"champion": c.id, "from_hex": _hid(start), "path": [_hid(x) for x in walked], "mode": st["mode"]}
        )
    if st["then_damage"] and c.hex is not None:
        m.push_all([Frame("deal", {"champ": c.id, "amount": st["then_damage"], "source": st["source"]})])
    return None


def _hid(h: Hex | None) -> str:
    return hex_id(h) if h is not None else ""
