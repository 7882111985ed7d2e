"""The mutable state of a champion and the queries every rule module asks of the board.

:class:`ChampState` is one champion in a match. The functions here answer questions such as
"who stands on this hex", "is this champion Bloodied", "what is its defence now"; they change
nothing. Movement, attacks and keywords live in their own modules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.games.superfantasybrawl.content import Side
from referee.games.superfantasybrawl.hexes import Hex, distance, neighbours

if TYPE_CHECKING:
    from referee.games.superfantasybrawl.match import BrawlMatch


@dataclass
class ChampState:
    """One champion in a match.

    ``hex`` is ``None`` while the champion is on its team's Gate (before deployment or out of
    action).
    """

    id: str
    seat: int
    hex: Hex | None = None
    damage: int = 0
    levelled: bool = False
    rooted: bool = False
    defence_turn: int = 0
    """Defence added until the end of the current turn (a reaction such as Iron Hide)."""
    defence_attack: int = 0
    """Defence added against the current attack only (a reaction's defence bonus, FAQ A16.1)."""
    deployed: bool = False


def side(m: BrawlMatch, c: ChampState) -> Side:
    """Returns the face-up side of ``c``'s champion card."""
    champ = m.content.champions[c.id]
    return champ.levelled if c.levelled else champ.basic


def team(m: BrawlMatch, seat: int) -> int:
    """Returns the team of ``seat`` (in a 2-player match the seat itself)."""
    return seat % 2


def is_enemy(m: BrawlMatch, a: ChampState, b: ChampState) -> bool:
    """Whether ``a`` and ``b`` are on different teams."""
    return team(m, a.seat) != team(m, b.seat)


def is_ally(m: BrawlMatch, a: ChampState, b: ChampState) -> bool:
    """Whether ``b`` is an Ally of ``a`` (same team, never ``a`` itself: A5 'Allies')."""
    return a.id != b.id and team(m, a.seat) == team(m, b.seat)


def on_board(m: BrawlMatch) -> list[ChampState]:
    """Returns the champions standing in the arena, in a fixed order."""
    return [c for c in m.champs.values() if c.hex is not None]


def occupant(m: BrawlMatch, h: Hex) -> ChampState | None:
    """Returns the champion on ``h``, if any."""
    for c in m.champs.values():
        if c.hex == h:
            return c
    return None


def occupied(m: BrawlMatch) -> dict[Hex, ChampState]:
    """Returns a map of hex to the champion standing there."""
    return {c.hex: c for c in m.champs.values() if c.hex is not None}


def hp(m: BrawlMatch, c: ChampState) -> int:
    """Returns the HP on the face-up side."""
    return side(m, c).hp


def bloodied(m: BrawlMatch, c: ChampState) -> bool:
    """Bloodied: remaining HP is half the maximum or less, rounding up (A15: 7 HP is bloodied at 4)."""
    full = hp(m, c)
    return c.hex is not None and full - c.damage <= (full + 1) // 2


def has_trait(m: BrawlMatch, c: ChampState, trait: str) -> bool:
    """Whether the face-up side of ``c`` has ``trait``."""
    return trait in side(m, c).traits


def defence(m: BrawlMatch, c: ChampState) -> int:
    """Returns the current defence of ``c``: printed, reaction bonuses and adjacent guardians."""
    value = side(m, c).defence + c.defence_turn + c.defence_attack
    if c.hex is not None:
        adj = set(neighbours(c.hex))
        for other in m.champs.values():
            if other.hex in adj and is_ally(m, c, other) and has_trait(m, other, "guardian"):
                value += 1
                break
    return value


def in_range(a: Hex, b: Hex, lo: int, hi: int) -> bool:
    """Whether ``b`` is within ``lo..hi`` hexes of ``a``."""
    return lo <= distance(a, b) <= hi
