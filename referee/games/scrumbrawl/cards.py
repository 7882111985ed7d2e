"""Cards in play (sections 1.4, 1.5, 2.2, 2.3): summoning, enchantments, Alter Reality, Dispel,
Fumble, the Revenant, and every event.

Out-of-turn plays are *windows*: a decision walked seat by seat, clockwise from the active
player. An Alter Reality, Dispel, Fumble, team enchantment or Revenant window is offered to every seat that could
play in it were it holding the card, whatever it holds ("pass" is always an option), so being asked
says nothing about a hand; its answers are held until the last seat has answered, so the seats of
one window may be asked in parallel (``Decision.window``). The Alter Reality window after each roll
is one of them too. A pass leaves no event. This module does not run the turn (``turn``) or combat.
"""

from __future__ import annotations

from referee.core.contract import Option
from referee.games.scrumbrawl.board import (
    destroy_portal,
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
from referee.games.scrumbrawl.hooks import INSTANT_EFFECT, PLAYED_EFFECT, WINDOW_ONLY
from referee.games.scrumbrawl.orbs import can_be_fumbled

# The windows' "pass" options: an option is immutable, so each is built once (a window is asked
# after every roll: building them was a visible part of a decision's cost).
_PASS_ANYTIME = Option("pass", "pass", "play nothing")
_PASS_TEAM = Option("pass", "pass", "keep the cards")
_PASS_ALTER = Option("pass", "pass", "do not alter")
_PASS_DISPEL = Option("pass", "pass", "let it resolve")
_PASS_FUMBLE = Option("pass", "pass", "no Fumble")
_PASS_REVENANT = Option("pass", "pass", "no Revenant")


def cards_of(m: SBMatch, seat: int, kind: str) -> list[str]:
    """Returns the card ids in ``seat``'s hand of type ``kind`` (one id per distinct name)."""
    seen: set[str] = set()
    out = []
    for card in m.hands[seat]:
        name = m.card_names[card]
        if name in seen or CONTENT.card_type(name) != kind:
            continue
        seen.add(name)
        out.append(card)
    return out


def played_cards_of(m: SBMatch, seat: int, effect: str) -> list[str]:
    """Returns the card ids in ``seat``'s hand of the played events whose one effect is ``effect``.

    ``effect`` is a hook of the ``played_effect`` point (``"dispel"``, ``"fumble"``): the card is found by
    what it does (``effects`` in ``data/cards.json``), never by its name. One id per distinct name.
    """
    if effect not in PLAYED_EFFECT.handlers:
        raise ValueError(f"scrumbrawl: {effect!r} is not a played effect")
    seen: set[str] = set()
    out = []
    for card in m.hands[seat]:
        name = m.card_names[card]
        ev = CONTENT.events.get(name)
        if name in seen or ev is None or ev.effects != (effect,):
            continue
        seen.add(name)
        out.append(card)
    return out


def window_only_creatures(m: SBMatch, seat: int) -> list[tuple[str, str]]:
    """Returns ``(card id, name)`` of each creature in ``seat``'s hand that enters only through its window.

    That is the Revenant (the ``window_only`` hook point), one card per distinct name, in hand order.
    """
    seen: set[str] = set()
    out = []
    for card in m.hands[seat]:
        name = m.card_names[card]
        if name in seen or name not in CONTENT.creatures or not WINDOW_ONLY.holds(CONTENT.creatures[name].hooks):
            continue
        seen.add(name)
        out.append((card, name))
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


# -- held windows --------------------------------------------------------------------------------


def open_window(m: SBMatch, name: str, seats: list[int], prompt: str, **data: object) -> None:
    """Opens held window ``name`` for ``seats`` (see :meth:`SBMatch.open_window`)."""
    m.open_window(name, seats, prompt, **data)


def draw_card(m: SBMatch, seat: int) -> str | None:
    """Draws the top card into ``seat``'s hand (the discard pile is reshuffled when the deck is empty).

    In the Creature Draft the card comes from the seat's creature deck when ``m.draw_from`` says so.
    """
    if m.draw_from == "creatures" and m.personal[seat]:
        m.draw_from = "main"
        card = m.personal[seat].pop(0)
        m.hands[seat].append(card)
        m.emit("draw", {"seat": seat, "detail": "creatures"})
        m.emit("drew", {"seat": seat, "card": card, "name": m.card_names[card]}, to=[seat])
        return card
    if not m.deck and m.personal[seat] and not m.discard:
        m.draw_from = "creatures"
        return draw_card(m, seat)
    if not m.deck:
        if not m.discard:
            return None
        m.deck = m.discard
        m.discard = []
        m.chance.shuffle(m.deck)
        m.emit("reshuffle", {"values": [len(m.deck)]})
    card = m.deck.pop(0)
    m.hands[seat].append(card)
    m.emit("draw", {"seat": seat})
    m.emit("drew", {"seat": seat, "card": card, "name": m.card_names[card]}, to=[seat])
    return card


def _hold(m: SBMatch, f: Frame, opt: Option) -> None:
    """Records a seat's answer to a held window (nothing happens until the window closes)."""
    if opt.id != "pass":
        f["answers"].append([f["queue"][0], opt.kind, dict(opt.params)])
    _passed(m, f, "held")


@step("window_close")
def _window_close(m: SBMatch, f: Frame) -> None:
    """Resolves a held window: the first answer (in seat order) still playable takes effect.

    The others keep their cards; the window then opens again (the same seats, a new id, except a
    counter-Dispel window, which goes to everyone but the last player), so they may answer the card
    that was played. A window in which everyone passed closes for good.
    """
    for seat, kind, params in f["answers"]:
        assert isinstance(seat, int) and isinstance(kind, str) and isinstance(params, dict)
        if not _still_playable(m, seat, kind, params, f["data"]):
            continue
        if f["window"] == "dispel_window":
            ref = f["data"]["ref"]
            play_from_hand(m, seat, params["card"])
            m.discard.append(params["card"])
            ref["dispels"] += 1
            m.emit("dispel", {"seat": seat, "card": params["card"], "detail": ref["what"]})
            open_window(m, "dispel_window", [s for s in m.order_from(m.active) if s != seat], f["prompt"], ref=ref)
            return
        if f["window"] == "alter_window":
            play_alter(m, seat, params, f["data"])
            return
        open_window(m, f["window"], f["seats"], f["prompt"], **f["data"])
        if kind == "dispel":
            dispel_enchantment(m, seat, params["card"], params["target"])
        elif kind == "fumble":
            play_fumble(m, seat, params["card"], params["creature"])
        elif kind == "team":
            play_team(m, seat, params["card"])
        return


def _still_playable(m: SBMatch, seat: int, kind: str, params: dict[str, object], data: dict[str, object]) -> bool:
    if params.get("card") not in m.hands[seat]:
        return False
    if kind == "dispel" and "target" in params:
        return params["target"] in enchantments_in_play(m)
    if kind == "alter":
        ref = data["ref"]
        assert isinstance(ref, Frame) and isinstance(params["die"], int) and isinstance(params["delta"], int)
        lo, hi = ref["bounds"][params["die"]]
        return bool(lo <= ref["dice"][params["die"]] + params["delta"] <= hi)
    if kind == "fumble":
        c = m.creatures.get(str(params["creature"]))
        return c is not None and can_be_fumbled(m, c)
    return True


def active_side(m: SBMatch, seat: int) -> bool:
    """Whether it is ``seat``'s own or its teammate's turn (Fumble "during any player's turn": any time)."""
    return m.friendly(seat, m.active)


def open_anytime(m: SBMatch, point: str, others_only: bool = False) -> None:
    """Opens the any-time window at ``point`` (kind ``dispel_window``): every live seat (but the active one
    when ``others_only``, whose own decision comes next anyway) may Dispel any enchantment, and a seat on
    the active side may also Fumble any carrier. A seat is skipped when, as it is asked, nothing in play is a
    target (a public fact).
    """
    seats = [s for s in m.order_from(m.active) if not (others_only and s == m.active)]
    open_window(m, "anytime_window", seats, f"play Dispel or Fumble {point}?", point=point)


def _anytime_targets(m: SBMatch, seat: int) -> bool:
    if enchantments_in_play(m):
        return True
    return active_side(m, seat) and any(can_be_fumbled(m, c) for c in m.creatures.values())


def anytime_plays(m: SBMatch, seat: int) -> list[Option]:
    """The Dispel (on any enchantment) and, on the active side, Fumble (on any carrier) plays of ``seat``."""
    out: list[Option] = []
    d = played_cards_of(m, seat, "dispel")
    if d:
        out.extend(
            Option(
                f"dispel:{d[0]}:{k}",
                "dispel",
                f"Dispel {m.card_names[k]}",
                {"card": d[0], "target": k, "card_name": m.card_names[k]},
            )
            for k in enchantments_in_play(m)
        )
    fumbles = played_cards_of(m, seat, "fumble")
    if fumbles and active_side(m, seat):
        out.extend(
            Option(
                f"fumble:{fumbles[0]}:{c.id}",
                "fumble",
                f"Fumble on {c.name}",
                {"card": fumbles[0], "creature": c.id},
            )
            for c in sorted(m.creatures.values(), key=lambda c: c.id)
            if can_be_fumbled(m, c)
        )
    return out


def _anytime_options(m: SBMatch, f: Frame) -> list[Option]:
    seat = f["queue"][0]
    if not _anytime_targets(m, seat):
        return []
    return [*anytime_plays(m, seat), _PASS_ANYTIME]


@decision("anytime_window", "dispel_window", _anytime_options, default="pass", window=True)
def _anytime(m: SBMatch, f: Frame, opt: Option) -> None:
    _hold(m, f, opt)


def play_team(m: SBMatch, seat: int, card: str) -> None:
    """Plays team enchantment ``card`` from ``seat``'s hand."""
    play_from_hand(m, seat, card)
    m.team_ench[seat].append(card)


def _team_options(m: SBMatch, f: Frame) -> list[Option]:
    seat = f["queue"][0]
    plays = [
        Option(f"team:{k}", "team", f"play {m.card_names[k]}", {"card": k, "card_name": m.card_names[k]})
        for k in cards_of(m, seat, "enchantment")
        if CONTENT.enchantments[m.card_names[k]].scope == "team"
    ]
    return [*plays, _PASS_TEAM]


@decision("team_window", "team_window", _team_options, default="pass", window=True)
def _team_window(m: SBMatch, f: Frame, opt: Option) -> None:
    _hold(m, f, opt)


# -- Alter Reality -------------------------------------------------------------------------------


def alter_reality_left(m: SBMatch) -> bool:
    """Whether an Alter Reality card may be in some hand, judged on public facts only.

    The deck list is public (the config's counts), and so is the discard pile: when the config has no
    Alter Reality card, or every one of them lies in the discard pile, nobody can hold one, so no
    window is opened. A card's whereabouts beyond that (the deck, a hand) are never consulted.
    """
    if m.config["simple_remove_alter_reality"]:
        return False
    counts = {**CONTENT.deck, **m.config["deck_counts"]}
    total = sum(n for name, n in counts.items() if name in CONTENT.alter_reality)
    discarded = sum(1 for k in m.discard if m.card_names[k] in CONTENT.alter_reality)
    return bool(total > discarded)


@step("alter_open")
def _alter_open(m: SBMatch, f: Frame) -> None:
    """Opens the Alter Reality window after a roll (section 1.5.3): every live seat, clockwise from the
    active player, whatever it holds. Any seat may play the card after any roll, so nobody is skipped
    (a die can always move by 1 within its bounds)."""
    if alter_reality_left(m):
        open_window(m, "alter_window", m.order_from(m.active), f["prompt"], ref=f["ref"], purpose=f["purpose"])


def _alter_plays(m: SBMatch, seat: int, ref: Frame) -> list[Option]:
    opts = []
    for card in cards_of(m, seat, "alter_reality"):
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
    return opts


def _alter_options(m: SBMatch, f: Frame) -> list[Option]:
    # Offered whatever the seat holds: "pass" alone says nothing about a hand.
    return [*_alter_plays(m, f["queue"][0], f["ref"]), _PASS_ALTER]


@decision("alter_window", "alter_reality", _alter_options, default="pass", window=True)
def _alter(m: SBMatch, f: Frame, opt: Option) -> None:
    _hold(m, f, opt)


def play_alter(m: SBMatch, seat: int, params: dict[str, object], data: dict[str, object]) -> None:
    """Plays the Alter Reality card of ``params`` on the roll ``data["ref"]``, then reopens the window
    to every live seat clockwise from the next one (so cards can answer cards, the player last)."""
    card, i, delta = str(params["card"]), params["die"], params["delta"]
    assert isinstance(i, int) and isinstance(delta, int)
    ref = data["ref"]
    assert isinstance(ref, Frame)
    play_from_hand(m, seat, card)
    m.discard.append(card)
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
            "purpose": data["purpose"],
        },
    )
    if alter_reality_left(m):
        open_window(m, "alter_window", m.order_from((seat + 1) % m.seats), "alter the roll?", **data)


