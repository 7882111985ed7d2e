"""Creatures in the Arena: effective attributes, summoning, destruction and the triggers it fires.

Attributes combine the Bestiary card, the creature enchantment, the team enchantments of its
side and the orb it carries (section 2.4). Destruction runs the named hooks of the dying
creature and of the creatures watching (Druid, Necromancer, Phoenix, Revenant, Nork, Lightning
Imp, Magic Stump). Magic abilities live in ``abilities``; combat in ``combat``.
"""

from __future__ import annotations

from typing import Any

from referee.games.scrumbrawl.board import destroy_orbs_near, loose_orb, neighbours, place_2d20, relocate_orb, sq
from referee.games.scrumbrawl.content import CONTENT, CreatureSpec
from referee.games.scrumbrawl.engine import Creature, Frame, Pos, SBMatch, step
from referee.games.scrumbrawl.hooks import (
    AFTER_DEATH,
    EXTRA_TURN_ON_KILL,
    HEAVY,
    KILLS_ENCHANTED,
    ON_COMBAT_DAMAGE,
    ON_DESTROYED,
    ON_KILL,
    RAISES_DEAD,
    SAVES_FRIENDS,
    SHATTERS,
)

MAX_CREATURES = 3


def spec(c: Creature) -> CreatureSpec:
    """Returns the Bestiary entry of ``c``."""
    return CONTENT.creatures[c.name]


def is_stone(m: SBMatch, c: Creature) -> bool:
    """Whether the Gargoyle ``c`` is stone (from its choice to the end of its owner's next turn)."""
    return c.stone_turn >= 0


def orb_hooks(orb: str | None) -> frozenset[str]:
    """Returns the hooks of orb ``orb`` (none for no orb)."""
    return CONTENT.orbs[orb].hooks if orb is not None else frozenset()


def carries_heavy(c: Creature) -> bool:
    """Whether ``c`` carries a heavy orb (:data:`~referee.games.scrumbrawl.hooks.HEAVY`)."""
    return c.orb is not None and HEAVY.holds(CONTENT.orbs[c.orb].hooks)


def heavy(m: SBMatch, c: Creature) -> bool:
    """Whether ``c`` carries a heavy orb and is not Strong."""
    return carries_heavy(c) and "strong" not in spec(c).keywords


def has(m: SBMatch, c: Creature, keyword: str) -> bool:
    """Whether ``c`` has ``keyword`` now, from its card or its enchantment (flying lost to stone and Heavy Orb)."""
    sp = spec(c)
    found = keyword in sp.keywords
    if not found and c.enchant:
        found = keyword in CONTENT.enchantments[m.card_names[c.enchant]].grants
    if keyword == "flying" and found and (is_stone(m, c) or heavy(m, c)):
        return False
    return found


def stat(m: SBMatch, c: Creature, name: str) -> int:
    """Returns ``c``'s attribute ``name`` (T, C, R, M, A, D) with enchantments and orb applied."""
    base = getattr(spec(c), name)
    if base is None:
        return 0
    value: int = base
    if c.enchant:
        value += CONTENT.enchantments[m.card_names[c.enchant]].mods.get(name, 0)
    for seat in range(m.seats):
        if m.team_ench[seat] and m.friendly(seat, c.owner):
            for card in m.team_ench[seat]:
                value += CONTENT.enchantments[m.card_names[card]].mods.get(name, 0)
    if c.orb is not None:
        mod = CONTENT.orbs[c.orb].mods.get(name, 0)
        if carries_heavy(c) and "strong" in spec(c).keywords:
            mod = 0
        value += mod
    if name == "D" and is_stone(m, c):
        value += 8
    return max(value, 0)


STAT_NAMES = ("T", "C", "R", "M", "A", "D")
"""The attributes, in the order observations list them."""

_STATS: dict[tuple[Any, ...], dict[str, int]] = {}
""":func:`stats_of` by (creature name, stone, ids of the content's modifier tables applied in order)."""


def stats_of(m: SBMatch, c: Creature) -> dict[str, int]:
    """Returns every attribute of ``c`` at once, each exactly as :func:`stat` computes it.

    An observation needs all six for every creature: gathering the modifiers (enchantment, team
    enchantments, orb) once instead of six times was the top hot spot of a referee's decision.
    """
    return dict(shared_stats(m, c))


