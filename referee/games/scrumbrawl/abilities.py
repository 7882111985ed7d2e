"""Magic abilities (section 1.6.4): the Aura Mage, the Chaos Mage, the Transmuter and the Magic Stump.

A magic ability is used on its owner's turn in lieu of movement, combat and orb maneuvering, so
it is offered only to a creature that has done none of these; using it ends the creature's turn.
Each is a named hook (the creature's ``hooks`` in ``data/creatures.json``) with an option
generator registered at the ``magic_options`` hook point and a resolver at ``magic_use``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.core.contract import Option
from referee.games.scrumbrawl.board import relocate_orb
from referee.games.scrumbrawl.cards import enchantments_in_play, remove_enchantment
from referee.games.scrumbrawl.combat import contest
from referee.games.scrumbrawl.content import CONTENT
from referee.games.scrumbrawl.creatures import relocate_creature, spec
from referee.games.scrumbrawl.engine import Creature, Frame, SBMatch, step
from referee.games.scrumbrawl.hooks import MAGIC_OPTIONS, MAGIC_USE, WINDOW_ONLY

OptionGen = Callable[[SBMatch, Creature], list[Option]]

WINDOW_ONLY.mark("revenant")


@MAGIC_OPTIONS.register("magic_aura_mage")
def _aura_mage(m: SBMatch, c: Creature) -> list[Option]:
    out = []
    creatures = sorted(m.creatures.values(), key=lambda x: x.id)
    for src in creatures:
        if not src.enchant:
            continue
        for dst in creatures:
            if dst.id == src.id or dst.enchant or "resistant" in spec(dst).keywords:
                continue
            out.append(
                Option(
                    f"magic:{c.id}:{src.id}:{dst.id}",
                    "magic",
                    f"Aura Mage moves {m.card_names[src.enchant]} from {src.name} to {dst.name}",
                    {"creature": c.id, "target": src.id, "to": dst.id, "card": src.enchant},
                )
            )
    return out


@MAGIC_OPTIONS.register("magic_chaos_mage")
def _chaos_mage(m: SBMatch, c: Creature) -> list[Option]:
    return [
        Option(f"magic:{c.id}:{t.id}", "magic", f"Chaos Mage relocates {t.name}", {"creature": c.id, "target": t.id})
        for t in sorted(m.creatures.values(), key=lambda x: x.id)
    ]


@MAGIC_OPTIONS.register("magic_transmuter")
def _transmuter(m: SBMatch, c: Creature) -> list[Option]:
    if m.transmuted:
        return []
    hand = [
        k
        for k in m.hands[c.owner]
        if m.card_names[k] in CONTENT.creatures and not WINDOW_ONLY.holds(CONTENT.creatures[m.card_names[k]].hooks)
    ]
    return [
        Option(
            f"magic:{c.id}:{t.id}:{k}",
            "magic",
            f"Transmuter exchanges {t.name} with {m.card_names[k]}",
            {"creature": c.id, "target": t.id, "card": k, "card_name": m.card_names[k]},
        )
        for t in sorted(m.creatures.values(), key=lambda x: x.id)
        if t.id != c.id
        for k in hand
    ]


@MAGIC_OPTIONS.register("magic_stump")
def _stump(m: SBMatch, c: Creature) -> list[Option]:
    return [
        Option(
            f"magic:{c.id}:{k}",
            "magic",
            f"Magic Stump attacks {m.card_names[k]}",
            {"creature": c.id, "card": k, "card_name": m.card_names[k]},
        )
        for k in enchantments_in_play(m)
    ]


def magic_options(m: SBMatch, c: Creature) -> list[Option]:
    """The magic-ability options of ``c`` (which must not have moved, attacked or maneuvered)."""
    out: list[Option] = []
    for gen in MAGIC_OPTIONS.of(spec(c).hooks):
        out.extend(gen(m, c))
    return out


def use_magic(m: SBMatch, c: Creature, opt: Option) -> None:
    """Resolves a magic option; the creature's turn ends."""
    c.done = True
    p = opt.params
    m.emit("magic", {"creature": c.id, "name": c.name, "target": p.get("target", ""), "card": p.get("card", "")})
    for resolve in MAGIC_USE.of(spec(c).hooks):
        resolve(m, c, p)


