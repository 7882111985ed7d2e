"""Cards in play (sections 1.4, 1.5, 2.2, 2.3): summoning, enchantments, Alter Reality, Dispel,
Fumble, the Revenant, and every event.

Out-of-turn plays are *windows*: a decision walked seat by seat, clockwise from the active
player, offered only to a seat holding a card it can legally play; a seat's "pass" is a private
event, since even that reveals its hand. This module does not run the turn (``turn``) or combat.
"""

from __future__ import annotations

from referee.core.contract import Option
from referee.games.scrumbrawl.board import (
    draw_orb,
    neighbours,
    place_2d20,
    place_new_orb,
    place_portal,
    relocate_orb,
    replace_orb,
)
from referee.games.scrumbrawl.content import CONTENT
from referee.games.scrumbrawl.creatures import MAX_CREATURES, count_of, has, summon
from referee.games.scrumbrawl.engine import Frame, SBMatch, decision, step
from referee.games.scrumbrawl.orbs import can_be_fumbled


def cards_of(m: SBMatch, seat: int, kind: str) -> list[str]:
    """Returns the card ids in ``seat``'s hand of type ``kind`` (one id per distinct name)."""
    seen: set[str] = set()
    out = []
    for card in m.hands[seat]:
        name = m.card_names[card]
        if name in seen:
            continue
        if kind == "Dispel" or kind == "Fumble" or kind == "Revenant":
            if name != kind:
                continue
        elif CONTENT.card_type(name) != kind:
            continue
        seen.add(name)
        out.append(card)
    return out


def play_from_hand(m: SBMatch, seat: int, card: str) -> None:
    """Moves ``card`` from ``seat``'s hand to the discard pile (or the table) and announces it."""
    m.hands[seat].remove(card)
    m.emit("play", {"seat": seat, "card": card, "name": m.card_names[card]})


def _passed(m: SBMatch, f: Frame, what: str) -> None:
    # No event, not even a private one: event indices are global, so a private "pass" would leave a
    # gap in everyone else's log showing that some seat was offered the window, i.e. held the card.
    del what
    if len(f["queue"]) > 1:
        f["queue"].pop(0)
    else:
        m.stack.pop()


# -- Alter Reality -------------------------------------------------------------------------------


def _alter_options(m: SBMatch, f: Frame) -> list[Option]:
    seat = f["queue"][0]
    cards = cards_of(m, seat, "alter_reality")
    if not cards:
        return []
    ref = f["ref"]
    opts = []
    for card in cards:
        value = CONTENT.alter_reality[m.card_names[card]]
        for i, die in enumerate(ref["dice"]):
            lo, hi = ref["bounds"][i]
            for delta in [*range(-value, 0), *range(1, value + 1)]:
                if lo <= die + delta <= hi:
                    opts.append(
                        Option(
                            f"alter:{card}:{i}:{delta:+d}",
                            "alter",
                            f"{m.card_names[card]}: die {i + 1} {delta:+d}",
                            {"card": card, "card_name": m.card_names[card], "die": i, "delta": delta},
                        )
                    )
    return [*opts, Option("pass", "pass", "do not alter")] if opts else []


@decision("alter_window", "alter_reality", _alter_options, default="pass", window=True)
def _alter(m: SBMatch, f: Frame, opt: Option) -> None:
    if opt.id == "pass":
        _passed(m, f, "alter_reality")
        return
    seat = f["queue"][0]
    card, i, delta = opt.params["card"], opt.params["die"], opt.params["delta"]
    play_from_hand(m, seat, card)
    m.discard.append(card)
    ref = f["ref"]
    ref["dice"][i] += delta
    ref["natural"][i] = False
    m.emit(
        "alter",
        {
            "seat": seat,
            "card": card,
            "name": m.card_names[card],
            "dice": list(ref["dice"]),
            "values": [i, delta],
            "purpose": f["purpose"],
        },
    )
    f["queue"] = m.order_from((seat + 1) % m.seats)


# -- Dispel --------------------------------------------------------------------------------------


def _dispel_window_options(m: SBMatch, f: Frame) -> list[Option]:
    seat = f["queue"][0]
    cards = cards_of(m, seat, "Dispel")
    if not cards:
        return []
    what = "the event" if f["ref"]["dispels"] % 2 == 0 else "the Dispel"
    return [
        Option(f"dispel:{cards[0]}", "dispel", f"Dispel {what}", {"card": cards[0], "card_name": "Dispel"}),
        Option("pass", "pass", "let it resolve"),
    ]