def shared_stats(m: SBMatch, c: Creature) -> dict[str, int]:
    """:func:`stats_of` without the copy: one dict per combination, shared; the caller must not change it.

    The observation hands it out as is (observations are read-only to their consumers), so that
    the same stats are the same object from one observation to the next.
    """
    sp = spec(c)
    mods: list[dict[str, int]] = []
    if c.enchant:
        mods.append(CONTENT.enchantments[m.card_names[c.enchant]].mods)
    for seat in range(m.seats):
        if m.team_ench[seat] and m.friendly(seat, c.owner):
            for card in m.team_ench[seat]:
                mods.append(CONTENT.enchantments[m.card_names[card]].mods)
    if c.orb is not None and not (carries_heavy(c) and "strong" in sp.keywords):
        mods.append(CONTENT.orbs[c.orb].mods)
    stone = is_stone(m, c)
    # The result depends only on the Bestiary entry, the modifier tables (content, alive as long
    # as the module) and stone: computed once per combination, copied out.
    key = (c.name, stone, *map(id, mods))
    known = _STATS.get(key)
    if known is not None:
        return known
    out: dict[str, int] = {}
    for name in STAT_NAMES:
        base = getattr(sp, name)
        if base is None:
            out[name] = 0
            continue
        value: int = base
        for md in mods:
            value += md.get(name, 0)
        if name == "D" and stone:
            value += 8
        out[name] = max(value, 0)
    _STATS[key] = out
    return out


def can_carry(c: Creature) -> bool:
    """Whether ``c`` may hold an orb (not Noncarrier)."""
    return "noncarrier" not in spec(c).keywords


def count_of(m: SBMatch, seat: int) -> int:
    """Returns how many creatures ``seat`` controls (counting those Chaos has lifted and not yet rolled back in)."""
    return sum(1 for c in m.creatures.values() if c.owner == seat) + sum(1 for c in m.limbo.values() if c.owner == seat)


def can_act(m: SBMatch, c: Creature) -> bool:
    """Whether ``c`` may still do anything this turn (its owner's turn, not new, not done, not stone)."""
    return c.owner == m.active and c.entered != m.turn and not c.done and not is_stone(m, c)


# -- entering the Arena ----------------------------------------------------------------------


def summon(m: SBMatch, card: str, seat: int, entered: int | None = None) -> None:
    """Schedules creature card ``card`` entering the Arena for ``seat`` by a 2d20 roll."""
    m.emit("summon", {"seat": seat, "card": card, "name": m.card_names[card]})
    for team in range(m.seats):
        if m.card_names[card] in m.skins[team]:
            m.skins[team].remove(m.card_names[card])
            m.emit("skin_returned", {"seat": team, "name": m.card_names[card]})
    place_2d20(
        m,
        m.card_names[card],
        Frame("creature_lands", {"cid": card, "seat": seat, "entered": m.turn if entered is None else entered}),
    )


@step("creature_lands")
def _creature_lands(m: SBMatch, f: Frame) -> None:
    pos: Pos = tuple(f["pos"])
    cid, _seat = f["cid"], f["seat"]
    existing = m.creatures.get(cid)
    carried = existing.orb if existing is not None else None
    other = m.at(pos)
    if other is not None and other.id == cid:
        other = None
    if carried is not None and (m.loose_orb_at(pos) is not None):
        m.emit("reroll", {"detail": "a carrier onto an orb", "row": pos[0], "col": pos[1]})
        place_2d20(m, m.card_names[cid], f.copy())
        return
    if other is not None:
        m.emit("crushed", {"creature": other.id, "name": other.name, "row": pos[0], "col": pos[1]})
        m.push("creature_lands_after", **f.args)
        m.push("destroy", cid=other.id, killer=None, cause="placement")
        return
    _land(m, f, pos)


@step("creature_lands_after")
def _creature_lands_after(m: SBMatch, f: Frame) -> None:
    _land(m, f, tuple(f["pos"]))


