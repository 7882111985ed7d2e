"""Combat (section 1.6.3 and the Combat Playbook 2.5): attacks, counterattacks and their dice.

An attack is d20 + A against d20 + D; ties fail; a natural 20 hits unless the defender rolls a
natural 20, a natural 1 misses; altered dice are never natural. The attacker's d20 is rolled
first, then the defender's (then the Leprechaun's d8). A creature makes all its attacks, then each
surviving defender may counterattack with all of its attacks. Ranged attacks, flyers, Adept,
enchantments as a hit point, Venom, wrest, the Minotaur's charge, Aggressive creatures, the
Gargoyle's stone and the Killer Orb are handled here. Damage itself is in ``creatures``.
"""

from __future__ import annotations

from referee.core.contract import Option
from referee.games.scrumbrawl.board import DIRS, INDEX, SIZE, dist, loose_orb, on_board, sq
from referee.games.scrumbrawl.content import CONTENT, CreatureSpec
from referee.games.scrumbrawl.creatures import another_turn, can_carry, damage, has, is_stone, orb_hooks, spec, stat
from referee.games.scrumbrawl.engine import Creature, Frame, Pos, SBMatch, decision, step
from referee.games.scrumbrawl.hooks import CHARGES, DEFENCE_DICE, KILLER, ON_ATTACKED, REACH


def _bonus(sp: CreatureSpec, stat_name: str, other: CreatureSpec) -> int:
    named = [b.value for b in sp.bonuses if b.stat == stat_name and other.name in b.vs_names]
    if named:
        return sum(named)
    return sum(b.value for b in sp.bonuses if b.stat == stat_name and other.color in b.vs_colors)


def attack_value(m: SBMatch, x: Creature, t: Creature, mode: str, charge: bool = False) -> int:
    """Returns ``x``'s attack rating against ``t`` (T for a Killer Orb attack; +4 on a charge)."""
    if mode == "killer":
        return stat(m, x, "T")
    return stat(m, x, "A") + _bonus(spec(x), "A", spec(t)) + (4 if charge else 0)


def defense_value(m: SBMatch, t: Creature, x: Creature) -> int:
    """Returns ``t``'s defense rating against ``x``."""
    return stat(m, t, "D") + _bonus(spec(t), "D", spec(x))


def line_of_sight(m: SBMatch, a: Pos, b: Pos) -> bool:
    """Whether ``a`` and ``b`` share a row, column or diagonal with no creature, orb or portal between."""
    dr, dc = b[0] - a[0], b[1] - a[1]
    if not (dr == 0 or dc == 0 or abs(dr) == abs(dc)) or a == b:
        return False
    step_r, step_c = (dr > 0) - (dr < 0), (dc > 0) - (dc < 0)
    blockers = {c.pos for c in m.creatures.values()} | set(m.portals.values())
    blockers |= {p for p in m.orbs.values() if p is not None}
    p = (a[0] + step_r, a[1] + step_c)
    while p != b:
        if p in blockers:
            return False
        p = (p[0] + step_r, p[1] + step_c)
    return True


def reach_mode(m: SBMatch, x: Creature, t: Creature) -> str | None:
    """How ``x`` could strike ``t`` from where they stand (``melee``, ``ranged``, ``human``), or ``None``."""
    sp = spec(x)
    d = dist(x.pos, t.pos)
    ra = sp.range_attack
    reach = REACH.of(sp.hooks)
    if d != 1 and d > ra and not reach:
        return None  # out of range, and nothing below could change that (the common case: a hot path)
    flyer = has(m, t, "flying")
    if sp.ground_only_range and flyer:
        return None
    deflect = has(m, t, "deflection")
    if d == 1:
        if ra > 0:
            return "ranged"
        for handler in reach:
            mode = handler(m, x, t, True)
            if mode is not None:
                return mode
        if flyer and not has(m, x, "flying"):
            return None
        return "melee"
    if deflect:
        return None
    if 1 < d <= ra:
        return "ranged"
    for handler in reach:
        mode = handler(m, x, t, False)
        if mode is not None:
            return mode
    return None


@REACH.register("human_line_of_sight")
def _human_reach(m: SBMatch, x: Creature, t: Creature, adjacent: bool) -> str | None:
    return "human" if adjacent or line_of_sight(m, x.pos, t.pos) else None


def may_strike(m: SBMatch, x: Creature, counter: bool = False) -> bool:
    """Whether ``x`` may strike at all: Adept if it carries an orb; not stone, except to counterattack.

    A stone Gargoyle "may not move, attack or manipulate orb on its next turn" (2.1): a counterattack
    on another player's turn is none of these.
    """
    return (counter or not is_stone(m, x)) and (x.orb is None or has(m, x, "adept"))


