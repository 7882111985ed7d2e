"""Keyword effects as named hooks: each keyword of A15 that a card can print is a handler here.

A card's effect list is data (``{"kw": "push", "who": "target", "value": 2}``); resolving it
pushes an ``effect`` step, and the ``effect`` step calls ``KEYWORDS[kw]``. Handlers that need a
choice (Dash destination, Fear direction, Force destination, Plan cards, Draw count, Stun
discard) return a :class:`Pending` for the right seat. Bloodied, Control, Double, Lifesteal,
Poison and Out of Action are not effects: they are conditions or attack-step rules, found in
:mod:`.state`, :mod:`.challenges` and :mod:`.attacks`.
"""

from __future__ import annotations

from collections.abc import Callable

from referee.games.superfantasybrawl.attacks import deal
from referee.games.superfantasybrawl.content import PLAYER_KEYWORDS
from referee.games.superfantasybrawl.hexes import Hex, hex_id, parse_hex, row_direction
from referee.games.superfantasybrawl.movement import (
    Path,
    fear_destinations,
    force_destinations,
    jump_destinations,
    line_destinations,
    place_destinations,
    relative,
    straight_displacement,
    walk_step,
)
from referee.games.superfantasybrawl.state import ChampState, MatchState, has_trait
from referee.games.superfantasybrawl.steps import Pending, Step, opt, step

Keyword = Callable[["MatchState", Step, ChampState, "str | None"], "Pending | None"]
KEYWORDS: dict[str, Keyword] = {}


def keyword(name: str) -> Callable[[Keyword], Keyword]:
    """Registers the handler of effect keyword ``name``."""

    def register(fn: Keyword) -> Keyword:
        KEYWORDS[name] = fn
        return fn

    return register