def _land(m: SBMatch, f: Frame, pos: Pos) -> None:
    cid, seat = f["cid"], f["seat"]
    c = m.creatures.get(cid) or m.limbo.pop(cid, None)
    if c is None and count_of(m, seat) >= MAX_CREATURES:
        # Two triggers (Necromancer, Phoenix, Revenant) raced for the last stand: the later one fails.
        m.discard.append(cid)
        m.emit("removed", {"creature": cid, "name": m.card_names[cid], "detail": "no free stand"})
        return
    if c is None:
        c = Creature(cid, m.card_names[cid], seat, pos, entered=f["entered"])
    m.creatures[cid] = c
    c.pos, c.owner = pos, seat
    m.emit("creature_placed", {"creature": cid, "name": c.name, "seat": seat, "row": pos[0], "col": pos[1]})
    if m.portal_at(pos) is not None:
        m.push("destroy", cid=cid, killer=None, cause="portal")
        return
    orb = m.loose_orb_at(pos)
    if orb is not None:
        m.push("gain_orb", cid=cid, orb=orb, how="placement")


# -- destruction -------------------------------------------------------------------------------


def damage(m: SBMatch, target: str, source: str | None, cause: str) -> None:
    """Schedules one point of damage to ``target``: an enchantment absorbs it, else the creature dies.

    ``cause`` is ``"combat"`` for an attack (skins are won), or ``"explosion"``, ``"curse"``...
    A Venom attacker, or the Lightning Imp against an enchanted creature, destroys regardless.
    """
    m.push("damage", cid=target, source=source, cause=cause)


@step("damage")
def _damage(m: SBMatch, f: Frame) -> None:
    c = m.creatures.get(f["cid"])
    if c is None:
        return
    src = m.creatures.get(f["source"]) if f["source"] else None
    kills_enchanted = (
        src is not None and f["cause"] == "combat" and (has(m, src, "venom") or KILLS_ENCHANTED.holds(spec(src).hooks))
    )
    cursed = c.enchant is not None and "cursing" in CONTENT.enchantments[m.card_names[c.enchant]].grants
    if c.enchant and not kills_enchanted:
        card = c.enchant
        c.enchant = None
        m.discard.append(card)
        m.emit("enchantment_lost", {"creature": c.id, "card": card, "name": m.card_names[card]})
        if cursed and src is not None:
            damage(m, src.id, c.id, "curse")
        return
    if cursed and src is not None:
        damage(m, src.id, c.id, "curse")
    if f["cause"] == "combat":
        for handler in ON_COMBAT_DAMAGE.of(spec(c).hooks):
            handler(m, c, f)
            return
    m.push("destroy", cid=c.id, killer=f["source"], cause=f["cause"])


@ON_COMBAT_DAMAGE.register("troll_regenerate")
def _troll_regenerates(m: SBMatch, c: Creature, f: Frame) -> None:
    m.roll("Troll regenerates", [(8, 1, 8)], Frame("troll_check", {"cid": c.id, "source": f["source"]}))


@step("troll_check")
def _troll_check(m: SBMatch, f: Frame) -> None:
    if f["dice"][0] <= 4:
        m.emit("ability", {"creature": f["cid"], "name": "Troll", "detail": "regenerates: no damage"})
        return
    m.push("destroy", cid=f["cid"], killer=f["source"], cause="combat")


@step("destroy")
def _destroy(m: SBMatch, f: Frame) -> None:
    """Destroys a creature: first the Druid may save it, then it leaves and its triggers run."""
    c = m.creatures.get(f["cid"])
    if c is None:
        return
    if f["cause"] not in ("sacrifice", "lms"):
        for druid in sorted(m.creatures.values(), key=lambda d: d.id):
            if druid.id != c.id and SAVES_FRIENDS.holds(spec(druid).hooks) and m.friendly(druid.owner, c.owner):
                m.roll(
                    "Druid saves",
                    [(8, 1, 8)],
                    Frame("druid_check", {"cid": c.id, "druid": druid.id, "f": f.copy()}),
                    roller=druid.owner,
                )
                return
    m.push("destroy_final", **f.args)


@step("druid_check")
def _druid_check(m: SBMatch, f: Frame) -> None:
    c, druid = m.creatures.get(f["cid"]), m.creatures.get(f["druid"])
    if c is None:
        return
    if f["dice"][0] <= 4 and druid is not None:
        m.emit("ability", {"creature": druid.id, "name": "Druid", "target": c.id, "detail": "saves the creature"})
        m.roll(
            "Druid placement",
            [(8, 1, 8)],
            Frame("druid_place", {"cid": c.id, "druid": druid.id, "tries": 0}),
            roller=druid.owner,
        )
        return
    inner = f["f"].copy()
    m.push("destroy_final", **inner.args)


