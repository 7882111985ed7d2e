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
import weakref
from dataclasses import dataclass, field
from typing import Any, TypeVar

from referee.core.chance import Chance
from referee.core.contract import JSONDict
from referee.core.ids import Seat
from referee.games.superfantasybrawl.hexes import Hex, hex_id
from referee.games.superfantasybrawl.state import MatchState, defences, side, team

M = TypeVar("M", bound=MatchState)

_TRAITS: dict[frozenset[str], tuple[str, ...]] = {}
"""A side's traits in observation order, by the side's (immutable) trait set: sorted once."""


@dataclass(slots=True, eq=False)
class _Shown:
    """The parts of one match's last observation, with what each was built from.

    A part is handed out again, the same object, while what it shows is unchanged: checking a part
    costs less than building it, and the referee's patch differ skips an unchanged part by
    identity. A part once handed out is never changed (a change builds a new one), so an
    observation stays as it was returned. Consumers treat observations as read-only.
    """

    champs_key: list[tuple[Any, ...]] = field(default_factory=list)
    """What every champion's entry follows from, as :attr:`champions` was built."""
    champions: list[JSONDict] = field(default_factory=list)
    entries: dict[str, tuple[tuple[Any, ...], JSONDict]] = field(default_factory=dict)
    """Each champion's last entry with what it follows from, by champion id."""
    players: list[JSONDict] = field(default_factory=list)
    trap_hexes: set[Hex] = field(default_factory=set)
    trapped: set[Hex] = field(default_factory=set)
    """The hexes holding a token when :attr:`traps` was built."""
    traps: list[JSONDict] = field(default_factory=list)
    track_src: list[str | None] | None = None
    track: list[JSONDict] = field(default_factory=list)
    vp: list[int] = field(default_factory=list)
    deploy_side: list[int] = field(default_factory=list)
    ch_discard: list[str] = field(default_factory=list)
    std_used: list[str] = field(default_factory=list)
    hands: dict[int, tuple[list[str], list[str]]] = field(default_factory=dict)
    """Each viewer's hand as it was (unsorted) and the sorted list handed out."""


_SHOWN: weakref.WeakKeyDictionary[MatchState, _Shown] = weakref.WeakKeyDictionary()
"""Each live match's :class:`_Shown`, kept beside the match and not in it: copying a match
(determinizing) copies none of it, and it goes with the match."""


def _champions(m: MatchState, shown: _Shown) -> list[JSONDict]:
    """The champions' entries: the last list while no champion changed, else each unchanged entry again."""
    champs = m.champs.values()
    key = [(c.id, c.seat, c.hex, c.damage, c.levelled, c.rooted, c.defence_turn, c.defence_attack) for c in champs]
    if key == shown.champs_key:
        return shown.champions
    entries = shown.entries
    shields = defences(m)
    champions = []
    for c in champs:
        # An entry follows from these and the champion's content, which is fixed for the match.
        ckey = (c.seat, c.hex, c.damage, c.levelled, c.rooted, shields[c.id])
        last = entries.get(c.id)
        if last is not None and last[0] == ckey:
            champions.append(last[1])
            continue
        s = side(m, c)
        full = s.hp
        traits = _TRAITS.get(s.traits)
        if traits is None:
            traits = _TRAITS[s.traits] = tuple(sorted(s.traits))
        entry = {
            "id": c.id,
            "seat": c.seat,
            "team": team(m, c.seat),
            "hex": hex_id(c.hex) if c.hex else "",
            "on_gate": c.hex is None,
            "damage": c.damage,
            "hp": full,
            "defence": ckey[5],
            "levelled": c.levelled,
            "rooted": c.rooted,
            # bloodied(m, c), with the side already at hand.
            "bloodied": c.hex is not None and full - c.damage <= (full + 1) // 2,
            "move_bonus": s.move_bonus,
            "traits": list(traits),
        }
        entries[c.id] = (ckey, entry)
        champions.append(entry)
    shown.champs_key = key
    shown.champions = champions
    return champions


