"""The turn (section 1.3) as named phases, and the decisions a player takes in them.

``PHASES`` lists the steps of a turn; a variant edits the list, not the code. The place, act and
discard phases are decisions that stay on top of the stack until the player ends them; the act
decision enumerates every legal action of every creature the player may still use.
"""

from __future__ import annotations

from operator import attrgetter

from referee.core.contract import Option
from referee.games.scrumbrawl import abilities, cards, combat, movement, orbs
from referee.games.scrumbrawl.board import DIR_NAMES, DIRS, POS_AT, SQ_AT, dist
from referee.games.scrumbrawl.cards import draw_card
from referee.games.scrumbrawl.content import CONTENT
from referee.games.scrumbrawl.creatures import (
    MAX_CREATURES,
    can_act,
    can_carry,
    carries_heavy,
    count_of,
    has,
    is_stone,
    spec,
    stat,
    summon,
)
from referee.games.scrumbrawl.engine import Creature, Frame, SBMatch, decision, step
from referee.games.scrumbrawl.hooks import ON_TURN_START, WINDOW_ONLY

PHASES = (
    "turn_start",
    "start_checks",
    "orb_turn_start",
    "draw",
    "place",
    "act",
    "place_again",
    "discard",
    "orb_turn_end",
    "advance",
)
"""The steps of one turn, in order."""

_BY_ID = attrgetter("id")
# Options that never change, built once (an option is immutable).
_END_PLACE = Option("end", "end", "end this phase")
_END_ACT = Option("end", "end", "end the action phase")
_KEEP_REST = Option("done", "done", "keep the rest")


def begin_turn(m: SBMatch) -> None:
    """Pushes the phases of the active player's turn."""
    for name in reversed(PHASES):
        m.push(name, seat=m.active)


@step("turn_start")
def _turn_start(m: SBMatch, f: Frame) -> None:
    m.phase = "start"
    m.transmuted = False
    for c in m.creatures.values():
        if c.owner == m.active:
            c.steps, c.moved, c.done, c.attacked, c.maneuvered, c.gazed = 0, False, False, False, False, False
    m.emit("turn", {"seat": m.active, "values": [m.turn, m.round]})


@step("start_checks")
def _start_checks(m: SBMatch, f: Frame) -> None:
    """Chicken pecks and Basilisk gazes at the beginning of the turn (section 2.1)."""
    mine = sorted((c for c in m.creatures.values() if c.owner == m.active), key=lambda c: c.id, reverse=True)
    for c in mine:
        for handler in ON_TURN_START.of(spec(c).hooks):
            handler(m, c)
        if c.pos in movement.gaze_squares(m, c):
            m.push("gaze", cid=c.id)


@ON_TURN_START.register("chicken_peck")
def _chicken_turn_start(m: SBMatch, c: Creature) -> None:
    m.roll(f"{c.name} pecks", [(8, 1, 8)], Frame("peck", {"cid": c.id}))


@step("peck")
def _peck(m: SBMatch, f: Frame) -> None:
    c = m.creatures.get(f["cid"])
    if c is not None and f["dice"][0] <= 4:
        c.done = True
        m.emit("ability", {"creature": c.id, "name": "Chicken", "detail": "pecks the ground: its turn ends"})


# -- drawing ---------------------------------------------------------------------------------


def is_instant(m: SBMatch, card: str) -> bool:
    """Whether ``card`` is an Instant Event."""
    name = m.card_names[card]
    return name in CONTENT.events and CONTENT.events[name].timing == "instant"