@step("druid_place")
def _druid_place(m: SBMatch, f: Frame) -> None:
    from referee.games.scrumbrawl.board import d8_offset, on_board

    c, druid = m.creatures.get(f["cid"]), m.creatures.get(f["druid"])
    if c is None or druid is None:
        return
    off = d8_offset(druid.owner, f["dice"][0])  # the Druid's roll: its controller's view
    pos = (druid.pos[0] + off[0], druid.pos[1] + off[1])
    free = on_board(pos) and (m.at(pos) is None or m.at(pos) is c) and m.portal_at(pos) is None
    if not free:
        if f["tries"] >= 16:
            return
        m.roll(
            "Druid placement",
            [(8, 1, 8)],
            Frame("druid_place", {"cid": c.id, "druid": druid.id, "tries": f["tries"] + 1}),
            roller=druid.owner,
        )
        return
    old = c.pos
    c.pos = pos
    m.emit("creature_moved", {"creature": c.id, "from_row": old[0], "from_col": old[1], "row": pos[0], "col": pos[1]})
    orb = m.loose_orb_at(pos)
    if orb is not None and c.orb is None:
        m.push("gain_orb", cid=c.id, orb=orb, how="placement")


def _award_skin(m: SBMatch, seat: int, name: str) -> None:
    team = m.team_of(seat)
    if m.lms:
        return
    m.skins[team].append(name)
    m.emit("skin", {"seat": seat, "name": name, "values": [len(m.skins[team])]})
    if len(m.skins[team]) >= 3:
        m.skins[team] = m.skins[team][3:]
        m.push("chip", seat=seat, color="red")


@step("destroy_final")
def _destroy_final(m: SBMatch, f: Frame) -> None:
    c = m.creatures.pop(f["cid"], None)
    if c is None:
        return
    cause, killer_id = f["cause"], f["killer"]
    killer = m.creatures.get(killer_id) if killer_id else None
    m.emit(
        "destroyed",
        {
            "creature": c.id,
            "name": c.name,
            "seat": c.owner,
            "row": c.pos[0],
            "col": c.pos[1],
            "detail": cause,
            "target": killer_id or "",
        },
    )
    if c.enchant:
        m.discard.append(c.enchant)
        c.enchant = None
    m.discard.append(c.id)
    hooks = spec(c).hooks
    follow: list[Frame] = []
    if c.orb is not None:
        orb = c.orb
        c.orb = None
        m.carrier.pop(orb, None)
        if SHATTERS.holds(orb_hooks(orb)):
            m.emit("orb_shatters", {"orb": orb})
            follow.append(Frame("relocate_orb", {"orb": orb}))
        else:
            follow.append(Frame("drop_orb", {"orb": orb, "origin": list(c.pos)}))
    # Whether the creature stays dead is known only after the Necromancers roll: a raised creature
    # did not die, so the killer's reward (skin, the Revenant's chip, Mordrock's extra turn) and the
    # victim's Revenant window wait for the ``combat_reward`` step below.
    fate: dict[str, bool] = {"raised": False}
    if cause in ("sacrifice", "lms"):
        hooks = frozenset()
    follow.extend(handler(m, c) for handler in ON_DESTROYED.of(hooks))
    if cause in ("sacrifice", "lms"):
        pass  # plain removal (FAQ B5.8): no return, no rebirth, no Necromancer
    else:
        after = AFTER_DEATH.of(hooks)
        if after:
            follow.append(after[0](m, c, fate))
        else:
            follow.append(Frame("necromancer_check", {"cid": c.id, "seats": m.order_from(m.active), "fate": fate}))
    if cause == "combat":
        # The killer as it is now: it may itself be gone when the reward is paid (Aura of Cursing).
        by = None if killer is None else {"id": killer.id, "seat": killer.owner, "name": killer.name}
        follow.append(Frame("combat_reward", {"name": c.name, "owner": c.owner, "killer": by, "fate": fate}))
    for frame in reversed(follow):
        m.stack.append(frame)