def attack_targets(m: SBMatch, x: Creature, creatures: list[Creature] | None = None) -> list[tuple[Creature, str]]:
    """Every enemy ``x`` may declare an attack on now, with the mode (``creatures``: every creature in
    id order, when the caller has them)."""
    out: list[tuple[Creature, str]] = []
    if not may_strike(m, x):
        return out
    sp = spec(x)
    # reach_mode's first test, once per attacker: a target neither adjacent nor in range of a
    # creature with no reach hook is never reached.
    far = sp.range_attack if REACH.handlers.keys().isdisjoint(sp.hooks) else SIZE
    side = m.team_of(x.owner)
    r, c = x.pos
    for t in sorted(m.creatures.values(), key=lambda c: c.id) if creatures is None else creatures:
        d = max(abs(t.pos[0] - r), abs(t.pos[1] - c))
        if (d != 1 and d > far) or m.team_of(t.owner) == side:
            continue
        mode = reach_mode(m, x, t)
        if mode is not None:
            out.append((t, mode))
    return out


def killer_targets(m: SBMatch, x: Creature) -> list[Creature]:
    """Enemies within a Killer Orb carrier's throwing range."""
    if not KILLER.holds(orb_hooks(x.orb)) or is_stone(m, x):
        return []
    rng = stat(m, x, "R")
    return [
        t
        for t in sorted(m.creatures.values(), key=lambda c: c.id)
        if not m.friendly(t.owner, x.owner) and 0 < dist(t.pos, x.pos) <= rng
    ]


def can_counter(m: SBMatch, t: Creature, x: Creature) -> bool:
    """Whether defender ``t`` may counterattack ``x`` (adjacent: yes, even a flyer; else it needs reach)."""
    if not may_strike(m, t, counter=True):
        return False
    if dist(t.pos, x.pos) == 1:
        return not (spec(t).ground_only_range and has(m, x, "flying"))
    return reach_mode(m, t, x) is not None


def charge_options(m: SBMatch, x: Creature, reach: list[int]) -> list[tuple[Creature, Pos]]:
    """Minotaur charges: an enemy and a direction such that its last three squares run straight at it.

    ``reach`` is ``x``'s :func:`~referee.games.scrumbrawl.movement.reach_layers`.
    """
    out: list[tuple[Creature, Pos]] = []
    if not CHARGES.holds(spec(x).hooks) or not may_strike(m, x):
        return out
    from referee.games.scrumbrawl.movement import layer_cost, remaining

    left = remaining(m, x)
    occupied = {c.pos for c in m.creatures.values()} | set(m.portals.values())
    occupied |= {p for p in m.orbs.values() if p is not None}
    for t in sorted(m.creatures.values(), key=lambda c: c.id):
        if m.friendly(t.owner, x.owner) or has(m, t, "flying"):
            continue
        for d in DIRS:
            line = [(t.pos[0] - k * d[0], t.pos[1] - k * d[1]) for k in (1, 2, 3, 4)]
            if not all(on_board(p) for p in line):
                continue
            if any(p in occupied and p != x.pos for p in line[:3]):
                continue
            start = line[3]
            cost = layer_cost(reach, INDEX[start])
            if (start == x.pos and left >= 3) or (cost is not None and cost + 3 <= left):
                out.append((t, d))
    return out


# -- declaring and resolving attacks --------------------------------------------------------


def declare(
    m: SBMatch,
    x: Creature,
    t: Creature,
    mode: str,
    charge: Pos | None = None,
    counter: bool = False,
    aggressive_ok: bool = True,
) -> None:
    """Schedules ``x``'s attacks, the first on ``t``; then the counterattacks."""
    if not counter:
        x.attacked = True
        x.steps = max(x.steps, stat(m, x, "M"))
    m.emit(
        "attack",
        {
            "creature": x.id,
            "target": t.id,
            "detail": mode + (" charge" if charge else ""),
            "result": "counter" if counter else "attack",
        },
    )
    e = m.push(
        "engage",
        att=x.id,
        first=t.id,
        mode=mode,
        charge=list(charge) if charge else None,
        counter=counter,
        left=spec(x).attacks,
        defenders=[],
        no_counter=[],
        frenzy_off=False,
        seat=x.owner,
        nxt=t.id,
        aggr_ok=aggressive_ok,
    )
    if has(m, x, "frenzy"):
        m.roll("Frenzied Attack", [(8, 1, 8)], Frame("frenzy", {"e": e}))
    if spec(x).variable_attacks:
        m.roll(f"{x.name} attacks", [(8, 1, 8)], Frame("variable_attacks", {"e": e, "table": spec(x).variable_attacks}))