@step("draw")
def _draw(m: SBMatch, f: Frame) -> None:
    m.phase = "draw"
    seat = m.active
    first = not m.first_turn_done[seat]
    while len(m.hands[seat]) < 4:
        if m.personal[seat] and not f.get("chosen") and (m.deck or m.discard):
            m.push("draw", seat=seat, chosen=True)
            m.push("draw_source", seat=seat, prompt="draw from which deck?")
            return
        f["chosen"] = False
        card = draw_card(m, seat)
        if card is None:
            break
        if is_instant(m, card):
            m.hands[seat].remove(card)
            if first:
                m.discard.append(card)
                m.emit("event_discarded", {"seat": seat, "card": card, "name": m.card_names[card]})
                continue
            m.push("draw", seat=seat)
            m.push("instant_event", card=card, seat=seat)
            # 1.5.2: team enchantments "can be put into play as soon as they are drawn": before the event
            # the player may play one drawn earlier in this draw (asked whatever it holds).
            cards.open_window(m, "team_window", [seat], "play a team enchantment before the event?")
            return
    if first and not any(m.card_names[k] in CONTENT.creatures for k in m.hands[seat]):
        m.push("redraw", seat=seat, prompt="no creature: redraw four cards?")
        # 1.5.2: a team enchantment "can be put into play as soon as it is drawn", so the player may play
        # one before a redraw discards it. Being asked adds nothing: the redraw question itself shows the
        # hand holds no creature, and the window is asked whatever else it holds.
        if m.deck or m.discard:
            cards.open_window(m, "team_window", [seat], "play a team enchantment before redrawing?")


def _redraw_options(m: SBMatch, f: Frame) -> list[Option]:
    if not m.deck and not m.discard:
        return []
    return [
        Option("redraw", "redraw", "reveal, discard and draw four new cards"),
        Option("keep", "keep", "keep this hand"),
    ]


@decision("redraw", "redraw", _redraw_options, default="redraw")
def _redraw(m: SBMatch, f: Frame, opt: Option) -> None:
    m.stack.pop()
    if opt.id == "redraw":
        seat = f["seat"]
        m.emit("redraw", {"seat": seat, "values": [len(m.hands[seat])]})
        m.discard.extend(m.hands[seat])
        m.hands[seat] = []
        m.push("draw", seat=seat)


# -- placing creatures and enchantments ------------------------------------------------------


@step("place_again")
def _place_again(m: SBMatch, f: Frame) -> None:
    m.push("place", seat=f["seat"], again=True)


def _place_options(m: SBMatch, f: Frame) -> list[Option]:
    seat = f["seat"]
    m.phase = "place_again" if f.get("again") else "place"
    hand = m.hands[seat]
    out: list[Option] = []
    room = count_of(m, seat) < MAX_CREATURES
    creatures = sorted(m.creatures.values(), key=lambda c: c.id)
    seen: set[str] = set()
    for card in hand:
        name = m.card_names[card]
        kind = CONTENT.card_type(name)
        if kind == "creature" and room and not WINDOW_ONLY.holds(CONTENT.creatures[name].hooks):
            out.append(Option(f"summon:{card}", "summon", f"summon {name}", {"card": card, "card_name": name}))
        elif kind == "enchantment" and name not in seen:
            seen.add(name)
            if CONTENT.enchantments[name].scope == "team":
                out.append(Option(f"team:{card}", "team", f"play {name}", {"card": card, "card_name": name}))
            else:
                for c in creatures:
                    if not c.enchant and "resistant" not in spec(c).keywords:
                        out.append(
                            Option(
                                f"enchant:{card}:{c.id}",
                                "enchant",
                                f"{name} on {c.name}",
                                {"card": card, "card_name": name, "creature": c.id},
                            )
                        )
    out.extend(_dispel_options(m, seat))
    out.extend(_fumble_options(m, seat))
    out.append(_END_PLACE)
    return out


def _dispel_options(m: SBMatch, seat: int) -> list[Option]:
    d = cards.played_cards_of(m, seat, "dispel")
    if not d:
        return []
    return [
        Option(
            f"dispel:{d[0]}:{k}",
            "dispel",
            f"Dispel {m.card_names[k]}",
            {"card": d[0], "target": k, "card_name": m.card_names[k]},
        )
        for k in cards.enchantments_in_play(m)
    ]


def _fumble_options(m: SBMatch, seat: int) -> list[Option]:
    # 2.3 Fumble: "You may play this during any player's turn": on one's own turn, at any time.
    fumbles = cards.played_cards_of(m, seat, "fumble")
    if not fumbles:
        return []
    return [
        Option(f"fumble:{fumbles[0]}:{c.id}", "fumble", f"Fumble on {c.name}", {"card": fumbles[0], "creature": c.id})
        for c in sorted(m.creatures.values(), key=lambda c: c.id)
        if orbs.can_be_fumbled(m, c)
    ]