@step("combat_reward")
def _combat_reward(m: SBMatch, f: Frame) -> None:
    """A creature destroyed in combat and not raised: the killer's reward, then the victim's Revenant window."""
    if f["fate"]["raised"]:
        return
    if not m.eliminated[f["owner"]]:
        m.push("revenant_window", queue=[f["owner"]], prompt="summon the Revenant?")
    by = f["killer"]
    if by is None or m.friendly(by["seat"], f["owner"]):
        return
    hooks = CONTENT.creatures[by["name"]].hooks
    on_kill = ON_KILL.of(hooks)
    if on_kill:
        on_kill[0](m, by, f)
    else:
        _award_skin(m, by["seat"], f["name"])
    killer = m.creatures.get(by["id"])
    if killer is not None and EXTRA_TURN_ON_KILL.holds(hooks) and killer.owner == m.active:
        killer.extra_turn = True


@step("drop_orb")
def _drop_orb(m: SBMatch, f: Frame) -> None:
    loose_orb(m, f["orb"], tuple(f["origin"]))


@step("relocate_orb")
def _relocate_orb(m: SBMatch, f: Frame) -> None:
    if f["orb"] not in m.orbs:
        m.orbs[f["orb"]] = None
    relocate_orb(m, f["orb"])


@step("remove_creature")
def _remove_creature(m: SBMatch, f: Frame) -> None:
    c = m.creatures.pop(f["cid"], None)
    if c is not None:
        m.discard.append(c.id)
        m.emit("removed", {"creature": c.id, "name": c.name})


def another_turn(m: SBMatch, c: Creature) -> None:
    """Gives ``c`` another turn now (Mordrock, Phoenix): its movement and actions are fresh."""
    c.steps, c.moved, c.done, c.attacked, c.maneuvered, c.gazed, c.extra_turn = (
        0,
        False,
        False,
        False,
        False,
        False,
        False,
    )
    m.emit("ability", {"creature": c.id, "name": c.name, "detail": "takes another turn"})


@step("nork_explodes")
def _nork(m: SBMatch, f: Frame) -> None:
    pos: Pos = tuple(f["pos"])
    m.emit("ability", {"name": "The Nork", "detail": "explodes", "row": pos[0], "col": pos[1]})
    for n in reversed(neighbours(pos)):
        victim = m.at(n)
        if victim is not None:
            damage(m, victim.id, None, "explosion")
    # "destroying any adjacent orbs or portals": an orb carried next to the Nork is destroyed too
    # (replaced from the orb deck), not dropped when its carrier dies.
    destroy_orbs_near(m, pos)


@step("stump_roll")
def _stump_roll(m: SBMatch, f: Frame) -> None:
    m.roll("Magic Stump chaos", [(8, 1, 8)], Frame("stump_chaos"))


@step("stump_chaos")
def _stump_chaos(m: SBMatch, f: Frame) -> None:
    if f["dice"][0] <= 4:
        m.emit("ability", {"name": "The Magic Stump", "detail": "Chaos, and the active turn ends"})
        m.push("end_active_turn")
        m.push("event_effect", effect="chaos", cause="The Magic Stump")


@step("phoenix_roll")
def _phoenix_roll(m: SBMatch, f: Frame) -> None:
    then = Frame("phoenix_check", {"cid": f["cid"], "seat": f["seat"], "fate": f.get("fate", {})})
    m.roll("Phoenix rebirth", [(8, 1, 8)], then)


@step("phoenix_check")
def _phoenix_check(m: SBMatch, f: Frame) -> None:
    cid = f["cid"]
    if f["dice"][0] <= 4 and count_of(m, f["seat"]) < MAX_CREATURES and cid in m.discard:
        m.discard.remove(cid)
        m.emit("ability", {"creature": cid, "name": "Phoenix", "detail": "returns"})
        f.get("fate", {})["raised"] = True
        # Entered before this turn: it takes another turn when it is its controller's turn.
        summon(m, cid, f["seat"], entered=-1 if f["seat"] == m.active else m.turn)
        return
    m.push("necromancer_check", cid=cid, seats=m.order_from(m.active), fate=f.get("fate", {}))