@step("effect")
def _effect(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    c = m.champs[st["champ"]]
    if c.hex is None and st["kw"] not in PLAYER_KEYWORDS:
        return None  # a champion on its Gate cannot be affected by card effects (A14)
    return KEYWORDS[st["kw"]](m, st, c, choice)


def _destination_choice(
    m: MatchState,
    st: Step,
    c: ChampState,
    choice: str | None,
    dests: dict[Hex, Path],
    seat: int,
    kind: str,
    mode: str,
    *,
    optional: bool = True,
) -> Pending | None:
    if choice is None:
        if st.get("relation"):
            dests = _relative(m, st, c, dests)
        if not dests:
            return None
        options = [
            opt(f"{kind}:{hex_id(h)}", kind, f"{kind} {c.id} to {hex_id(h)}", champion=c.id, hex=hex_id(h))
            for h in sorted(dests)
        ]
        if optional:
            options.insert(0, opt(f"{kind}:stay", kind, f"{c.id} stays", champion=c.id))
        if len(options) == 1:
            choice = options[0].id
        else:
            return Pending(seat, kind, f"where does {c.id} go ({kind} {st['value']})?", options, options[0].id, st)
    if choice.endswith(":stay"):
        return None
    dest = parse_hex(choice.split(":", 1)[1])
    if st.get("relation"):
        dests = _relative(m, st, c, dests, quiet=True)
    source = c.id if mode == "move" else st["source"]
    m.push_all([walk_step(c.id, dests[dest], mode if mode != "move" else "move", source)])
    return None


def element_hex(m: MatchState, st: Step) -> Hex | None:
    """Where the element of a "towards"/"away" effect stands: its source champion, or a statue."""
    element = st.get("element", "")
    if element.startswith("statue:"):
        return m.content.arena.statues[element.split(":", 1)[1]]
    return m.champs[st["source"]].hex


def _relative(
    m: MatchState, st: Step, c: ChampState, dests: dict[Hex, Path], *, quiet: bool = False
) -> dict[Hex, Path]:
    """Keeps the destinations that go towards / away from the effect's element (seed-ja, measured after the move).

    When none does, the champion does not move, and an ``ignored`` event says so.
    """
    element = element_hex(m, st)
    assert c.hex is not None
    kept = relative(dests, c.hex, element, st["relation"]) if element is not None else {}
    if not kept and not quiet:
        m.emit("ignored", {"champion": c.id, "keyword": st["kw"], "reason": f"no {st['kw']} goes {st['relation']}"})
    return kept


@keyword("dash")
def _dash(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Dash X: up to X along one hex row, normal movement restrictions, traps on entry (A15, FAQ A16.4/6)."""
    return _destination_choice(
        m, st, c, choice, line_destinations(m, c, st["value"], swoop=False), st["player"], "dash", "move"
    )


@keyword("swoop")
def _swoop(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Swoop X: up to X along one hex row over statues, champions and traps; ending on a trap triggers it."""
    dests = line_destinations(m, c, st["value"], swoop=True)
    return _destination_choice(m, st, c, choice, {h: [h] for h in dests}, st["player"], "swoop", "leap")


@keyword("jump")
def _jump(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Jump X: any free hex within X, passing over everything; ending on a trap triggers it."""
    return _destination_choice(m, st, c, choice, jump_destinations(m, c, st["value"]), st["player"], "jump", "leap")


@keyword("place")
def _place(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Place: lifted and put down, not movement, so Root does not stop it; a trap there triggers (A18.14)."""
    assert c.hex is not None
    if st["near"] == "self":
        anchor = m.champs[st["source"]].hex
        if anchor is None:
            return None
        hexes = place_destinations(m, anchor, 1, 1)
    else:
        hexes = place_destinations(m, c.hex, 1, st["range"])
    return _destination_choice(m, st, c, choice, {h: [h] for h in hexes}, st["player"], "place", "leap")


@keyword("force")
def _force(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Force X: the card's player moves the target up to X hexes; onto a trap triggers it (FAQ A16.3)."""
    if has_trait(m, c, "steadfast"):
        m.emit("immune", {"champion": c.id, "keyword": "force"})
        return None
    return _destination_choice(
        m, st, c, choice, force_destinations(m, c, st["value"]), st["player"], "force", "displace"
    )


@keyword("fear")
def _fear(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Fear X: the feared champion's player Dashes it away from the source, as far as it can (seeds 000, 001).

    Away is measured after the move (seed-ja); among the Dashes that end further away only the
    longest are offered (seed-it: "il massimo dello scatto possibile"). When no Dash ends further
    away the champion does not move (seed-ja, "それができない場合、その戦士は移動しません"), logged as ``ignored``.
    """
    source = m.champs[st["source"]].hex
    if source is None or has_trait(m, c, "steadfast"):
        return None
    dests = fear_destinations(m, c, source, st["value"])
    if choice is None and not dests and not c.rooted:
        m.emit("ignored", {"champion": c.id, "keyword": "fear", "reason": "no dash ends further away"})
        return None
    return _destination_choice(m, st, c, choice, dests, c.seat, "fear", "displace", optional=False)


def _straight(m: MatchState, st: Step, c: ChampState, away: bool) -> None:
    assert c.hex is not None
    src = m.champs[st["source"]]
    if src.hex is None or src.id == c.id:
        return
    kw = "push" if away else "pull"
    if has_trait(m, c, "steadfast"):
        m.emit("immune", {"champion": c.id, "keyword": kw})
        return  # cancelling a displacement cancels its damage too (A15)
    if row_direction(src.hex, c.hex) is None:
        m.emit("ignored", {"champion": c.id, "keyword": kw})
        return
    if c.rooted:
        deal(m, [(c.id, st["value"])], src.id)  # a rooted champion takes the full distance as damage
        return
    path, blocked = straight_displacement(m, src.hex, c, st["value"], away=away)
    if path:
        m.push_all([walk_step(c.id, path, "displace", src.id, then_damage=blocked, straight=True)])
    elif blocked:
        deal(m, [(c.id, blocked)], src.id)


@keyword("push")
def _push(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Push X: straight away from the source along the shared hex row; 1 damage per hex it could not move."""
    _straight(m, st, c, away=True)
    return None


@keyword("pull")
def _pull(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Pull X: straight towards the source along the shared hex row; 1 damage per hex it could not move."""
    _straight(m, st, c, away=False)
    return None


@keyword("root")
def _root(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Root: no more movement this turn (FAQ A16.2); displacement becomes damage, Place still works."""
    c.rooted = True
    m.emit("rooted", {"champion": c.id, "source": st["source"]})
    return None


@keyword("stun")
def _stun(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Stun: the controller discards one of that champion's cards from hand, or reveals the hand (A15, A18.10)."""
    if has_trait(m, c, "unstunnable"):
        m.emit("immune", {"champion": c.id, "keyword": "stun"})
        return None
    hand = m.hands[c.seat]
    mine = sorted(x for x in hand if m.content.cards[x].champion == c.id)
    if choice is None:
        if not mine:
            m.emit("hand_revealed", {"seat": c.seat, "champion": c.id, "cards": sorted(hand)})
            m.revealed[c.seat] |= set(hand)
            return None
        if len(mine) > 1:
            options = [opt(f"discard:{x}", "discard", f"discard {x}", card=x, champion=c.id) for x in mine]
            return Pending(
                c.seat, "stun_discard", f"{c.id} is stunned: discard one of its cards", options, options[0].id, st
            )
        choice = f"discard:{mine[0]}"
    card = choice.split(":", 1)[1]
    hand.remove(card)
    m.discards[c.seat].append(card)
    m.emit("stunned", {"champion": c.id, "card": card, "seat": c.seat})
    return None


@keyword("heal")
def _heal(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Heal X: remove up to X damage."""
    healed = min(c.damage, st["value"])
    c.damage -= healed
    m.emit("heal", {"champion": c.id, "amount": healed, "source": st["source"]})
    return None


@keyword("damage")
def _damage(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Damage X: ignores defence (A11)."""
    deal(m, [(c.id, st["value"])], st["source"])
    return None


@keyword("draw")
def _draw(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Draw X: draw X cards (seed-it: "Pesca X: pesca X carte."), fewer only when deck and discard run out."""
    m.draw(st["player"], st["value"])
    return None


@keyword("plan")
def _plan(m: MatchState, st: Step, c: ChampState, choice: str | None) -> Pending | None:
    """Plan X: put up to X cards from hand on top of the deck, one at a time; the last put is on top (A18.12)."""
    seat = st["player"]
    if choice is None:
        left = int(st["left"] if "left" in st else st["value"])
        if left <= 0 or not m.hands[seat]:
            return None
        options = [opt(f"plan:{x}", "plan", f"put {x} on top of the deck", card=x) for x in sorted(m.hands[seat])]
        options.append(opt("plan:stop", "plan", "stop planning"))
        return Pending(seat, "plan", f"plan up to {left} more", options, "plan:stop", st)
    if choice == "plan:stop":
        return None
    card = choice.split(":", 1)[1]
    m.hands[seat].remove(card)
    m.decks[seat].append(card)
    m.known_top[seat] += 1
    m.emit("planned", {"seat": seat, "count": 1})
    m.emit("planned_card", {"seat": seat, "card": card}, frozenset({seat}))
    m.push_all([st.but(left=int(st["left"] if "left" in st else st["value"]) - 1)])
    return None