# -- Dispel --------------------------------------------------------------------------------------


def _dispel_window_options(m: SBMatch, f: Frame) -> list[Option]:
    seat = f["queue"][0]
    cards = played_cards_of(m, seat, "dispel")
    what = "the event" if f["ref"]["dispels"] % 2 == 0 else "the Dispel"
    plays = [
        Option(f"dispel:{c}", "dispel", f"{m.card_names[c]} {what}", {"card": c, "card_name": m.card_names[c]})
        for c in cards
    ]
    return [*plays, _PASS_DISPEL]


@decision("dispel_window", "dispel", _dispel_window_options, default="pass", window=True)
def _dispel_window(m: SBMatch, f: Frame, opt: Option) -> None:
    _hold(m, f, opt)


def dispel_enchantment(m: SBMatch, seat: int, card: str, target: str) -> None:
    """Plays Dispel on enchantment card ``target``; every other seat may answer with a Dispel of its own."""
    play_from_hand(m, seat, card)
    m.discard.append(card)
    ref = m.push("dispel_resolve", target=target, dispels=1, what=f"enchantment {target}")
    queue = [s for s in m.order_from(m.active) if s != seat]
    open_window(m, "dispel_window", queue, "Dispel the Dispel?", ref=ref)


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
    plays = [
        Option(f"fumble:{k}", "fumble", f"Fumble: {c.name} drops the orb", {"card": k, "creature": c.id})
        for k in played_cards_of(m, seat, "fumble")
    ]
    return [*plays, _PASS_FUMBLE]