@decision("place", "place", _place_options, default="end")
def _place(m: SBMatch, f: Frame, opt: Option) -> None:
    seat = f["seat"]
    p = opt.params
    if opt.kind == "end":
        m.stack.pop()
        return
    if opt.kind == "dispel":
        cards.dispel_enchantment(m, seat, p["card"], p["target"])
        return
    if opt.kind == "fumble":
        cards.play_fumble(m, seat, p["card"], p["creature"])
        return
    # After each card played (for a creature, once it has landed) the other seats may answer at once:
    # Dispel "at any time" (2.3); pushed first so that it runs after the card has taken effect.
    cards.open_anytime(m, f"after {p.get('card_name', 'the card')}", others_only=True)
    if opt.kind == "summon":
        m.hands[seat].remove(p["card"])
        summon(m, p["card"], seat)
    elif opt.kind == "team":
        cards.play_team(m, seat, p["card"])
    elif opt.kind == "enchant":
        cards.play_from_hand(m, seat, p["card"])
        m.creatures[p["creature"]].enchant = p["card"]
        m.emit("enchanted", {"creature": p["creature"], "card": p["card"], "name": p["card_name"]})


# -- acting ------------------------------------------------------------------------------------


_MOVES: dict[tuple[str, str], dict[int, Option]] = {}
"""The move options already built, by creature (card id and name) and square index: an option is
immutable and depends on nothing else, and building one is most of the cost of listing a turn's
options (a creature may reach some 150 squares). Bounded by the cards times the squares."""
_MOVE_LISTS: dict[tuple[str, str], tuple[int, list[Option]]] = {}
"""The last list of move options of each creature (card id and name), with the bit set of squares it
was built from: a creature's reach is often the same at its next decision (another creature acted
elsewhere). Read-only once built (callers copy from it)."""


def _move_options(cid: str, name: str, every: int) -> list[Option]:
    """The move options of creature ``cid`` (named ``name``) to each square of bit set ``every``, in
    square order. The list returned is shared: the caller must not change it."""
    last = _MOVE_LISTS.get((cid, name))
    if last is not None and last[0] == every:
        return last[1]
    known = _MOVES.get((cid, name))
    if known is None:
        if len(_MOVES) > 4096:  # card ids are few; this only guards a long-lived process against growth
            _MOVES.clear()
            _MOVE_LISTS.clear()
        known = _MOVES[(cid, name)] = {}
    squares = movement.squares_of(every)
    try:
        out = list(map(known.__getitem__, squares))  # at C speed: the squares are usually all known
    except KeyError:
        for i in squares:
            if i not in known:
                s = SQ_AT[i]
                r, col = POS_AT[i]
                known[i] = Option(
                    f"move:{cid}:{s}", "move", f"{name} moves to {s}", {"creature": cid, "row": r, "col": col}
                )
        out = list(map(known.__getitem__, squares))
    _MOVE_LISTS[(cid, name)] = (every, out)
    return out


