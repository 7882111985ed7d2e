"""Orb maneuvering (section 1.6.2) and the orbs' effects (section 2.4).

Pick-up, throw and catch (with the tribal bonus), handoff, goals by carrying, throwing and a loose
orb, blue chips, fumbles, and the orb effects at the start and end of a turn. Placement and the
d8 loose-orb roll live in ``board``; scoring chips and victory in ``scoring``.
"""

from __future__ import annotations

from referee.games.scrumbrawl.board import (
    dist,
    loose_orb,
    place_new_orb,
    place_portal,
    relocate_orb,
    replace_orb,
)
from referee.games.scrumbrawl.creatures import can_carry, carries_heavy, has, orb_hooks, relocate_creature, spec, stat
from referee.games.scrumbrawl.engine import Creature, Frame, SBMatch, step
from referee.games.scrumbrawl.hooks import (
    AFTER_CATCH,
    BEFORE_THROW,
    CARRIER_TURN_END,
    CARRIER_TURN_START,
    HEAVY,
    KILLER,
    ON_GAIN,
    ON_HANDOFF,
    ON_PICKUP,
    SHATTERS,
)


def fumble_seats(m: SBMatch) -> list[int]:
    """The active player's opponents, clockwise: the seats Fumble's moments on another's turn are for.

    2.3 Fumble: "If played during opponent's turn, it must be before a carrier moves, after a carrier
    completes its move, as a creature gains possession of an orb, or before an attempted throw." A
    teammate's turn is not an opponent's: the teammate plays Fumble at any time (``cards.open_anytime``).
    """
    return [s for s in m.order_from(m.active) if not m.friendly(s, m.active)]


def open_fumble_window(m: SBMatch, cid: str, moment: str) -> None:
    """Opens a held Fumble window on carrier ``cid`` for every opponent of the active player, whatever it holds."""
    c = m.creatures.get(cid)
    if c is None or not can_be_fumbled(m, c):
        return
    m.open_window("fumble_window", fumble_seats(m), f"play Fumble {moment}?", cid=cid, moment=moment)


@step("gain_orb")
def _gain_orb(m: SBMatch, f: Frame) -> None:
    """A creature shares a square with a loose orb (moving in, placement or a loose-orb roll).

    ``roller`` (set when a loose-orb roll put the orb there) is the player who rolled it: a roll that
    follows from this one (a Noncarrier's, a Slippery pick-up's) is rolled by the same player.
    """
    c = m.creatures.get(f["cid"])
    orb = f["orb"]
    roller = f.get("roller")
    if c is None or m.orbs.get(orb) != c.pos:
        return
    if not can_carry(c) or c.orb is not None:
        m.emit("ability", {"creature": c.id, "name": c.name, "detail": "cannot hold the orb", "orb": orb})
        loose_orb(m, orb, c.pos, roller)
        return
    for handler in ON_PICKUP.of(orb_hooks(orb)):
        if handler(m, c, orb, f["how"], roller):
            return
    take_orb(m, c, orb, f["how"])


@ON_PICKUP.register("heavy_weight")
def _heavy_pickup(m: SBMatch, c: Creature, orb: str, how: str, roller: int | None) -> bool:
    if not has(m, c, "weak"):
        return False
    m.emit("ability", {"creature": c.id, "name": c.name, "detail": f"Weak: crushed by the {orb}"})
    m.push("destroy", cid=c.id, killer=None, cause="heavy_orb")
    return True


@ON_PICKUP.register("slippery_fumble")
def _slippery_pickup_roll(m: SBMatch, c: Creature, orb: str, how: str, roller: int | None) -> bool:
    # 2.4 "On attempted pickup ... roll d8": also when the orb lands on the creature (placement,
    # loose-orb roll), not only when it moves onto the orb.
    m.roll(
        f"{orb} pick up", [(8, 1, 8)], Frame("slippery_pickup", {"cid": c.id, "orb": orb, "how": how, "roller": roller})
    )
    return True


@step("slippery_pickup")
def _slippery_pickup(m: SBMatch, f: Frame) -> None:
    c = m.creatures.get(f["cid"])
    if c is None:
        return
    if f["dice"][0] <= 4 and not has(m, c, "sticky"):
        m.emit("fumble", {"creature": c.id, "orb": f["orb"], "detail": f["orb"]})
        c.done = True
        loose_orb(m, f["orb"], c.pos, f.get("roller"))
        return
    take_orb(m, c, f["orb"], f.get("how", "move"))