@decision("fumble_window", "fumble_window", _fumble_options, default="pass", window=True)
def _fumble_window(m: SBMatch, f: Frame, opt: Option) -> None:
    _hold(m, f, opt)


def play_fumble(m: SBMatch, seat: int, card: str, cid: str) -> None:
    """Plays Fumble on carrier ``cid`` (it cannot be Dispelled); ``seat`` rolls the d8 ("Roll d8 for placement")."""
    play_from_hand(m, seat, card)
    m.discard.append(card)
    m.push("fumble", cid=cid, why=m.card_names[card], roller=seat)


def _revenant_options(m: SBMatch, f: Frame) -> list[Option]:
    # Asked whenever the victim's player has a free stand, whatever it holds: being asked says nothing.
    seat = f["queue"][0]
    if count_of(m, seat) >= MAX_CREATURES:
        return []
    plays = [
        Option(f"revenant:{k}", "revenant", f"summon the {name}", {"card": k, "card_name": name})
        for k, name in window_only_creatures(m, seat)
    ]
    return [*plays, _PASS_REVENANT]


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
        m.roll(f"{ev.name} option", [(8, 1, 8)], Frame("instant_chosen", {"card": card}), alterable=False)
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
    open_window(m, "dispel_window", m.order_from(m.active), "Dispel the event?", ref=ref)


