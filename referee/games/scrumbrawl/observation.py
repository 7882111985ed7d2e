"""What a seat or a spectator sees (the ``Observation`` message of ``scrumbrawl.proto``).

Everything on the table is public: the Arena, enchantments, chips, skins, the discard pile, hand
and deck sizes. A seat sees its own hand; a spectator sees no hand. Deck orders are hidden from
everyone. Pending out-of-turn windows are not shown: which seat holds a window reveals its hand.
"""

from __future__ import annotations

import weakref
from typing import Any

from referee.core.ids import Seat
from referee.games.scrumbrawl.content import CONTENT
from referee.games.scrumbrawl.creatures import has, is_stone, spec, stats_of
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


_DISCARDS: weakref.WeakKeyDictionary[SBMatch, tuple[tuple[str, ...], list[dict[str, Any]]]] = (
    weakref.WeakKeyDictionary()
)
"""Each live match's last discard pile entry, with the pile it was built from."""


def _discard(m: SBMatch) -> list[dict[str, Any]]:
    """The discard pile's entry: the previous observation's list itself while the pile is unchanged.

    The pile only grows for most of a match and is the longest list of an observation; handing out
    the same list lets the referee's patch differ skip it by identity. Kept beside the match, not
    in it, so that copying a match (determinizing) does not copy it.
    """
    pile = tuple(m.discard)
    last = _DISCARDS.get(m)
    if last is not None and last[0] == pile:
        return last[1]
    entry = [_card(m, k) for k in pile]
    _DISCARDS[m] = (pile, entry)
    return entry


@observer
def observe(m: SBMatch, viewer: Seat | None) -> dict[str, Any]:
    """Returns ``viewer``'s observation as plain data."""
    creatures = []
    for c in sorted(m.creatures.values(), key=lambda c: c.id):
        sp = spec(c)
        creatures.append(
            {
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
                "stone": is_stone(m, c),
                "flying": has(m, c, "flying"),
                "stats": stats_of(m, c),
                "attacks": sp.attacks,
                "range_attack": sp.range_attack,
            }
        )
    orbs = []
    for name in sorted(m.orbs):
        pos = m.orbs[name]
        holder = m.carrier.get(name, "")
        where = pos if pos is not None else (m.creatures[holder].pos if holder in m.creatures else (0, 0))
        orbs.append({"name": name, "row": where[0], "col": where[1], "carrier": holder})
    players = []
    for s in range(m.seats):
        t = m.team_of(s)
        players.append(
            {
                "seat": s,
                "team": t,
                "hand_size": len(m.hands[s]),
                "blue_chips": m.blue[t],
                "red_chips": m.red[t],
                "skins": list(m.skins[t]),
                "team_enchantments": [_card(m, k) for k in m.team_ench[s]],
                "lms_chips": m.lms_chips[s],
                "eliminated": m.eliminated[s],
                "first_turn_done": m.first_turn_done[s],
                "creature_deck_size": len(m.personal[s]),
            }
        )
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
        "creatures": creatures,
        "orbs": orbs,
        "portals": [
            {"id": p, "row": pos[0], "col": pos[1], "owner": m.portal_owner.get(p, -1)}
            for p, pos in sorted(m.portals.items())
        ],
        "players": players,
        "hand": [] if viewer is None else [_card(m, k) for k in m.hands[int(viewer)]],
        "deck_size": len(m.deck),
        "orb_deck_size": len(m.orb_deck),
        "discard": _discard(m),
        "creature_deck": [] if viewer is None else [_card(m, k) for k in sorted(m.personal[int(viewer)])],
        "draft_piles": [{"cards": [_card(m, k) for k in pile]} for pile in m.piles],
    }