def _players(m: MatchState, shown: _Shown) -> list[JSONDict]:
    """The seats' public entries: each unchanged one again, and the last list while none changed."""
    last = shown.players if len(shown.players) == m.seats else None
    players = []
    changed = last is None
    for seat in range(m.seats):
        p = last[seat] if last is not None else None
        hand, deck, discard, cores = m.hands[seat], m.decks[seat], m.discards[seat], m.cores[seat]
        if (
            p is None
            or p["hand_size"] != len(hand)
            or p["deck_size"] != len(deck)
            or p["discard"] != discard
            or p["cores"] != cores
        ):
            changed = True
            p = {
                "seat": seat,
                "team": team(m, seat),
                "hand_size": len(hand),
                "deck_size": len(deck),
                "discard": list(discard),
                "cores": dict(cores),
            }
        players.append(p)
    if not changed:
        return shown.players
    shown.players = players
    return players


def _traps(m: MatchState, shown: _Shown) -> list[JSONDict]:
    """The trap hexes, each with whether a token lies there (not which): the last list while unchanged."""
    if m.trap_hexes != shown.trap_hexes or m.traps.keys() != shown.trapped:
        shown.trap_hexes = set(m.trap_hexes)
        shown.trapped = set(m.traps)
        shown.traps = [{"hex": hex_id(h), "has_trap": h in m.traps} for h in sorted(m.trap_hexes)]
    return shown.traps


def _track(m: MatchState, shown: _Shown) -> list[JSONDict]:
    """The challenge track's slots: the last list while the track is unchanged."""
    if m.track != shown.track_src:
        slots = m.content.tracks[m.track_key].slots if m.track else ()
        shown.track_src = list(m.track)
        shown.track = [{"slot": i, "value": slots[i], "challenge": cid or ""} for i, cid in enumerate(m.track)]
    return shown.track


def _hand(m: MatchState, shown: _Shown, viewer: int) -> list[str]:
    """``viewer``'s hand, sorted: the last list while the hand is unchanged."""
    hand = m.hands[viewer]
    last = shown.hands.get(viewer)
    if last is not None and last[0] == hand:
        return last[1]
    out = sorted(hand)
    shown.hands[viewer] = (list(hand), out)
    return out


def observe(m: MatchState, viewer: Seat | None) -> JSONDict:
    """Returns the observation of ``viewer`` (``None``: spectator) as ``Observation`` proto data.

    Parts unchanged since the match's last observation are the same objects as then (read-only).
    """
    shown = _SHOWN.get(m)
    if shown is None:
        shown = _SHOWN[m] = _Shown()
    # The short lists: the last one again while equal, so that the differ sees them unchanged by identity.
    if m.vp != shown.vp:
        shown.vp = list(m.vp)
    if m.deploy_side != shown.deploy_side:
        shown.deploy_side = list(m.deploy_side)
    if m.ch_discard != shown.ch_discard:
        shown.ch_discard = list(m.ch_discard)
    if m.std_used != shown.std_used:
        shown.std_used = list(m.std_used)
    return {
        "viewer": -1 if viewer is None else int(viewer),
        "seats": m.seats,
        "phase": m.phase,
        "round": m.round,
        "round_cap": m.config["round_cap"],
        "active_seat": m.active,
        "first_seat": m.first,
        "vp": shown.vp,
        "vp_to_win": m.vp_to_win,
        "deploy_side": shown.deploy_side,
        "champions": _champions(m, shown),
        "players": _players(m, shown),
        "trap_hexes": _traps(m, shown),
        "track": _track(m, shown),
        "challenge_deck_size": len(m.ch_deck),
        "challenge_discard": shown.ch_discard,
        "standard_used": shown.std_used,
        "hand": _hand(m, shown, viewer) if viewer is not None else [],
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