def take_orb(m: SBMatch, c: Creature, orb: str, how: str) -> None:
    """Makes ``c`` the carrier of ``orb`` (a Chaos Orb then relocates it); opens the possession Fumble window."""
    m.orbs[orb] = None
    m.carrier[orb] = c.id
    c.orb = orb
    m.last_control[orb] = (c.owner, m.turn)
    m.emit("pickup", {"creature": c.id, "orb": orb, "seat": c.owner, "detail": how})
    for handler in ON_GAIN.of(orb_hooks(orb)):
        handler(m, c)
    open_fumble_window(m, c.id, "as it gains the orb")


@ON_GAIN.register("chaos_carrier")
def _chaos_gained(m: SBMatch, c: Creature) -> None:
    relocate_creature(m, c)


@step("fumble")
def _fumble(m: SBMatch, f: Frame) -> None:
    """The carrier fumbles: its turn ends and the orb takes a loose-orb roll (a Crystal Orb shatters).

    ``roller`` (set by a Fumble card) is the player who rolls the d8; otherwise the active player.
    """
    c = m.creatures.get(f["cid"])
    if c is None or c.orb is None:
        return
    orb = c.orb
    c.done = True
    m.emit("fumble", {"creature": c.id, "orb": orb, "detail": f.get("why", "")})
    if SHATTERS.holds(orb_hooks(orb)):
        m.emit("orb_shatters", {"orb": orb})
        relocate_orb(m, orb)
        return
    loose_orb(m, orb, c.pos, f.get("roller"))


def can_be_fumbled(m: SBMatch, c: Creature) -> bool:
    """Whether a Fumble card may target ``c``: a carrier, not stone, not Sticky Fingers."""
    return c.orb is not None and c.stone_turn < 0 and not has(m, c, "sticky")


# -- throws, catches, handoffs, goals ---------------------------------------------------------


def control(m: SBMatch, c: Creature) -> None:
    """Records that ``c``'s controller controls its orb this turn (for a loose orb landing in a portal)."""
    if c.orb is not None:
        m.last_control[c.orb] = (c.owner, m.turn)


def throw_targets(m: SBMatch, c: Creature) -> list[Creature]:
    """Friendly creatures in ``c``'s throwing range that can catch (Killer Orb: any creature)."""
    rng = stat(m, c, "R")
    out = []
    for t in m.creatures.values():
        if t.id == c.id or not can_carry(t) or t.orb is not None or dist(t.pos, c.pos) > rng:
            continue
        if carries_heavy(c) and has(m, t, "weak"):
            continue
        if m.friendly(t.owner, c.owner):
            out.append(t)
    return sorted(out, key=lambda t: t.id)


def start_throw(m: SBMatch, c: Creature, target: Creature) -> None:
    """Declares a throw from ``c`` to ``target``: Fumble window, Slippery roll, then the catch roll."""
    c.done = True
    c.maneuvered = True
    control(m, c)
    m.emit("throw", {"creature": c.id, "target": target.id, "orb": c.orb or ""})
    m.push("throw_roll", cid=c.id, tid=target.id)
    for handler in BEFORE_THROW.of(orb_hooks(c.orb)):
        handler(m, c)
    open_fumble_window(m, c.id, "before the throw")


@BEFORE_THROW.register("slippery_fumble")
def _slippery_throw(m: SBMatch, c: Creature) -> None:
    m.roll(f"{c.orb} throw", [(8, 1, 8)], Frame("slippery_gate", {"cid": c.id, "orb": c.orb}))


@step("slippery_gate")
def _slippery_gate(m: SBMatch, f: Frame) -> None:
    c = m.creatures.get(f["cid"])
    if c is not None and c.orb is not None and f["dice"][0] <= 4 and not has(m, c, "sticky"):
        m.push("fumble", cid=c.id, why=f["orb"])


@step("throw_roll")
def _throw_roll(m: SBMatch, f: Frame) -> None:
    c, t = m.creatures.get(f["cid"]), m.creatures.get(f["tid"])
    if c is None or c.orb is None:
        return
    if t is None or t.orb is not None:
        m.push("fumble", cid=c.id, why="no receiver")
        return
    need = stat(m, c, "T") + stat(m, t, "C") + (4 if spec(c).color == spec(t).color else 0)
    m.roll("catch", [(20, 1, None)], Frame("catch", {"cid": c.id, "tid": t.id, "need": need}))


@step("catch")
def _catch(m: SBMatch, f: Frame) -> None:
    c, t = m.creatures.get(f["cid"]), m.creatures.get(f["tid"])
    if c is None or c.orb is None:
        return
    orb = c.orb
    ok = t is not None and t.orb is None and f["dice"][0] <= f["need"]
    m.emit(
        "catch_roll",
        {
            "creature": c.id,
            "target": f["tid"],
            "dice": f["dice"],
            "total": f["need"],
            "result": "caught" if ok else "dropped",
        },
    )
    if not ok or t is None:
        if t is not None:
            t.done = t.done or t.owner == m.active
        if SHATTERS.holds(orb_hooks(orb)):
            m.emit("orb_shatters", {"orb": orb})
            relocate_orb(m, orb)
            return
        origin = t.pos if t is not None else c.pos
        loose_orb(m, orb, origin)
        return
    for handler in AFTER_CATCH.of(orb_hooks(orb)):
        handler(m, t, orb)
    c.orb = None
    del m.carrier[orb]
    _receive(m, t, orb, "catch")


