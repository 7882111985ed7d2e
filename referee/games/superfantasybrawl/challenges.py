"""Challenge cards and the challenge track: conditions as named hooks, scoring and advancing (A8).

A challenge's condition is data (``{"kind": "control_zone", "zone": "red"}``); ``CONDITIONS``
maps each kind to a function of (match, team, params). The track's slot values, how far it
advances and how many cards start on it come from ``challenges.json`` per seat count. Scoring
happens at the start of a turn, never in round 1; a scored card is discarded. This module does
not know how champions move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.games.superfantasybrawl.hexes import Hex, distance, neighbours
from referee.games.superfantasybrawl.state import MatchState, bloodied, on_board, team
from referee.games.superfantasybrawl.steps import Pending, Step, step

Condition = Callable[["MatchState", int, dict[str, Any]], bool]
CONDITIONS: dict[str, Condition] = {}


def condition(name: str) -> Callable[[Condition], Condition]:
    """Registers a challenge condition under ``name``."""

    def register(fn: Condition) -> Condition:
        CONDITIONS[name] = fn
        return fn

    return register


def count_in(m: MatchState, side: int, hexes: set[Hex] | frozenset[Hex]) -> int:
    """How many champions of team ``side`` stand on ``hexes``."""
    n = 0
    for c in m.champs.values():
        h = c.hex
        if h is not None and h in hexes and team(m, c.seat) == side:
            n += 1
    return n


def controls(m: MatchState, side: int, hexes: set[Hex] | frozenset[Hex]) -> bool:
    """Control (A15): more of your champions in the area than the opponent's; a tie controls nothing."""
    mine = theirs = 0
    for c in m.champs.values():
        h = c.hex
        if h is not None and h in hexes:
            if team(m, c.seat) == side:
                mine += 1
            else:
                theirs += 1
    return mine > theirs


@condition("control_zone")
def _control_zone(m: MatchState, side: int, p: dict[str, Any]) -> bool:
    return controls(m, side, m.content.arena.zones[p["zone"]])


@condition("adjacent_statue")
def _adjacent_statue(m: MatchState, side: int, p: dict[str, Any]) -> bool:
    # FAQ A16.7: any hex adjacent to the statue counts, coloured or not.
    statue = m.content.arena.statues[p["statue"]]
    adj = _AROUND.get(statue)
    if adj is None:
        adj = _AROUND[statue] = frozenset(neighbours(statue))
    return count_in(m, side, adj) >= int(p.get("count", 1))


_AROUND: dict[Hex, frozenset[Hex]] = {}
"""The six neighbours of a statue's hex, by the hex: pure geometry, computed once."""


@condition("control_zones")
def _control_zones(m: MatchState, side: int, p: dict[str, Any]) -> bool:
    held = sum(1 for z in m.content.arena.zones.values() if controls(m, side, z))
    return held >= int(p.get("count", 2))


_HALVES: dict[tuple[int, int], frozenset[Hex]] = {}
"""Each team's enemy half by (arena id, deployment side): pure geometry, computed once."""


def enemy_half(m: MatchState, side: int) -> frozenset[Hex]:
    """The hexes nearer the enemy deployment area than ours."""
    arena = m.content.arena
    key = (id(arena), m.deploy_side[side])
    if key not in _HALVES:
        mine = arena.deployment[m.deploy_side[side]]
        theirs = arena.deployment[1 - m.deploy_side[side]]
        _HALVES[key] = frozenset(
            h for h in arena.cells if min(distance(h, x) for x in theirs) < min(distance(h, x) for x in mine)
        )
    return _HALVES[key]


@condition("enemy_half")
def _enemy_half(m: MatchState, side: int, p: dict[str, Any]) -> bool:
    return count_in(m, side, enemy_half(m, side)) >= int(p.get("count", 2))


@condition("bloodied_enemies")
def _bloodied_enemies(m: MatchState, side: int, p: dict[str, Any]) -> bool:
    n = sum(1 for c in on_board(m) if team(m, c.seat) != side and bloodied(m, c))
    return n >= int(p.get("count", 2))


@condition("enemy_on_gate")
def _enemy_on_gate(m: MatchState, side: int, p: dict[str, Any]) -> bool:
    n = sum(1 for c in m.champs.values() if team(m, c.seat) != side and c.hex is None)
    return n >= int(p.get("count", 1))


@condition("control_row")
def _control_row(m: MatchState, side: int, p: dict[str, Any]) -> bool:
    cells = m.content.arena.cells
    key = (id(cells), int(p["row"]))
    entry = _ROWS.get(key)
    if entry is None or entry[0] is not cells:
        entry = _ROWS[key] = (cells, frozenset(h for h in cells if h[1] == key[1]))
    return controls(m, side, entry[1])


_ROWS: dict[tuple[int, int], tuple[frozenset[Hex], frozenset[Hex]]] = {}
"""A board row's hexes by (the cells' identity, row); the cells are kept alive in the value, so that
their id is never reused. Pure geometry, computed once."""


def met(m: MatchState, side: int, challenge_id: str) -> bool:
    """Whether team ``side`` meets challenge ``challenge_id`` now."""
    ch = m.content.challenges[challenge_id]
    return CONDITIONS[ch.kind](m, side, ch.params)


def draw_challenge(m: MatchState) -> str | None:
    """Takes the top challenge card; an empty deck is refilled from the shuffled discard (A18.2)."""
    if not m.ch_deck and m.ch_discard:
        m.ch_deck = list(m.ch_discard)
        m.ch_discard = []
        m.chance.shuffle(m.ch_deck)
        m.emit("challenges_reshuffled", {"count": len(m.ch_deck)})
    return m.ch_deck.pop() if m.ch_deck else None


@step("scoreboard")
def _scoreboard(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    if m.round == 1:
        return None  # challenges cannot be scored in the first round (A5)
    side = team(m, m.active)
    for slot, cid in enumerate(m.track):
        value = m.content.tracks[m.track_key].slots[slot]
        if cid is None or value <= 0 or not met(m, side, cid):
            continue
        m.track[slot] = None
        m.ch_discard.append(cid)
        m.vp[side] += value
        m.emit(
            "challenge_scored",
            {"seat": m.active, "team": side, "challenge": cid, "slot": slot, "amount": value, "vps": list(m.vp)},
        )
        m.check_victory()
        if m._outcome is not None:
            return None
    return None


@step("advance_track")
def _advance_track(m: MatchState, st: Step, choice: str | None) -> Pending | None:
    track = m.content.tracks[m.track_key]
    shift = track.advance
    new: list[str | None] = [None] * len(track.slots)
    for slot, cid in enumerate(m.track):
        if cid is None:
            continue
        if slot + shift < len(new):
            new[slot + shift] = cid
        else:
            m.ch_discard.append(cid)
    for slot in range(shift):
        new[slot] = draw_challenge(m)
    m.track = new
    m.emit("track_advanced", {"challenges": [c or "" for c in new]})
    return None