@step("revenant_return")
def _revenant_return(m: SBMatch, f: Frame) -> None:
    cid = f["cid"]
    if cid in m.discard and count_of(m, f["seat"]) < MAX_CREATURES:
        m.discard.remove(cid)
        m.emit("ability", {"creature": cid, "name": m.card_names[cid], "detail": "relocates"})
        f.get("fate", {})["raised"] = True
        summon(m, cid, f["seat"], entered=m.turn)


@step("necromancer_check")
def _necromancer_check(m: SBMatch, f: Frame) -> None:
    seats: list[int] = list(f["seats"])
    cid = f["cid"]
    while seats:
        seat = seats.pop(0)
        necro = [c for c in m.creatures.values() if c.owner == seat and RAISES_DEAD.holds(spec(c).hooks)]
        if necro and count_of(m, seat) < MAX_CREATURES and cid in m.discard:
            m.push("necromancer_check", cid=cid, seats=seats, fate=f.get("fate", {}))
            m.roll(
                "Necromancer raises",
                [(8, 1, 8)],
                Frame("necromancer_raise", {"cid": cid, "seat": seat, "fate": f.get("fate", {})}),
            )
            return


@step("necromancer_raise")
def _necromancer_raise(m: SBMatch, f: Frame) -> None:
    cid = f["cid"]
    if f["dice"][0] <= 4 and cid in m.discard and count_of(m, f["seat"]) < MAX_CREATURES:
        m.discard.remove(cid)
        for team in range(m.seats):
            if m.card_names[cid] in m.skins[team]:
                m.skins[team].remove(m.card_names[cid])
        m.emit("ability", {"name": "Necromancer", "seat": f["seat"], "target": cid, "detail": "takes control"})
        f.get("fate", {})["raised"] = True
        summon(m, cid, f["seat"])
        # Only one Necromancer can raise the same creature.
        while m.stack and m.stack[-1].name == "necromancer_check":
            m.stack.pop()


def relocate_creature(m: SBMatch, c: Creature) -> None:
    """Schedules a random relocation (2d20) of ``c``; a carrier keeps its orb."""
    place_2d20(m, c.name, Frame("creature_lands", {"cid": c.id, "seat": c.owner, "entered": c.entered}))


def describe(m: SBMatch, c: Creature) -> str:
    """Returns ``"Yeti k49 at r3c4"`` for labels."""
    return f"{c.name} {c.id} at {sq(c.pos)}"


def noncarrier_bounce(m: SBMatch, c: Creature, orb: str) -> None:
    """A Noncarrier sharing a square with an orb sends it on a loose-orb roll from that square."""
    m.orbs[orb] = c.pos
    loose_orb(m, orb, c.pos)


# -- the creatures' hooks at these points -----------------------------------------------------------

KILLS_ENCHANTED.mark("imp_kills_enchanted")
SAVES_FRIENDS.mark("druid_save")
EXTRA_TURN_ON_KILL.mark("mordrock_extra_turn")
RAISES_DEAD.mark("necromancer_raise")


@ON_DESTROYED.register("nork_explodes")
def _nork_destroyed(m: SBMatch, c: Creature) -> Frame:
    return Frame("nork_explodes", {"pos": list(c.pos), "cid": c.id})


@ON_DESTROYED.register("imp_storm")
def _imp_destroyed(m: SBMatch, c: Creature) -> Frame:
    return Frame("event_effect", {"effect": "lightning_storm", "cause": c.name})


@ON_DESTROYED.register("stump_chaos")
def _stump_destroyed(m: SBMatch, c: Creature) -> Frame:
    return Frame("stump_roll")


@AFTER_DEATH.register("revenant")
def _revenant_returns(m: SBMatch, c: Creature, fate: dict[str, bool]) -> Frame:
    return Frame("revenant_return", {"cid": c.id, "seat": c.owner, "fate": fate})


@AFTER_DEATH.register("phoenix_rebirth")
def _phoenix_rebirth(m: SBMatch, c: Creature, fate: dict[str, bool]) -> Frame:
    return Frame("phoenix_roll", {"cid": c.id, "seat": c.owner, "fate": fate})


@ON_KILL.register("revenant")
def _revenant_vengeance(m: SBMatch, by: dict[str, Any], f: Frame) -> None:
    m.emit("ability", {"creature": by["id"], "name": by["name"], "detail": "vengeance: red chip"})
    m.push("remove_creature", cid=by["id"])
    m.push("chip", seat=by["seat"], color="red")