@AFTER_CATCH.register("slippery_fumble")
def _slippery_caught(m: SBMatch, t: Creature, orb: str) -> None:
    m.push("slippery_catch", cid=t.id, orb=orb)


@step("slippery_catch")
def _slippery_catch(m: SBMatch, f: Frame) -> None:
    t = m.creatures.get(f["cid"])
    if t is not None and t.orb == f["orb"]:
        m.roll(f"{t.orb} catch", [(8, 1, 8)], Frame("slippery_gate", {"cid": t.id, "orb": t.orb}))


def _receive(m: SBMatch, t: Creature, orb: str, how: str) -> None:
    if t.moved and t.owner == m.active and how == "catch":
        t.done = True
    m.orbs[orb] = None
    m.carrier[orb] = t.id
    t.orb = orb
    m.last_control[orb] = (t.owner, m.turn)
    m.emit("pickup", {"creature": t.id, "orb": orb, "seat": t.owner, "detail": how})
    for handler in ON_GAIN.of(orb_hooks(orb)):
        handler(m, t)
    open_fumble_window(m, t.id, "as it gains the orb")


def handoff(m: SBMatch, c: Creature, t: Creature) -> None:
    """Hands ``c``'s orb to the adjacent friendly ``t``; ``c``'s turn ends."""
    orb = c.orb
    assert orb is not None
    c.done = True
    c.maneuvered = True
    control(m, c)
    m.emit("handoff", {"creature": c.id, "target": t.id, "orb": orb})
    for handler in ON_HANDOFF.of(orb_hooks(orb)):
        if handler(m, c, t):
            return
    c.orb = None
    del m.carrier[orb]
    _receive(m, t, orb, "handoff")


@ON_HANDOFF.register("slippery_fumble")
def _slippery_handoff(m: SBMatch, c: Creature, t: Creature) -> bool:
    m.push("handoff_go", cid=c.id, tid=t.id)
    m.roll(f"{c.orb} handoff", [(8, 1, 8)], Frame("slippery_gate", {"cid": c.id, "orb": c.orb}))
    return True


@step("handoff_go")
def _handoff_go(m: SBMatch, f: Frame) -> None:
    c, t = m.creatures.get(f["cid"]), m.creatures.get(f["tid"])
    if c is None or c.orb is None or t is None or t.orb is not None:
        return
    orb = c.orb
    c.orb = None
    del m.carrier[orb]
    _receive(m, t, orb, "handoff")


def shoot(m: SBMatch, c: Creature, pid: str) -> None:
    """Throws at portal ``pid``: d20 <= T + 2 scores."""
    c.done = True
    c.maneuvered = True
    control(m, c)
    m.emit("shot", {"creature": c.id, "portal": pid, "orb": c.orb or ""})
    m.push("shot_roll", cid=c.id, pid=pid)
    for handler in BEFORE_THROW.of(orb_hooks(c.orb)):
        handler(m, c)
    open_fumble_window(m, c.id, "before the throw")


@step("shot_roll")
def _shot_roll(m: SBMatch, f: Frame) -> None:
    c = m.creatures.get(f["cid"])
    if c is None or c.orb is None or f["pid"] not in m.portals:
        return
    m.roll(
        "throw at portal", [(20, 1, None)], Frame("shot", {"cid": c.id, "pid": f["pid"], "need": stat(m, c, "T") + 2})
    )


@step("shot")
def _shot(m: SBMatch, f: Frame) -> None:
    c = m.creatures.get(f["cid"])
    if c is None or c.orb is None:
        return
    orb = c.orb
    ok = f["dice"][0] <= f["need"] and f["pid"] in m.portals
    m.emit(
        "shot_roll",
        {
            "creature": c.id,
            "portal": f["pid"],
            "dice": f["dice"],
            "total": f["need"],
            "result": "goal" if ok else "miss",
        },
    )
    if ok:
        m.push("goal", orb=orb, portal=f["pid"], seat=c.owner, how="throw")
        return
    # A miss is an incomplete throw: a loose-orb roll from the portal's square. 2.4 shatters the
    # Crystal Orb only "on fumble, failed catch or drop by a destroyed creature", so it rolls too.
    loose_orb(m, orb, m.portals[f["pid"]])