@step("instant_resolve")
def _instant_resolve(m: SBMatch, f: Frame) -> None:
    m.discard.append(f["card"])
    if f["dispels"] % 2 == 1:
        m.emit("event_cancelled", {"card": f["card"], "name": f["effect"]})
        return
    m.push("event_effect", effect=f["effect"], cause=m.card_names[f["card"]])


@step("event_effect")
def _event_effect(m: SBMatch, f: Frame) -> None:
    handler = INSTANT_EFFECT.handlers.get(f["effect"])
    if handler is None:
        raise RuntimeError(f"{f['effect']} is a played event, not an instant effect")
    handler(m, f)


@INSTANT_EFFECT.register("chaos")
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
        place_2d20(m, c.name, Frame("creature_lands", {"cid": c.id, "seat": c.owner, "entered": c.entered}))
    for orb in reversed(orbs):
        place_new_orb(m, orb)
    # "roll new locations for each portal": in Last Man Standing too (each keeps its owner).
    for pid in reversed(pids):
        place_portal(m, pid)


@INSTANT_EFFECT.register("earthquake")
def _earthquake(m: SBMatch, f: Frame) -> None:
    m.emit("effect", {"name": "earthquake", "detail": f["cause"]})
    order = {s: i for i, s in enumerate(m.order_from(m.active))}
    victims = sorted(
        (c for c in m.creatures.values() if not has(m, c, "flying")), key=lambda c: (order.get(c.owner, 9), c.id)
    )
    for c in reversed(victims):
        m.roll(
            f"Earthquake {c.name}", [(8, 1, 8)], Frame("doom_check", {"cid": c.id, "upto": 4, "cause": "earthquake"})
        )


