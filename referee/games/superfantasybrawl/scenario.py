"""Building a match from an explicit position, for rules tests and puzzles.

:func:`build` skips the set-up and lays out exactly what a test states: champions on hexes (or
on their Gate) with damage, sides and Root; hands, decks and discards; face-down traps; cores;
VP; the challenge track; and a :class:`~referee.core.chance.ScriptedChance` by default, so every
random pick is the test's. The match then starts at the phase asked for. It is a test tool that
ships with the engine (a bot author can set up puzzles with it); it is not used in play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.core.chance import Chance, ScriptedChance
from referee.core.steps import Frame
from referee.games.superfantasybrawl.content import COLOURS, Content
from referee.games.superfantasybrawl.game import CONTENT, SuperFantasyBrawl
from referee.games.superfantasybrawl.hexes import Hex
from referee.games.superfantasybrawl.match import BrawlMatch

START: dict[str, list[Frame]] = {
    "turn": [Frame("turn_start")],
    "activation": [Frame("activation"), Frame("upkeep"), Frame("turn_end")],
}


def build(
    champions: Mapping[str, Mapping[str, Any]],
    *,
    seats: int = 2,
    hands: Sequence[Sequence[str]] | None = None,
    decks: Sequence[Sequence[str]] | None = None,
    discards: Sequence[Sequence[str]] | None = None,
    traps: Mapping[Hex, tuple[str, int]] | None = None,
    supply: Sequence[tuple[str, int]] | None = None,
    cores: Sequence[Mapping[str, bool]] | None = None,
    vp: Sequence[int] = (0, 0),
    track: Sequence[str | None] | None = None,
    challenge_deck: Sequence[str] = (),
    active: int = 0,
    first: int = 0,
    round: int = 2,
    start: str = "activation",
    chance: Chance | None = None,
    config: Mapping[str, Any] | None = None,
    content: Content | None = None,
) -> BrawlMatch:
    """Returns a match in the stated position, running up to its first decision.

    ``champions`` maps a champion id to ``{"seat": s, "hex": (q, r) or None, "damage": n,
    "levelled": bool, "rooted": bool}``. Decks list the bottom card first (the top is last).
    Unlisted hands, decks and discards are empty; with no ``traps`` the board has none.

    Raises:
        ValueError: ``start`` is not ``"turn"`` or ``"activation"``.
    """
    content = content or CONTENT
    names = [c for c in champions]
    game = SuperFantasyBrawl(content)
    base = {"selection": "fixed", "teams": _teams(champions, seats), **(config or {})}
    full = (
        game.parse_config(base, seats)
        if len(names) == (3 if seats == 2 else 2) * seats
        else {"selection": "fixed", "teams": [], "round_cap": 15, "vp_to_win": 5 if seats == 2 else 7, **(config or {})}
    )
    m = BrawlMatch(content, full, seats, chance if chance is not None else ScriptedChance())
    for cid, spec in champions.items():
        m.add_champion(cid, int(spec["seat"]))
        c = m.champs[cid]
        c.hex = spec.get("hex")
        c.damage = int(spec.get("damage", 0))
        c.levelled = bool(spec.get("levelled", False))
        c.rooted = bool(spec.get("rooted", False))
        c.deployed = True
    for seat in range(seats):
        m.hands[seat] = list(hands[seat]) if hands and seat < len(hands) else []
        m.decks[seat] = list(decks[seat]) if decks and seat < len(decks) else []
        m.discards[seat] = list(discards[seat]) if discards and seat < len(discards) else []
        if cores and seat < len(cores):
            m.cores[seat] = {k: bool(cores[seat].get(k, True)) for k in COLOURS}
    m.traps = dict(traps or {})
    m.trap_hexes |= set(m.traps)
    m.trap_supply = list(supply) if supply is not None else list(content.trap_tokens)
    m.vp = list(vp)
    slots = content.tracks[m.track_key].slots
    m.track = list(track) if track is not None else [None] * len(slots)
    m.ch_deck = list(challenge_deck)
    m.first = first
    m.active = active
    m.round = round
    m.phase = "play"
    if start not in START:
        raise ValueError(f"start must be one of {sorted(START)!r}, got {start!r}")
    steps = [s.copy() for s in START[start]]
    if start == "turn":
        steps[0]["seat"] = active
    m.push_all(steps)
    m.run()
    return m


def _teams(champions: Mapping[str, Mapping[str, Any]], seats: int) -> list[list[str]]:
    teams: list[list[str]] = [[] for _ in range(seats)]
    for cid, spec in champions.items():
        teams[int(spec["seat"])].append(cid)
    return teams