@step("variable_attacks")
def _variable(m: SBMatch, f: Frame) -> None:
    roll = f["dice"][0]
    for lo, hi, n in f["table"]:
        if lo <= roll <= hi:
            f["e"]["left"] = n


@step("frenzy")
def _frenzy(m: SBMatch, f: Frame) -> None:
    roll = f["dice"][0]
    extra = 1 if roll <= 4 else 2 if roll <= 6 else 3 if roll == 7 else 4
    f["e"]["left"] += extra
    f["e"]["frenzy_off"] = roll >= 7
    m.emit("ability", {"name": "Frenzied Attack", "creature": f["e"]["att"], "values": [extra]})


@step("engage")
def _engage(m: SBMatch, e: Frame) -> None:
    x = m.creatures.get(e["att"])
    if x is None or e["left"] <= 0:
        _finish_engagement(m, e)
        return
    if e["nxt"] is None:
        if not _next_targets(m, e):
            _finish_engagement(m, e)
            return
        m.stack.append(e)
        m.push("attack_more", seat=x.owner, e=e, prompt="attack again?")
        return
    t = m.creatures.get(e["nxt"])
    e["nxt"] = None
    if t is None:
        m.stack.append(e)
        return
    e["left"] -= 1
    m.stack.append(e)
    m.push("strike", att=x.id, tid=t.id, mode=e["mode"] if t.id == e["first"] else _mode(m, x, t), e=e)
    if t.id not in e["defenders"]:
        e["defenders"].append(t.id)
        # An Aggressive creature attacked (also by a counterattack) may strike first; a first strike is
        # not itself answered by a first strike, so two Aggressive creatures cannot ping-pong.
        if "aggressive" in spec(t).keywords and e["aggr_ok"]:
            m.roll(f"{t.name} is Aggressive", [(8, 1, 8)], Frame("aggressive", {"tid": t.id, "att": x.id, "e": e}))
        for handler in ON_ATTACKED.of(spec(t).hooks):
            handler(m, t)


@ON_ATTACKED.register("gargoyle_stone")
def _gargoyle_attacked(m: SBMatch, t: Creature) -> None:
    if not is_stone(m, t):
        m.push("stone", seat=t.owner, cid=t.id, prompt=f"turn the {t.name} to stone?")


def _mode(m: SBMatch, x: Creature, t: Creature) -> str:
    if KILLER.holds(orb_hooks(x.orb)) and not has(m, x, "adept"):
        return "killer"
    return reach_mode(m, x, t) or "melee"


def _next_targets(m: SBMatch, e: Frame) -> list[Creature]:
    x = m.creatures.get(e["att"])
    if x is None:
        return []
    if e["counter"]:
        t = m.creatures.get(e["first"])
        return [t] if t is not None and can_counter(m, x, t) else []
    if e["mode"] == "killer":
        return []
    return [t for t, _ in attack_targets(m, x)]


def _attack_more_options(m: SBMatch, f: Frame) -> list[Option]:
    x = m.creatures[f["e"]["att"]]
    opts = [
        Option(
            f"attack:{x.id}:{t.id}",
            "attack",
            f"{x.name} attacks {t.name} at {sq(t.pos)}",
            {"creature": x.id, "target": t.id, "row": t.pos[0], "col": t.pos[1]},
        )
        for t in _next_targets(m, f["e"])
    ]
    return [*opts, Option("stop", "stop", "no more attacks")] if opts else []


@decision("attack_more", "attack", _attack_more_options, default="stop")
def _attack_more(m: SBMatch, f: Frame, opt: Option) -> None:
    m.stack.pop()
    e = f["e"]
    if opt.id == "stop":
        e["left"] = 0
    else:
        e["nxt"] = opt.params["target"]


def _stone_options(m: SBMatch, f: Frame) -> list[Option]:
    return [
        Option("stone", "stone", "turn to stone (+8 D)", {"creature": f["cid"]}),
        Option("pass", "pass", "stay as you are", {"creature": f["cid"]}),
    ]


@decision("stone", "stone", _stone_options, default="pass")
def _stone(m: SBMatch, f: Frame, opt: Option) -> None:
    m.stack.pop()
    c = m.creatures.get(f["cid"])
    if opt.id == "stone" and c is not None:
        c.stone_turn = m.turn
        m.emit("ability", {"creature": c.id, "name": "Gargoyle", "detail": "turns to stone"})


