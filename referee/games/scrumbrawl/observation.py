"""What a seat or a spectator sees (the ``Observation`` message of ``scrumbrawl.proto``).

Everything on the table is public: the Arena, enchantments, chips, skins, the discard pile, hand
and deck sizes. A seat sees its own hand; a spectator sees no hand. Deck orders are hidden from
everyone. Pending out-of-turn windows are not shown: which seat holds a window reveals its hand.
"""

from __future__ import annotations

import weakref
from operator import attrgetter
from typing import Any

from referee.core.ids import Seat
from referee.games.scrumbrawl.content import CONTENT
from referee.games.scrumbrawl.creatures import has, shared_stats, spec
from referee.games.scrumbrawl.engine import SBMatch, observer

_CARDS: dict[tuple[str, str], dict[str, Any]] = {}
"""A card's entry in an observation, by (card id, card name): built once, shared by every observation.

Keyed by immutable data only (a card id names the same card for a whole match, and the entry
depends on nothing else), so the engine stays pure; the set of keys is bounded by the card lists.
Observations are read-only to their consumers; the referee's patch differ then skips an unchanged
entry by identity.
"""


def _card(m: SBMatch, card: str) -> dict[str, Any]:
    name = m.card_names[card]
    entry = _CARDS.get((card, name))
    if entry is None:
        entry = _CARDS[card, name] = {"card": card, "name": name, "type": CONTENT.card_type(name)}
    return entry


_BY_ID = attrgetter("id")