@decision("dispel_window", "dispel", _dispel_window_options, default="pass", window=True)
def _dispel_window(m: SBMatch, f: Frame, opt: Option) -> None:
    if opt.id == "pass":
        _passed(m, f, "dispel")
        return
    seat = f["queue"][0]
    play_from_hand(m, seat, opt.params["card"])
    m.discard.append(opt.params["card"])
    f["ref"]["dispels"] += 1
    m.emit("dispel", {"seat": seat, "card": opt.params["card"], "detail": f["ref"]["what"]})
    f["queue"] = [s for s in m.order_from((seat + 1) % m.seats) if s != seat]
    if not f["queue"]:
        m.stack.pop()


def dispel_enchantment(m: SBMatch, seat: int, card: str, target: str) -> None:
    """Plays Dispel on enchantment card ``target``; the others may answer with a Dispel of their own."""
    play_from_hand(m, seat, card)
    m.discard.append(card)
    ref = m.push("dispel_resolve", target=target, dispels=1, what=f"enchantment {target}")
    queue = [s for s in m.order_from((seat + 1) % m.seats) if s != seat]
    if queue:
        m.push("dispel_window", queue=queue, ref=ref, prompt="Dispel the Dispel?")


@step("dispel_resolve")
def _dispel_resolve(m: SBMatch, f: Frame) -> None:
    if f["dispels"] % 2 == 1:
        remove_enchantment(m, f["target"], "dispelled")


def remove_enchantment(m: SBMatch, card: str, why: str) -> None:
    """Removes enchantment ``card`` (creature or team) from play to the discard pile."""
    for c in m.creatures.values():
        if c.enchant == card:
            c.enchant = None
            break
    else:
        for seat in range(m.seats):
            if card in m.team_ench[seat]:
                m.team_ench[seat].remove(card)
                break
        else:
            return
    m.discard.append(card)
    m.emit("enchantment_lost", {"card": card, "name": m.card_names[card], "detail": why})


def enchantments_in_play(m: SBMatch) -> list[str]:
    """Every enchantment card in play: creature enchantments by creature id, then team ones by seat."""
    out = [c.enchant for c in sorted(m.creatures.values(), key=lambda c: c.id) if c.enchant]
    for seat in range(m.seats):
        out.extend(m.team_ench[seat])
    return out


# -- Fumble and Revenant windows ---------------------------------------------------------------


def _fumble_options(m: SBMatch, f: Frame) -> list[Option]:
    seat = f["queue"][0]
    c = m.creatures.get(f["cid"])
    if c is None or not can_be_fumbled(m, c):
        return []
    cards = cards_of(m, seat, "Fumble")
    if not cards:
        return []
    return [
        Option(f"fumble:{cards[0]}", "fumble", f"Fumble: {c.name} drops the orb", {"card": cards[0], "creature": c.id}),
        Option("pass", "pass", "no Fumble"),
    ]


@decision("fumble_window", "fumble", _fumble_options, default="pass", window=True)
def _fumble_window(m: SBMatch, f: Frame, opt: Option) -> None:
    if opt.id == "pass":
        _passed(m, f, "fumble")
        return
    m.stack.pop()
    play_fumble(m, f["queue"][0], opt.params["card"], f["cid"])


def play_fumble(m: SBMatch, seat: int, card: str, cid: str) -> None:
    """Plays Fumble on carrier ``cid`` (it cannot be Dispelled)."""
    play_from_hand(m, seat, card)
    m.discard.append(card)
    m.push("fumble", cid=cid, why="Fumble")


def _revenant_options(m: SBMatch, f: Frame) -> list[Option]:
    seat = f["queue"][0]
    cards = cards_of(m, seat, "Revenant")
    if not cards or count_of(m, seat) >= MAX_CREATURES:
        return []
    return [
        Option(f"revenant:{cards[0]}", "revenant", "summon the Revenant", {"card": cards[0], "card_name": "Revenant"}),
        Option("pass", "pass", "no Revenant"),
    ]


@decision("revenant_window", "revenant", _revenant_options, default="pass", window=True)
def _revenant_window(m: SBMatch, f: Frame, opt: Option) -> None:
    if opt.id == "pass":
        _passed(m, f, "revenant")
        return
    m.stack.pop()
    seat = f["queue"][0]
    m.hands[seat].remove(opt.params["card"])
    summon(m, opt.params["card"], seat)


# -- instant events ------------------------------------------------------------------------------


@step("instant_event")
def _instant_event(m: SBMatch, f: Frame) -> None:
    card = f["card"]
    ev = CONTENT.events[m.card_names[card]]
    m.emit("event", {"seat": f["seat"], "card": card, "name": ev.name})
    if len(ev.effects) == 8:
        # The d8 of a multi-option card may not be altered (section 1.5.3).
        m.roll(f"{ev.name} option", [(8, 1, 8)], {"s": "instant_chosen", "card": card}, alterable=False)
        return
    m.push("instant_dispel", card=card, effect=ev.effects[0])