@step("aggressive")
def _aggressive(m: SBMatch, f: Frame) -> None:
    t, x = m.creatures.get(f["tid"]), m.creatures.get(f["att"])
    if t is None or x is None or f["dice"][0] > 4 or not can_counter(m, t, x):
        return
    f["e"]["no_counter"].append(t.id)
    m.emit("ability", {"creature": t.id, "name": t.name, "detail": "Aggressive: attacks first"})
    declare(m, t, x, reach_mode(m, t, x) or "melee", counter=True, aggressive_ok=False)


@step("strike")
def _strike(m: SBMatch, f: Frame) -> None:
    """Before an attack's dice, every seat may play Dispel (2.3: "at any time"), so an enchantment
    played for this attack (Raging Valor) can be removed before it counts; then the dice."""
    from referee.games.scrumbrawl.cards import open_anytime

    x, t = m.creatures.get(f["att"]), m.creatures.get(f["tid"])
    if x is None or t is None:
        return
    m.push("strike_dice", **f.args)
    open_anytime(m, f"before {x.name} strikes {t.name}")


@step("strike_dice")
def _strike_dice(m: SBMatch, f: Frame) -> None:
    x, t = m.creatures.get(f["att"]), m.creatures.get(f["tid"])
    if x is None or t is None:
        return
    dice: list[tuple[int, int, int | None]] = [(20, 1, None), (20, 1, None)]
    for handler in DEFENCE_DICE.of(spec(t).hooks):
        dice.extend(handler(m, t))
    m.roll("attack", dice, Frame("strike_resolve", {"att": x.id, "tid": t.id, "mode": f["mode"], "e": f["e"]}))


@step("strike_resolve")
def _strike_resolve(m: SBMatch, f: Frame) -> None:
    x, t = m.creatures.get(f["att"]), m.creatures.get(f["tid"])
    e: Frame = f["e"]
    if x is None or t is None:
        return
    charge = e["charge"] is not None and not e["counter"]
    a_rating = attack_value(m, x, t, f["mode"], charge)
    d_rating = defense_value(m, t, x)
    dice, natural = f["dice"], f["natural"]
    a_total = dice[0] + a_rating
    d_total = dice[1] + d_rating + (dice[2] if len(dice) > 2 else 0)
    nat20 = natural[0] and dice[0] == 20
    nat1 = natural[0] and dice[0] == 1
    def_nat20 = natural[1] and dice[1] == 20
    hit = False if nat1 else (not def_nat20) if nat20 else a_total > d_total
    m.emit(
        "strike",
        {
            "creature": x.id,
            "target": t.id,
            "dice": list(dice),
            "attack_total": a_total,
            "defense_total": d_total,
            "result": "hit" if hit else "miss",
            "detail": f["mode"],
        },
    )
    if charge:
        e["no_counter"].append(t.id)
        m.push("charge_throw", tid=t.id, dir=e["charge"], att=x.id)
    if f["mode"] == "killer":
        orb = x.orb
        if orb is not None:
            x.orb = None
            m.carrier.pop(orb, None)
            m.orbs[orb] = None
            m.push("killer_after", orb=orb, tid=t.id, pos=list(t.pos))
        if hit:
            damage(m, t.id, x.id, "combat")
        return
    if not hit:
        return
    if t.orb is not None and dist(x.pos, t.pos) == 1 and x.orb is None and can_carry(x) and not charge:
        m.push("wrest", seat=x.owner, att=x.id, tid=t.id, prompt="wrest the orb instead of dealing damage?")
        return
    damage(m, t.id, x.id, "combat")


def _wrest_options(m: SBMatch, f: Frame) -> list[Option]:
    return [
        Option("damage", "damage", "deal the damage", {"creature": f["att"], "target": f["tid"]}),
        Option("wrest", "wrest", "take the orb instead", {"creature": f["att"], "target": f["tid"]}),
    ]


@decision("wrest", "wrest", _wrest_options, default="damage")
def _wrest(m: SBMatch, f: Frame, opt: Option) -> None:
    from referee.games.scrumbrawl.orbs import take_orb

    m.stack.pop()
    x, t = m.creatures.get(f["att"]), m.creatures.get(f["tid"])
    if x is None or t is None:
        return
    if opt.id == "damage" or t.orb is None:
        damage(m, t.id, x.id, "combat")
        return
    orb = t.orb
    t.orb = None
    m.carrier.pop(orb, None)
    m.emit("wrest", {"creature": x.id, "target": t.id, "orb": orb})
    m.orbs[orb] = x.pos
    take_orb(m, x, orb, "wrest")