def creature_options(
    m: SBMatch, c: Creature, board: tuple[int, int, int, int] | None = None, creatures: list[Creature] | None = None
) -> list[Option]:
    """Every action creature ``c`` may take now.

    ``board`` (:func:`movement.board_masks` of ``c``'s owner) and ``creatures`` (every creature in
    id order) are the same for every creature of one decision: a caller listing several passes them in.
    """
    out: list[Option] = []
    if not can_act(m, c):
        return out
    if creatures is None:
        creatures = sorted(m.creatures.values(), key=_BY_ID)
    if not (c.moved or c.attacked or c.maneuvered):
        out.extend(abilities.magic_options(m, c))
    reach = movement.reach_layers(m, c, board=board) if not c.attacked else []
    if reach:
        every = 0
        for layer in reach:
            every |= layer
        out.extend(_move_options(c.id, c.name, every))
    if not c.attacked:
        for t, mode in combat.attack_targets(m, c, creatures):
            out.append(
                Option(
                    f"attack:{c.id}:{t.id}",
                    "attack",
                    f"{c.name} attacks {t.name} ({mode})",
                    {"creature": c.id, "target": t.id, "choice": mode},
                )
            )
        for t, d in combat.charge_options(m, c, reach):
            out.append(
                Option(
                    f"charge:{c.id}:{t.id}:{DIR_NAMES[d]}",
                    "charge",
                    f"{c.name} charges {t.name}",
                    {"creature": c.id, "target": t.id, "direction": DIR_NAMES[d]},
                )
            )
        for t in combat.killer_targets(m, c):
            out.append(
                Option(
                    f"killer:{c.id}:{t.id}",
                    "killer",
                    f"{c.name} hurls the {c.orb} at {t.name}",
                    {"creature": c.id, "target": t.id},
                )
            )
    if c.orb is not None and can_carry(c):
        for t in orbs.throw_targets(m, c):
            out.append(
                Option(
                    f"throw:{c.id}:{t.id}", "throw", f"{c.name} throws to {t.name}", {"creature": c.id, "target": t.id}
                )
            )
            if dist(t.pos, c.pos) == 1:
                out.append(
                    Option(
                        f"handoff:{c.id}:{t.id}",
                        "handoff",
                        f"{c.name} hands off to {t.name}",
                        {"creature": c.id, "target": t.id},
                    )
                )
        rng = stat(m, c, "R")
        for pid, pos in sorted(m.portals.items()):
            if dist(pos, c.pos) <= rng:
                out.append(
                    Option(
                        f"shoot:{c.id}:{pid}",
                        "shoot",
                        f"{c.name} throws at portal {pid}",
                        {"creature": c.id, "portal": pid},
                    )
                )
    return out


def _act_options(m: SBMatch, f: Frame) -> list[Option]:
    seat = f["seat"]
    m.phase = "act"
    out: list[Option] = []
    creatures = sorted(m.creatures.values(), key=_BY_ID)
    board = movement.board_masks(m, seat)
    for c in creatures:
        if c.owner == seat:
            out.extend(creature_options(m, c, board, creatures))
    out.extend(_receive_options(m, seat))
    out.extend(_dispel_options(m, seat))
    out.extend(_fumble_options(m, seat))
    out.append(_END_ACT)
    return out


def _receive_options(m: SBMatch, seat: int) -> list[Option]:
    """1.6.2 b: "A player may receive a handoff from his or her teammate's creature during his or her own
    turn": a teammate's adjacent carrier may hand its orb to one of the player's creatures."""
    if not m.teams:
        return []
    out: list[Option] = []
    creatures = sorted(m.creatures.values(), key=lambda c: c.id)
    for giver in creatures:
        if giver.owner == seat or not m.friendly(giver.owner, seat) or giver.orb is None:
            continue
        if is_stone(m, giver) or not can_carry(giver):
            continue
        for t in creatures:
            if t.owner != seat or dist(t.pos, giver.pos) != 1 or t.orb is not None or not can_carry(t):
                continue
            if carries_heavy(giver) and has(m, t, "weak"):
                continue
            out.append(
                Option(
                    f"receive:{giver.id}:{t.id}",
                    "receive",
                    f"{t.name} takes a handoff from {giver.name}",
                    {"creature": giver.id, "target": t.id},
                )
            )
    return out


def _consent_options(m: SBMatch, f: Frame) -> list[Option]:
    giver, t = m.creatures.get(f["giver"]), m.creatures.get(f["cid"])
    if giver is None or t is None or giver.orb is None:
        return []
    params = {"creature": giver.id, "target": t.id}
    return [
        Option("give", "give", f"{giver.name} hands off to {t.name}", params),
        Option("refuse", "refuse", "keep the orb", params),
    ]


@decision("handoff_consent", "handoff_consent", _consent_options, default="refuse")
def _consent(m: SBMatch, f: Frame, opt: Option) -> None:
    # The handoff is the giver's act, so its controller (the teammate) agrees to it.
    m.stack.pop()
    giver, t = m.creatures[f["giver"]], m.creatures[f["cid"]]
    if opt.id == "give":
        orbs.handoff(m, giver, t)