@step("instant_chosen")
def _instant_chosen(m: SBMatch, f: Frame) -> None:
    ev = CONTENT.events[m.card_names[f["card"]]]
    effect = ev.effects[f["dice"][0] - 1]
    m.emit("event_option", {"card": f["card"], "name": effect, "dice": list(f["dice"])})
    m.push("instant_dispel", card=f["card"], effect=effect)


@step("instant_dispel")
def _instant_dispel(m: SBMatch, f: Frame) -> None:
    ref = m.push("instant_resolve", card=f["card"], effect=f["effect"], dispels=0, what=f"event {f['effect']}")
    m.push("dispel_window", queue=m.order_from(m.active), ref=ref, prompt="Dispel the event?")


@step("instant_resolve")
def _instant_resolve(m: SBMatch, f: Frame) -> None:
    m.discard.append(f["card"])
    if f["dispels"] % 2 == 1:
        m.emit("event_cancelled", {"card": f["card"], "name": f["effect"]})
        return
    m.push("event_effect", effect=f["effect"], cause=m.card_names[f["card"]])


@step("event_effect")
def _event_effect(m: SBMatch, f: Frame) -> None:
    EFFECTS[f["effect"]](m, f)


def _chaos(m: SBMatch, f: Frame) -> None:
    m.emit("effect", {"name": "chaos", "detail": f["cause"]})
    pids = sorted(m.portals)
    orbs = sorted(m.orbs)
    order = {s: i for i, s in enumerate(m.order_from(m.active))}
    # A Chaos inside a Chaos (a Magic Stump crushed by a placement) also takes the creatures still waiting.
    creatures = sorted([*m.creatures.values(), *m.limbo.values()], key=lambda c: (order.get(c.owner, 9), c.id))
    m.portals.clear()
    for orb in orbs:
        m.orbs[orb] = None
    m.carrier.clear()
    for c in creatures:
        c.orb = None
        m.limbo[c.id] = m.creatures.pop(c.id, c)
    for orb in orbs:
        del m.orbs[orb]
    for c in reversed(creatures):
        place_2d20(m, c.name, {"s": "creature_lands", "cid": c.id, "seat": c.owner, "entered": c.entered})
    for orb in reversed(orbs):
        place_new_orb(m, orb)
    if m.lms:
        for pid in pids:
            m.portals[pid] = m.portal_home[pid]
    else:
        for pid in reversed(pids):
            place_portal(m, pid)


def _earthquake(m: SBMatch, f: Frame) -> None:
    m.emit("effect", {"name": "earthquake", "detail": f["cause"]})
    order = {s: i for i, s in enumerate(m.order_from(m.active))}
    victims = sorted(
        (c for c in m.creatures.values() if not has(m, c, "flying")), key=lambda c: (order.get(c.owner, 9), c.id)
    )
    for c in reversed(victims):
        m.roll(f"Earthquake {c.name}", [(8, 1, 8)], {"s": "doom_check", "cid": c.id, "upto": 4, "cause": "earthquake"})


@step("doom_check")
def _doom_check(m: SBMatch, f: Frame) -> None:
    if f["dice"][0] <= f["upto"] and f["cid"] in m.creatures:
        m.push("destroy", cid=f["cid"], killer=None, cause=f["cause"])


def _fissure(m: SBMatch, f: Frame) -> None:
    m.emit("effect", {"name": "fissure", "detail": f["cause"]})
    place_2d20(m, "Fissure", {"s": "fissure_hit"})


@step("fissure_hit")
def _fissure_hit(m: SBMatch, f: Frame) -> None:
    r, c = int(f["pos"][0]), int(f["pos"][1])
    m.emit("fissure", {"row": r, "col": c})

    def hit(p: tuple[int, int]) -> bool:
        return abs(p[0] - r) <= 1 or abs(p[1] - c) <= 1

    _wipe(
        m,
        [x.id for x in m.creatures.values() if not has(m, x, "flying") and hit(x.pos)],
        [o for o, p in m.orbs.items() if p is not None and hit(p)],
        [pid for pid, p in m.portals.items() if hit(p)],
        "fissure",
    )