@step("goal")
def _goal(m: SBMatch, f: Frame) -> None:
    """A goal: blue chip (or, in Last Man Standing, the portal's owner loses one); orb and portal replaced."""
    orb, pid, seat = f["orb"], f["portal"], f["seat"]
    cid = m.carrier.get(orb)
    if cid is not None and cid in m.creatures:
        m.creatures[cid].done = True
    m.emit("goal", {"seat": seat, "orb": orb, "portal": pid, "detail": f["how"]})
    m.push("after_goal", orb=orb, portal=pid)
    if m.lms:
        m.push("lms_lose", seat=m.portal_owner.get(pid, -1))
    elif seat >= 0:
        m.push("chip", seat=seat, color="blue")


@step("after_goal")
def _after_goal(m: SBMatch, f: Frame) -> None:
    replace_orb(m, f["orb"])
    pid = f["portal"]
    # Last Man Standing: a goal leaves each portal on its owner's edge (the variant's premise).
    if not m.lms and pid in m.portals:
        del m.portals[pid]
        place_portal(m, pid)


# -- orb effects at turn boundaries -------------------------------------------------------------


@step("orb_turn_start")
def _orb_turn_start(m: SBMatch, f: Frame) -> None:
    # 1.6.2: a loose orb in a portal scores for "the player who last controlled the orb during the same
    # turn", and carrying is control: whoever carries an orb as the turn starts controls it this turn.
    for orb, cid in m.carrier.items():
        if cid in m.creatures:
            m.last_control[orb] = (m.creatures[cid].owner, m.turn)
    for c in sorted(m.creatures.values(), key=lambda c: c.id, reverse=True):
        if c.owner == m.active:
            for handler in CARRIER_TURN_START.of(orb_hooks(c.orb)):
                handler(m, c)


@CARRIER_TURN_START.register("chaos_carrier")
def _chaos_turn_start(m: SBMatch, c: Creature) -> None:
    m.emit("ability", {"creature": c.id, "orb": c.orb, "detail": "relocates its carrier"})
    relocate_creature(m, c)


@step("orb_turn_end")
def _orb_turn_end(m: SBMatch, f: Frame) -> None:
    for c in sorted(m.creatures.values(), key=lambda c: c.id, reverse=True):
        if c.owner != m.active:
            continue
        for handler in CARRIER_TURN_END.of(orb_hooks(c.orb)):
            handler(m, c)


@CARRIER_TURN_END.register("killer_range")
def _killer_turn_end(m: SBMatch, c: Creature) -> None:
    m.emit("ability", {"creature": c.id, "orb": c.orb, "detail": "destroys its carrier"})
    m.push("destroy", cid=c.id, killer=None, cause="killer_orb")


@CARRIER_TURN_END.register("unstable_blast")
def _unstable_turn_end(m: SBMatch, c: Creature) -> None:
    m.roll(f"{c.orb}", [(8, 1, 8)], Frame("unstable", {"cid": c.id, "orb": c.orb}))


@step("unstable")
def _unstable(m: SBMatch, f: Frame) -> None:
    from referee.games.scrumbrawl.board import destroy_orbs_near, neighbours

    c = m.creatures.get(f["cid"])
    orb = f["orb"]
    if c is None or c.orb != orb:
        return
    roll = f["dice"][0]
    if roll > 4:
        return
    m.emit(
        "ability",
        {"creature": c.id, "orb": orb, "detail": "explodes" if roll == 1 else "destroys its carrier"},
    )
    m.creatures[c.id].orb = None
    m.carrier.pop(orb, None)
    m.orbs[orb] = None
    if roll == 1:
        # "Relocate Unstable Orb (2d20)" closes both results: the orb itself is rolled anew (not
        # replaced from the orb deck), once everything it destroys is gone, so it is scheduled first.
        place_new_orb(m, orb)
        # "destroys carrier and any adjacent creatures, orbs and portals": orbs carried by the
        # neighbours are destroyed (replaced), not dropped when their carriers die. The Unstable Orb
        # still counts as in play while they are, so an orb above the starting count is not replaced.
        destroy_orbs_near(m, c.pos)
        del m.orbs[orb]
        for n in reversed(neighbours(c.pos)):
            v = m.at(n)
            if v is not None:
                m.push("destroy", cid=v.id, killer=None, cause="unstable_orb")
        m.push("destroy", cid=c.id, killer=None, cause="unstable_orb")
        return
    relocate_orb(m, orb)
    m.push("destroy", cid=c.id, killer=None, cause="unstable_orb")


HEAVY.mark("heavy_weight")
SHATTERS.mark("crystal_shatters")
KILLER.mark("killer_range")