@step("doom_check")
def _doom_check(m: SBMatch, f: Frame) -> None:
    if f["dice"][0] <= f["upto"] and f["cid"] in m.creatures:
        m.push("destroy", cid=f["cid"], killer=None, cause=f["cause"])


@INSTANT_EFFECT.register("fissure")
def _fissure(m: SBMatch, f: Frame) -> None:
    m.emit("effect", {"name": "fissure", "detail": f["cause"]})
    place_2d20(m, "Fissure", Frame("fissure_hit"))


@step("fissure_hit")
def _fissure_hit(m: SBMatch, f: Frame) -> None:
    r, c = int(f["pos"][0]), int(f["pos"][1])
    m.emit("fissure", {"row": r, "col": c})

    def hit(p: tuple[int, int]) -> bool:
        return abs(p[0] - r) <= 1 or abs(p[1] - c) <= 1

    # Orbs in the zone are destroyed whether loose or carried (a flyer survives, its orb does not).
    _wipe(
        m,
        [x.id for x in m.creatures.values() if not has(m, x, "flying") and hit(x.pos)],
        [o for o, p in m.orbs.items() if p is not None and hit(p)]
        + [x.orb for x in m.creatures.values() if x.orb is not None and hit(x.pos)],
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
        destroy_portal(m, pid)
    for cid in sorted(cids, reverse=True):
        m.push("destroy", cid=cid, killer=None, cause=cause)


@INSTANT_EFFECT.register("hailstorm")
def _hailstorm(m: SBMatch, f: Frame) -> None:
    m.emit("effect", {"name": "hailstorm", "detail": f["cause"]})
    for card in reversed(enchantments_in_play(m)):
        m.roll(f"Hailstorm {m.card_names[card]}", [(8, 1, 8)], Frame("hail_check", {"card": card}))


@step("hail_check")
def _hail_check(m: SBMatch, f: Frame) -> None:
    if f["dice"][0] <= 6:
        remove_enchantment(m, f["card"], "hailstorm")


@INSTANT_EFFECT.register("lightning_storm")
def _lightning(m: SBMatch, f: Frame) -> None:
    m.emit("effect", {"name": "lightning_storm", "detail": f["cause"]})
    m.roll("Lightning Storm strikes", [(8, 1, 8)], Frame("strikes"))


@step("strikes")
def _strikes(m: SBMatch, f: Frame) -> None:
    for _ in range(f["dice"][0]):
        place_2d20(m, "lightning strike", Frame("strike_square"))


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


@INSTANT_EFFECT.register("gypsy_bazaar")
def _gypsy(m: SBMatch, f: Frame) -> None:
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
    # 1.5.2: team enchantments "can be put into play as soon as they are drawn", also on another's turn.
    open_window(m, "team_window", m.order_from(m.active), "play a team enchantment you were dealt?")


@INSTANT_EFFECT.register("orbstorm")
def _orbstorm(m: SBMatch, f: Frame) -> None:
    m.emit("effect", {"name": "orbstorm", "detail": f["cause"]})
    m.roll("Orbstorm", [(8, 1, 8)], Frame("orbstorm_n"))


@step("orbstorm_n")
def _orbstorm_n(m: SBMatch, f: Frame) -> None:
    for _ in range(min(f["dice"][0], len(m.orb_deck))):
        orb = draw_orb(m)
        if orb is not None:
            place_new_orb(m, orb)


@INSTANT_EFFECT.register("sacrifice")
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


PLAYED_EFFECT.mark("dispel", "fumble")

__all__ = ["relocate_orb"]
