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
from referee.games.scrumbrawl.engine import Creature, SBMatch, observer

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

    __slots__ = (
        "creature",
        "creatures",
        "decks",
        "discard",
        "hands",
        "ids",
        "orbs",
        "orbs_seen",
        "piles",
        "player",
        "players",
        "portals",
        "portals_seen",
        "teams",
        "traits",
    )

    def __init__(self) -> None:
        self.creature: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        """A creature's entry by its id, with the creature's fields it was built from."""
        self.creatures: list[dict[str, Any]] = []
        self.ids: tuple[str, ...] = ()
        """The creatures' ids, in the match's order, that ``creatures`` was built from."""
        self.teams: tuple[tuple[str, ...], ...] = ()
        """Every seat's team enchantments, as the creatures' entries were built with."""
        self.traits: dict[tuple[Any, ...], tuple[bool, dict[str, int]]] = {}
        """Flying and the stats by (name, owner, enchantment, orb, stone), with ``teams``."""
        self.player: dict[int, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        """A seat's entry in ``players``, with its key."""
        self.players: list[dict[str, Any]] = []
        self.orbs: list[dict[str, Any]] = []
        self.orbs_seen: tuple[dict[str, Any], dict[str, str], list[Any]] = ({}, {}, [])
        """The orbs, their carriers and the carriers' squares ``orbs`` was built from."""
        self.portals: list[dict[str, Any]] = []
        self.portals_seen: tuple[dict[str, Any], dict[str, int]] = ({}, {})
        """The portals and their owners ``portals`` was built from."""
        self.discard: tuple[list[str], list[dict[str, Any]]] = ([], [])
        self.hands: dict[int, tuple[list[str], list[dict[str, Any]]]] = {}
        self.decks: dict[int, tuple[list[str], list[dict[str, Any]]]] = {}
        self.piles: tuple[tuple[tuple[str, ...], ...], list[dict[str, Any]]] = ((), [])


_LAST: weakref.WeakKeyDictionary[SBMatch, _Last] = weakref.WeakKeyDictionary()
"""Each live match's last observation parts. Kept beside the match, not in it, so that copying a
match (determinizing) copies nothing and a copy starts afresh."""


def _cards(
    m: SBMatch, last: dict[int, tuple[list[str], list[dict[str, Any]]]], seat: int, cards: list[str], order: bool
) -> list[dict[str, Any]]:
    """The entries of ``cards`` (a hand; a creature deck, sorted when ``order``): the last list for
    ``seat`` while the cards are unchanged."""
    known = last.get(seat)
    if known is not None and known[0] == cards:
        return known[1]
    entry = [_card(m, k) for k in (sorted(cards) if order else cards)]
    last[seat] = (list(cards), entry)
    return entry


def _creatures(m: SBMatch, last: _Last) -> list[dict[str, Any]]:
    """The creatures' entries in id order; each one, and the list, the last one while unchanged.

    Most observations follow one in which no creature changed (an out-of-turn window, a card
    played): then nothing is sorted and no list is built.
    """
    # The stats depend on the team enchantments of the owner's side: a change to any drops every entry.
    teams = tuple(map(tuple, m.team_ench))
    known = last.creature
    if teams != last.teams:
        known.clear()
        last.traits.clear()
        last.teams = teams
    changed = False
    for c in m.creatures.values():
        # Everything the entry is computed from (a card id names the same card for the whole match).
        key = (c.name, c.owner, c.pos, c.enchant, c.orb, c.entered, c.steps, c.moved, c.done, c.attacked, c.stone_turn)
        hit = known.get(c.id)
        if hit is None or hit[0] != key:
            known[c.id] = (key, _creature(m, c, last.traits))
            changed = True
    ids = tuple(m.creatures)
    if not changed and ids == last.ids:
        return last.creatures
    last.ids = ids
    out = [known[c.id][1] for c in sorted(m.creatures.values(), key=_BY_ID)]
    last.creatures = out
    return out


def _creature(m: SBMatch, c: Creature, traits: dict[tuple[Any, ...], tuple[bool, dict[str, int]]]) -> dict[str, Any]:
    """Builds ``c``'s entry (``traits``: :attr:`_Last.traits`)."""
    sp = spec(c)
    stone = c.stone_turn >= 0
    # Flying and the stats change only with these (and the team enchantments): not with a move.
    tkey = (c.name, c.owner, c.enchant, c.orb, stone)
    known = traits.get(tkey)
    if known is None:
        known = traits[tkey] = (has(m, c, "flying"), shared_stats(m, c))
    return {
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
        "flying": known[0],
        "stats": known[1],
        "attacks": sp.attacks,
        "range_attack": sp.range_attack,
    }


def _orbs(m: SBMatch, last: _Last) -> list[dict[str, Any]]:
    creatures = m.creatures
    carried = [creatures[h].pos if h in creatures else None for h in m.carrier.values()] if m.carrier else []
    seen = last.orbs_seen
    if m.orbs == seen[0] and m.carrier == seen[1] and carried == seen[2]:
        return last.orbs
    last.orbs_seen = (dict(m.orbs), dict(m.carrier), carried)
    out = []
    for name in sorted(m.orbs):
        pos = m.orbs[name]
        holder = m.carrier.get(name, "")
        where = pos if pos is not None else (creatures[holder].pos if holder in creatures else (0, 0))
        out.append({"name": name, "row": where[0], "col": where[1], "carrier": holder})
    last.orbs = out
    return out


def _portals(m: SBMatch, last: _Last) -> list[dict[str, Any]]:
    seen = last.portals_seen
    if m.portals == seen[0] and m.portal_owner == seen[1]:
        return last.portals
    last.portals_seen = (dict(m.portals), dict(m.portal_owner))
    out = [
        {"id": p, "row": pos[0], "col": pos[1], "owner": m.portal_owner.get(p, -1)}
        for p, pos in sorted(m.portals.items())
    ]
    last.portals = out
    return out


def _players(m: SBMatch, last: _Last) -> list[dict[str, Any]]:
    """The seats' entries; each one, and the list, the last one while unchanged."""
    known = last.player
    changed = False
    hands, blue, red, skins, team_ench = m.hands, m.blue, m.red, m.skins, m.team_ench
    for s in range(m.seats):
        t = m.team_of(s)
        key = (
            len(hands[s]),
            blue[t],
            red[t],
            tuple(skins[t]),
            tuple(team_ench[s]),
            m.lms_chips[s],
            m.eliminated[s],
            m.first_turn_done[s],
            len(m.personal[s]),
        )
        hit = known.get(s)
        if hit is None or hit[0] != key:
            known[s] = (key, _player(m, s, t, key))
            changed = True
    if not changed and len(last.players) == m.seats:
        return last.players
    out = last.players = [known[s][1] for s in range(m.seats)]
    return out


def _player(m: SBMatch, s: int, t: int, key: tuple[Any, ...]) -> dict[str, Any]:
    """Builds seat ``s``'s entry from its key (see :func:`_players`)."""
    return {
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


def _discard(m: SBMatch, last: _Last) -> list[dict[str, Any]]:
    """The discard pile's entry: the previous observation's list itself while the pile is unchanged.

    The pile only grows for most of a match and is the longest list of an observation.
    """
    pile = m.discard
    before, entries = last.discard
    if before == pile:
        return entries
    n = len(before)
    # Grown (the usual change): a new list of the old entries and the new cards'.
    grown = n and pile[:n] == before
    entry = entries + [_card(m, k) for k in pile[n:]] if grown else [_card(m, k) for k in pile]
    last.discard = (list(pile), entry)
    return entry


def _piles(m: SBMatch, last: _Last) -> list[dict[str, Any]]:
    key = tuple(map(tuple, m.piles))
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
        hand = _cards(m, last.hands, v, m.hands[v], False)
        deck = _cards(m, last.decks, v, m.personal[v], True) if m.personal[v] else []
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