@decision("act", "act", _act_options, default="end")
def _act(m: SBMatch, f: Frame, opt: Option) -> None:
    p = opt.params
    kind = opt.kind
    if kind == "end":
        m.stack.pop()
        return
    if kind == "dispel":
        cards.dispel_enchantment(m, f["seat"], p["card"], p["target"])
        return
    if kind == "fumble":
        cards.play_fumble(m, f["seat"], p["card"], p["creature"])
        return
    c = m.creatures[p["creature"]]
    if kind == "move":
        movement.move(m, c, (p["row"], p["col"]))
    elif kind == "attack":
        combat.declare(m, c, m.creatures[p["target"]], p["choice"])
    elif kind == "killer":
        combat.declare(m, c, m.creatures[p["target"]], "killer")
    elif kind == "charge":
        t = m.creatures[p["target"]]
        d = next(k for k, v in DIR_NAMES.items() if v == p["direction"])
        start = (t.pos[0] - 4 * d[0], t.pos[1] - 4 * d[1])
        start_cost = 0 if start == c.pos else movement.move_cost(m, c, start)
        if start_cost is None:
            raise RuntimeError(f"charge {opt.id}: its start {start} is not reachable")
        cost = 3 + start_cost
        old = c.pos
        c.pos = (t.pos[0] - d[0], t.pos[1] - d[1])
        c.steps += cost
        c.moved = True
        m.emit(
            "move",
            {
                "creature": c.id,
                "from_row": old[0],
                "from_col": old[1],
                "row": c.pos[0],
                "col": c.pos[1],
                "values": [cost],
                "detail": "charge",
            },
        )
        combat.declare(m, c, t, "melee", charge=d)
    elif kind == "throw":
        orbs.start_throw(m, c, m.creatures[p["target"]])
    elif kind == "handoff":
        orbs.handoff(m, c, m.creatures[p["target"]])
    elif kind == "receive":
        m.push("handoff_consent", seat=c.owner, giver=c.id, cid=p["target"], prompt="hand the orb to your teammate?")
    elif kind == "shoot":
        orbs.shoot(m, c, p["portal"])
    elif kind == "magic":
        abilities.use_magic(m, c, opt)


# -- discarding and the end of the turn -------------------------------------------------------


@step("discard")
def _discard_phase(m: SBMatch, f: Frame) -> None:
    m.push("discard_choice", seat=f["seat"], prompt="discard down to three cards")


_DISCARD_OPTIONS: dict[tuple[str, str], Option] = {}
"""A card's discard option by (card id, card name), built once (bounded by the card lists)."""


def _discard_options(m: SBMatch, f: Frame) -> list[Option]:
    seat = f["seat"]
    m.phase = "discard"
    hand = m.hands[seat]
    out = []
    for k in hand:
        name = m.card_names[k]
        opt = _DISCARD_OPTIONS.get((k, name))
        if opt is None:
            opt = _DISCARD_OPTIONS[k, name] = Option(
                f"discard:{k}", "discard", f"discard {name}", {"card": k, "card_name": name}
            )
        out.append(opt)
    if len(hand) <= 3:
        out.insert(0, _KEEP_REST)
    return out


@decision("discard_choice", "discard", _discard_options, default="first")
def _discard(m: SBMatch, f: Frame, opt: Option) -> None:
    seat = f["seat"]
    if opt.id == "done":
        m.stack.pop()
        return
    m.hands[seat].remove(opt.params["card"])
    m.discard.append(opt.params["card"])
    m.emit("discard", {"seat": seat, "card": opt.params["card"], "name": opt.params["card_name"]})


@step("end_active_turn")
def _end_active_turn(m: SBMatch, f: Frame) -> None:
    """Ends the active player's turn at once (the Magic Stump's Chaos): skips to its discard phase."""
    while m.stack and m.stack[-1].name not in ("discard", "advance"):
        m.stack.pop()


__all__ = ["DIRS", "begin_turn"]