def _wipe(m: SBMatch, cids: list[str], orbs: list[str], pids: list[str], cause: str) -> None:
    for cid in sorted(cids):
        orb = m.creatures[cid].orb
        if orb is not None:
            orbs.append(orb)
    for orb in sorted(set(orbs)):
        replace_orb(m, orb)
    for pid in sorted(pids):
        if not m.lms:
            del m.portals[pid]
            place_portal(m, pid)
    for cid in sorted(cids, reverse=True):
        m.push("destroy", cid=cid, killer=None, cause=cause)


def _hailstorm(m: SBMatch, f: Frame) -> None:
    m.emit("effect", {"name": "hailstorm", "detail": f["cause"]})
    for card in reversed(enchantments_in_play(m)):
        m.roll(f"Hailstorm {m.card_names[card]}", [(8, 1, 8)], {"s": "hail_check", "card": card})


@step("hail_check")
def _hail_check(m: SBMatch, f: Frame) -> None:
    if f["dice"][0] <= 6:
        remove_enchantment(m, f["card"], "hailstorm")


def _lightning(m: SBMatch, f: Frame) -> None:
    m.emit("effect", {"name": "lightning_storm", "detail": f["cause"]})
    m.roll("Lightning Storm strikes", [(8, 1, 8)], {"s": "strikes"})


@step("strikes")
def _strikes(m: SBMatch, f: Frame) -> None:
    for _ in range(f["dice"][0]):
        place_2d20(m, "lightning strike", {"s": "strike_square"})


@step("strike_square")
def _strike_square(m: SBMatch, f: Frame) -> None:
    pos = tuple(f["pos"])
    zone = {pos, *neighbours(pos)}
    m.emit("lightning", {"row": pos[0], "col": pos[1]})
    _wipe(
        m,
        [c.id for c in m.creatures.values() if c.pos in zone],
        [o for o, p in m.orbs.items() if p in zone],
        [pid for pid, p in m.portals.items() if p in zone],
        "lightning",
    )


def _gypsy(m: SBMatch, f: Frame) -> None:
    from referee.games.scrumbrawl.turn import draw_card

    m.emit("effect", {"name": "gypsy_bazaar", "detail": f["cause"]})
    instants: list[tuple[int, str]] = []
    for seat in range(m.seats):
        m.discard.extend(m.hands[seat])
        m.emit("discard_hand", {"seat": seat, "values": [len(m.hands[seat])]})
        m.hands[seat] = []
    for seat in m.order_from(m.active):
        for _ in range(3):
            card = draw_card(m, seat)
            if card is None:
                break
            if (
                CONTENT.card_type(m.card_names[card]) == "event"
                and CONTENT.events[m.card_names[card]].timing == "instant"
            ):
                m.hands[seat].remove(card)
                instants.append((seat, card))
    for seat, card in reversed(instants):
        m.push("instant_event", card=card, seat=seat)


def _orbstorm(m: SBMatch, f: Frame) -> None:
    m.emit("effect", {"name": "orbstorm", "detail": f["cause"]})
    m.roll("Orbstorm", [(8, 1, 8)], {"s": "orbstorm_n"})


@step("orbstorm_n")
def _orbstorm_n(m: SBMatch, f: Frame) -> None:
    for _ in range(min(f["dice"][0], len(m.orb_deck))):
        orb = draw_orb(m)
        if orb is not None:
            place_new_orb(m, orb)


def _sacrifice(m: SBMatch, f: Frame) -> None:
    m.emit("effect", {"name": "sacrifice", "detail": f["cause"]})
    for seat in reversed(m.order_from(m.active)):
        m.push("sacrifice", seat=seat, prompt="choose a creature to sacrifice")


def _sacrifice_options(m: SBMatch, f: Frame) -> list[Option]:
    return [
        Option(f"sacrifice:{c.id}", "sacrifice", f"sacrifice {c.name}", {"creature": c.id})
        for c in sorted(m.creatures.values(), key=lambda c: c.id)
        if c.owner == f["seat"]
    ]


@decision("sacrifice", "sacrifice", _sacrifice_options, default="first")
def _sacrifice_choice(m: SBMatch, f: Frame, opt: Option) -> None:
    m.stack.pop()
    m.push("destroy", cid=opt.params["creature"], killer=None, cause="sacrifice")


def _not_instant(m: SBMatch, f: Frame) -> None:
    raise RuntimeError(f"{f['effect']} is a played event, not an instant effect")


EFFECTS = {
    "chaos": _chaos,
    "earthquake": _earthquake,
    "fissure": _fissure,
    "hailstorm": _hailstorm,
    "lightning_storm": _lightning,
    "gypsy_bazaar": _gypsy,
    "orbstorm": _orbstorm,
    "sacrifice": _sacrifice,
    "dispel": _not_instant,
    "fumble": _not_instant,
}

__all__ = ["relocate_orb"]