@step("killer_after")
def _killer_after(m: SBMatch, f: Frame) -> None:
    orb = f["orb"]
    t = m.creatures.get(f["tid"])
    pos: Pos = tuple(f["pos"])
    m.last_control[orb] = (m.active, m.turn)
    if t is not None:
        m.orbs[orb] = t.pos
        loose_orb(m, orb, t.pos)
        return
    m.orbs[orb] = pos
    other = m.at(pos)
    if other is not None and other.orb is None:
        m.push("gain_orb", cid=other.id, orb=orb, how="placement")


@step("charge_throw")
def _charge_throw(m: SBMatch, f: Frame) -> None:
    t = m.creatures.get(f["tid"])
    if t is None:
        return
    d = tuple(f["dir"])
    pos = t.pos
    for _ in range(2):
        nxt = (pos[0] + d[0], pos[1] + d[1])
        if not on_board(nxt):
            # Thrown off the Arena: destroyed in combat (1.6.3 a), the Minotaur's kill (a skin).
            m.emit("thrown", {"creature": t.id, "detail": "off the Arena"})
            m.push("destroy", cid=t.id, killer=f.get("att"), cause="combat")
            return
        if m.at(nxt) is not None or m.portal_at(nxt) is not None:
            break
        pos = nxt
    old = t.pos
    t.pos = pos
    m.emit("thrown", {"creature": t.id, "from_row": old[0], "from_col": old[1], "row": pos[0], "col": pos[1]})
    orb = m.loose_orb_at(pos)
    if orb is not None:
        m.push("gain_orb", cid=t.id, orb=orb, how="placement")


def _finish_engagement(m: SBMatch, e: Frame) -> None:
    x = m.creatures.get(e["att"])
    if x is not None:
        if x.extra_turn and x.owner == m.active:
            another_turn(m, x)
        elif not e["counter"]:
            x.done = True
        if e["frenzy_off"] and x.enchant and "frenzy" in CONTENT.enchantments[m.card_names[x.enchant]].grants:
            m.discard.append(x.enchant)
            m.emit("enchantment_lost", {"creature": x.id, "card": x.enchant, "name": m.card_names[x.enchant]})
            x.enchant = None
    if e["counter"] or x is None:
        return
    for tid in reversed(e["defenders"]):
        t = m.creatures.get(tid)
        if t is not None and tid not in e["no_counter"] and can_counter(m, t, x):
            m.push("counter", seat=t.owner, cid=t.id, att=x.id, prompt="counterattack?")


def _counter_options(m: SBMatch, f: Frame) -> list[Option]:
    t, x = m.creatures.get(f["cid"]), m.creatures.get(f["att"])
    if t is None or x is None or not can_counter(m, t, x):
        return []
    return [
        Option("counter", "counter", f"{t.name} counterattacks {x.name}", {"creature": t.id, "target": x.id}),
        Option("pass", "pass", "do not counterattack", {"creature": t.id, "target": x.id}),
    ]


@decision("counter", "counter", _counter_options, default="counter")
def _counter(m: SBMatch, f: Frame, opt: Option) -> None:
    m.stack.pop()
    t, x = m.creatures[f["cid"]], m.creatures[f["att"]]
    if opt.id == "counter":
        declare(m, t, x, reach_mode(m, t, x) or "melee", counter=True)


def contest(m: SBMatch, x: Creature, t: Creature, then: Frame) -> None:
    """A standard combat roll of ``x`` against ``t`` for a magic ability; ``then["hit"]`` tells the result."""
    m.roll(
        "magic combat roll", [(20, 1, None), (20, 1, None)], Frame("contest", {"att": x.id, "tid": t.id, "then": then})
    )


@step("contest")
def _contest(m: SBMatch, f: Frame) -> None:
    x, t = m.creatures.get(f["att"]), m.creatures.get(f["tid"])
    if x is None or t is None:
        return
    dice, nat = f["dice"], f["natural"]
    a_total, d_total = dice[0] + attack_value(m, x, t, "melee"), dice[1] + defense_value(m, t, x)
    hit = (
        False
        if nat[0] and dice[0] == 1
        else (not (nat[1] and dice[1] == 20))
        if nat[0] and dice[0] == 20
        else a_total > d_total
    )
    m.emit(
        "strike",
        {
            "creature": x.id,
            "target": t.id,
            "dice": list(dice),
            "attack_total": a_total,
            "defense_total": d_total,
            "result": "hit" if hit else "miss",
            "detail": "magic",
        },
    )
    if hit:
        m.stack.append(f["then"])


CHARGES.mark("minotaur_charge")


@DEFENCE_DICE.register("leprechaun_luck")
def _leprechaun_dice(m: SBMatch, t: Creature) -> list[tuple[int, int, int | None]]:
    return [(8, 1, 8)]