@MAGIC_USE.register("magic_aura_mage")
def _use_aura_mage(m: SBMatch, c: Creature, p: dict[str, Any]) -> None:
    src = m.creatures[p["target"]]
    then = Frame("aura_move", {"src": src.id, "dst": p["to"]})
    if m.friendly(src.owner, c.owner):
        m.stack.append(then)
    else:
        contest(m, c, src, then)


@MAGIC_USE.register("magic_chaos_mage")
def _use_chaos_mage(m: SBMatch, c: Creature, p: dict[str, Any]) -> None:
    t = m.creatures[p["target"]]
    then = Frame("chaos_relocate", {"cid": t.id})
    if m.friendly(t.owner, c.owner):
        m.stack.append(then)
    else:
        contest(m, c, t, then)


@MAGIC_USE.register("magic_transmuter")
def _use_transmuter(m: SBMatch, c: Creature, p: dict[str, Any]) -> None:
    m.transmuted = True
    t = m.creatures[p["target"]]
    then = Frame("transmute", {"tid": t.id, "card": p["card"], "seat": c.owner})
    if m.friendly(t.owner, c.owner):
        m.stack.append(then)
    else:
        m.roll(c.name, [(8, 1, 8)], Frame("d8_gate", {"upto": 4, "then": then}))


@MAGIC_USE.register("magic_stump")
def _use_stump(m: SBMatch, c: Creature, p: dict[str, Any]) -> None:
    m.roll(
        "Magic Stump", [(8, 1, 8)], Frame("d8_gate", {"upto": 4, "then": Frame("stump_destroys", {"card": p["card"]})})
    )


@step("d8_gate")
def _d8_gate(m: SBMatch, f: Frame) -> None:
    if f["dice"][0] <= f["upto"]:
        m.stack.append(f["then"])


@step("aura_move")
def _aura_move(m: SBMatch, f: Frame) -> None:
    src, dst = m.creatures.get(f["src"]), m.creatures.get(f["dst"])
    if src is None or dst is None or not src.enchant or dst.enchant:
        return
    dst.enchant, src.enchant = src.enchant, None
    m.emit("enchantment_moved", {"creature": src.id, "target": dst.id, "card": dst.enchant})


@step("chaos_relocate")
def _chaos_relocate(m: SBMatch, f: Frame) -> None:
    t = m.creatures.get(f["cid"])
    if t is None:
        return
    if t.orb is not None:
        relocate_orb(m, t.orb)
    relocate_creature(m, t)


@step("stump_destroys")
def _stump_destroys(m: SBMatch, f: Frame) -> None:
    remove_enchantment(m, f["card"], "Magic Stump")


@step("transmute")
def _transmute(m: SBMatch, f: Frame) -> None:
    t = m.creatures.get(f["tid"])
    card, seat = f["card"], f["seat"]
    if t is None or card not in m.hands[seat]:
        return
    m.hands[seat].remove(card)
    m.hands[seat].append(t.id)
    del m.creatures[t.id]
    if t.enchant:
        m.discard.append(t.enchant)
    new = Creature(
        card,
        m.card_names[card],
        t.owner,
        t.pos,
        t.entered,
        None,
        None,
        t.steps,
        t.moved,
        t.done,
        t.attacked,
        t.maneuvered,
    )
    m.creatures[card] = new
    for team in range(m.seats):
        if new.name in m.skins[team]:
            m.skins[team].remove(new.name)
    m.emit(
        "transmute",
        {"creature": t.id, "target": card, "name": new.name, "seat": seat, "row": t.pos[0], "col": t.pos[1]},
    )
    if t.orb is not None:
        orb = t.orb
        m.carrier.pop(orb, None)
        m.orbs[orb] = new.pos
        m.push("gain_orb", cid=new.id, orb=orb, how="placement")
