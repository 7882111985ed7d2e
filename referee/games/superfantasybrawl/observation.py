"""What each seat sees, and re-dealing what it cannot see.

A seat sees the board, every champion card (both sides are public, A5), VP, cores, the track,
discard piles, counts of hands and decks, which hexes hold a face-down trap, and its own hand.
It never sees other hands, any deck order, the challenge deck or what a face-down trap is. The
observation does not include the pending decision, so a reaction window (which would reveal a
reaction card in hand) cannot leak through it. :func:`determinize` re-deals all of that hidden
part consistently: hands with their decks per seat, the face-down tokens with the supply, and
the challenge deck; the cards a seat Planned on top of its own deck stay put for that seat, and
cards of a hand revealed by Stun stay in that hand while it holds them.
"""

from __future__ import annotations

import copy
from typing import TypeVar

from referee.core.chance import Chance
from referee.core.contract import JSONDict
from referee.core.ids import Seat
from referee.games.superfantasybrawl.hexes import hex_id
from referee.games.superfantasybrawl.state import MatchState, defence, side, team

M = TypeVar("M", bound=MatchState)

_TRAITS: dict[frozenset[str], tuple[str, ...]] = {}
"""A side's traits in observation order, by the side's (immutable) trait set: sorted once."""


def observe(m: MatchState, viewer: Seat | None) -> JSONDict:
    """Returns the observation of ``viewer`` (``None``: spectator) as ``Observation`` proto data."""
    champions = []
    for c in m.champs.values():
        s = side(m, c)
        full = s.hp
        traits = _TRAITS.get(s.traits)
        if traits is None:
            traits = _TRAITS[s.traits] = tuple(sorted(s.traits))
        champions.append(
            {
                "id": c.id,
                "seat": c.seat,
                "team": team(m, c.seat),
                "hex": hex_id(c.hex) if c.hex else "",
                "on_gate": c.hex is None,
                "damage": c.damage,
                "hp": full,
                "defence": defence(m, c),
                "levelled": c.levelled,
                "rooted": c.rooted,
                # bloodied(m, c), with the side already at hand.
                "bloodied": c.hex is not None and full - c.damage <= (full + 1) // 2,
                "move_bonus": s.move_bonus,
                "traits": list(traits),
            }
        )
    players = []
    for seat in range(m.seats):
        players.append(
            {
                "seat": seat,
                "team": team(m, seat),
                "hand_size": len(m.hands[seat]),
                "deck_size": len(m.decks[seat]),
                "discard": list(m.discards[seat]),
                "cores": dict(m.cores[seat]),
            }
        )
    slots = m.content.tracks[m.track_key].slots if m.track else ()
    return {
        "viewer": -1 if viewer is None else int(viewer),
        "seats": m.seats,
        "phase": m.phase,
        "round": m.round,
        "round_cap": m.config["round_cap"],
        "active_seat": m.active,
        "first_seat": m.first,
        "vp": list(m.vp),
        "vp_to_win": m.vp_to_win,
        "deploy_side": list(m.deploy_side),
        "champions": champions,
        "players": players,
        "trap_hexes": [{"hex": hex_id(h), "has_trap": h in m.traps} for h in sorted(m.trap_hexes)],
        "track": [{"slot": i, "value": slots[i], "challenge": cid or ""} for i, cid in enumerate(m.track)],
        "challenge_deck_size": len(m.ch_deck),
        "challenge_discard": list(m.ch_discard),
        "standard_used": list(m.std_used),
        "hand": sorted(m.hands[viewer]) if viewer is not None else [],
        "planned_on_top": m.known_top[viewer] if viewer is not None else 0,
    }


def determinize(m: M, viewer: Seat | None, chance: Chance) -> M:
    """Returns an independent copy in which everything hidden from ``viewer`` is re-dealt with ``chance``."""
    # The memo swaps the match's chance for the new source instead of copying it.
    other = copy.deepcopy(m, {id(m.chance): chance})
    for seat in range(m.seats):
        if viewer is not None and seat == viewer:
            keep = other.known_top[seat]
            cut = len(other.decks[seat]) - keep
            rest = other.decks[seat][:cut]
            chance.shuffle(rest)
            other.decks[seat][:cut] = rest
            continue
        # Cards of this hand that everyone saw (revealed by Stun and still held) stay in it.
        known = [c for c in other.hands[seat] if c in other.revealed[seat]]
        unknown = [c for c in other.hands[seat] if c not in other.revealed[seat]]
        pool = unknown + other.decks[seat]
        chance.shuffle(pool)
        n = len(unknown)
        other.hands[seat] = known + pool[:n]
        other.decks[seat] = pool[n:]
    hexes = sorted(other.traps)
    tokens = [other.traps[h] for h in hexes] + other.trap_supply
    chance.shuffle(tokens)
    other.traps = dict(zip(hexes, tokens[: len(hexes)], strict=True))
    other.trap_supply = tokens[len(hexes) :]
    chance.shuffle(other.ch_deck)
    return other