class _Last:
    """One live match's observation parts as last handed out, each with the state it was built from.

    A part whose state is unchanged is handed out again, the same object: building the state's key
    costs a fraction of building the part, and the referee's patch differ skips an identical part
    by identity. Parts are read-only to their consumers, so sharing them is safe.
    """

    __slots__ = ("creature", "creatures", "decks", "discard", "hands", "orbs", "piles", "player", "players", "portals")

    def __init__(self) -> None:
        self.creature: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        """A creature's entry by its id, with its key (:func:`_creature_key`)."""
        self.creatures: list[dict[str, Any]] = []
        self.player: dict[int, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        """A seat's entry in ``players``, with its key."""
        self.players: list[dict[str, Any]] = []
        self.orbs: tuple[tuple[Any, ...], list[dict[str, Any]]] = ((), [])
        self.portals: tuple[tuple[Any, ...], list[dict[str, Any]]] = ((), [])
        self.discard: tuple[tuple[str, ...], list[dict[str, Any]]] = ((), [])
        self.hands: dict[int, tuple[tuple[str, ...], list[dict[str, Any]]]] = {}
        self.decks: dict[int, tuple[tuple[str, ...], list[dict[str, Any]]]] = {}
        self.piles: tuple[tuple[tuple[str, ...], ...], list[dict[str, Any]]] = ((), [])


_LAST: weakref.WeakKeyDictionary[SBMatch, _Last] = weakref.WeakKeyDictionary()
"""Each live match's last observation parts. Kept beside the match, not in it, so that copying a
match (determinizing) copies nothing and a copy starts afresh."""


def _cards(
    m: SBMatch, last: dict[int, tuple[tuple[str, ...], list[dict[str, Any]]]], seat: int, cards: tuple[str, ...]
) -> list[dict[str, Any]]:
    """The entries of ``cards`` (a hand, a creature deck): the last list for ``seat`` while they are unchanged."""
    known = last.get(seat)
    if known is not None and known[0] == cards:
        return known[1]
    entry = [_card(m, k) for k in cards]
    last[seat] = (cards, entry)
    return entry


def _creatures(m: SBMatch, last: _Last) -> list[dict[str, Any]]:
    """The creatures' entries in id order; each one, and the list, the last one while unchanged."""
    # The stats depend on the team enchantments of the owner's side: every seat's list is in the key.
    teams = tuple(tuple(t) for t in m.team_ench)
    known = last.creature
    previous = last.creatures
    same = len(previous) == len(m.creatures)
    out = []
    for i, c in enumerate(sorted(m.creatures.values(), key=_BY_ID)):
        stone = c.stone_turn >= 0
        # Everything the entry is computed from (a card id names the same card for the whole match).
        key = (c.name, c.owner, c.pos, c.enchant, c.orb, c.entered, c.steps, c.moved, c.done, c.attacked, stone, teams)
        hit = known.get(c.id)
        if hit is not None and hit[0] == key:
            entry = hit[1]
        else:
            sp = spec(c)
            entry = {
                "id": c.id,
                "name": c.name,
                "color": sp.color,
                "owner": c.owner,
                "row": c.pos[0],
                "col": c.pos[1],
                "enchantment": c.enchant or "",
                "enchantment_name": m.card_names[c.enchant] if c.enchant else "",
                "orb": c.orb or "",
                "entered_turn": c.entered,
                "steps_used": c.steps,
                "moved": c.moved,
                "done": c.done,
                "attacked": c.attacked,
                "stone": stone,
                "flying": has(m, c, "flying"),
                "stats": shared_stats(m, c),
                "attacks": sp.attacks,
                "range_attack": sp.range_attack,
            }
            known[c.id] = (key, entry)
        if same and previous[i] is not entry:
            same = False
        out.append(entry)
    if same:
        return previous
    last.creatures = out
    return out


def _orbs(m: SBMatch, last: _Last) -> list[dict[str, Any]]:
    creatures = m.creatures
    key = (
        tuple(m.orbs.items()),
        tuple(m.carrier.items()),
        tuple(creatures[h].pos if h in creatures else None for h in m.carrier.values()),
    )
    if last.orbs[0] == key:
        return last.orbs[1]
    out = []
    for name in sorted(m.orbs):
        pos = m.orbs[name]
        holder = m.carrier.get(name, "")
        where = pos if pos is not None else (creatures[holder].pos if holder in creatures else (0, 0))
        out.append({"name": name, "row": where[0], "col": where[1], "carrier": holder})
    last.orbs = (key, out)
    return out


def _portals(m: SBMatch, last: _Last) -> list[dict[str, Any]]:
    key = (tuple(m.portals.items()), tuple(m.portal_owner.items()))
    if last.portals[0] == key:
        return last.portals[1]
    out = [
        {"id": p, "row": pos[0], "col": pos[1], "owner": m.portal_owner.get(p, -1)}
        for p, pos in sorted(m.portals.items())
    ]
    last.portals = (key, out)
    return out


def _players(m: SBMatch, last: _Last) -> list[dict[str, Any]]:
    known = last.player
    previous = last.players
    same = len(previous) == m.seats
    out = []
    for s in range(m.seats):
        t = m.team_of(s)
        key = (
            len(m.hands[s]),
            m.blue[t],
            m.red[t],
            tuple(m.skins[t]),
            tuple(m.team_ench[s]),
            m.lms_chips[s],
            m.eliminated[s],
            m.first_turn_done[s],
            len(m.personal[s]),
        )
        hit = known.get(s)
        if hit is not None and hit[0] == key:
            entry = hit[1]
        else:
            entry = {
                "seat": s,
                "team": t,
                "hand_size": key[0],
                "blue_chips": key[1],
                "red_chips": key[2],
                "skins": list(key[3]),
                "team_enchantments": [_card(m, k) for k in key[4]],
                "lms_chips": key[5],
                "eliminated": key[6],
                "first_turn_done": key[7],
                "creature_deck_size": key[8],
            }
            known[s] = (key, entry)
        if same and previous[s] is not entry:
            same = False
        out.append(entry)
    if same:
        return previous
    last.players = out
    return out


def _discard(m: SBMatch, last: _Last) -> list[dict[str, Any]]:
    """The discard pile's entry: the previous observation's list itself while the pile is unchanged.

    The pile only grows for most of a match and is the longest list of an observation.
    """
    pile = tuple(m.discard)
    before, entries = last.discard
    if before == pile:
        return entries
    n = len(before)
    # Grown (the usual change): a new list of the old entries and the new cards'.
    grown = n and pile[:n] == before
    entry = entries + [_card(m, k) for k in pile[n:]] if grown else [_card(m, k) for k in pile]
    last.discard = (pile, entry)
    return entry


def _piles(m: SBMatch, last: _Last) -> list[dict[str, Any]]:
    key = tuple(tuple(pile) for pile in m.piles)
    if last.piles[0] == key:
        return last.piles[1]
    out = [{"cards": [_card(m, k) for k in pile]} for pile in key]
    last.piles = (key, out)
    return out


@observer
def observe(m: SBMatch, viewer: Seat | None) -> dict[str, Any]:
    """Returns ``viewer``'s observation as plain data.

    Parts unchanged since the match's last observation are the same objects as in it (see
    :class:`_Last`); the returned observation must not be changed.
    """
    last = _LAST.get(m)
    if last is None:
        last = _LAST[m] = _Last()
    if viewer is None:
        hand: list[dict[str, Any]] = []
        deck: list[dict[str, Any]] = []
    else:
        v = int(viewer)
        hand = _cards(m, last.hands, v, tuple(m.hands[v]))
        deck = _cards(m, last.decks, v, tuple(sorted(m.personal[v])))
    return {
        "viewer": -1 if viewer is None else int(viewer),
        "seats": m.seats,
        "active_seat": m.active,
        "turn": m.turn,
        "round": m.round,
        "max_rounds": m.max_rounds,
        "phase": m.phase,
        "teams": m.teams,
        "last_man_standing": m.lms,
        "creatures": _creatures(m, last),
        "orbs": _orbs(m, last),
        "portals": _portals(m, last),
        "players": _players(m, last),
        "hand": hand,
        "deck_size": len(m.deck),
        "orb_deck_size": len(m.orb_deck),
        "discard": _discard(m, last),
        "creature_deck": deck,
        "draft_piles": _piles(m, last),
    }
