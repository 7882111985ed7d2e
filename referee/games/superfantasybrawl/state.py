"""The mutable state of a champion and the queries every rule module asks of the board.

:class:`ChampState` is one champion in a match. The functions here answer questions such as
"who stands on this hex", "is this champion Bloodied", "what is its defence now"; they change
nothing. Movement, attacks and keywords live in their own modules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from referee.core.chance import Chance
from referee.core.contract import JSONDict, Outcome
from referee.core.steps import Frame
from referee.games.superfantasybrawl.content import Content, Side
from referee.games.superfantasybrawl.hexes import DIRECTIONS, Hex, distance


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


class MatchState(Protocol):
    """What the rule modules need of a match: :class:`~.match.BrawlMatch` is the one implementation.

    The rule modules annotate with this protocol rather than with the match class, so that they
    need not import the match, which imports them to register their steps (no import cycle).
    """

    content: Content
    config: dict[str, Any]
    seats: int
    chance: Chance
    per_seat: int
    hand_size: int
    vp_to_win: int
    track_key: int
    statues: frozenset[Hex]
    champs: dict[str, ChampState]
    hands: list[list[str]]
    decks: list[list[str]]
    discards: list[list[str]]
    known_top: list[int]
    revealed: list[set[str]]
    cores: list[dict[str, bool]]
    std_used: list[str]
    vp: list[int]
    traps: dict[Hex, tuple[str, int]]
    trap_hexes: set[Hex]
    trap_supply: list[tuple[str, int]]
    track: list[str | None]
    ch_deck: list[str]
    ch_discard: list[str]
    deploy_side: list[int]
    first: int
    active: int
    round: int
    phase: str
    attack: dict[str, Any]
    levelups: list[str]
    _outcome: Outcome | None

    def push_all(self, frames: Iterable[Frame]) -> None: ...
    def emit(self, kind: str, data: JSONDict, to: Iterable[int] | None = None) -> None: ...
    def order_from(self, seat: int) -> list[int]: ...
    def add_champion(self, cid: str, seat: int) -> None: ...
    def spend(self, seat: int, colour: str) -> None: ...
    def draw(self, seat: int, n: int) -> None: ...
    def check_victory(self) -> None: ...
    def end_by_round_cap(self) -> None: ...


def side(m: MatchState, c: ChampState) -> Side:
    """Returns the face-up side of ``c``'s champion card."""
    champ = m.content.champions[c.id]
    return champ.levelled if c.levelled else champ.basic


def team(m: MatchState, seat: int) -> int:
    """Returns the team of ``seat`` (in a 2-player match the seat itself)."""
    return seat % 2


def is_enemy(m: MatchState, a: ChampState, b: ChampState) -> bool:
    """Whether ``a`` and ``b`` are on different teams."""
    return team(m, a.seat) != team(m, b.seat)


def is_ally(m: MatchState, a: ChampState, b: ChampState) -> bool:
    """Whether ``b`` is an Ally of ``a`` (same team, never ``a`` itself: A5 'Allies')."""
    return a.id != b.id and team(m, a.seat) == team(m, b.seat)


def on_board(m: MatchState) -> list[ChampState]:
    """Returns the champions standing in the arena, in a fixed order."""
    return [c for c in m.champs.values() if c.hex is not None]


def occupant(m: MatchState, h: Hex) -> ChampState | None:
    """Returns the champion on ``h``, if any."""
    for c in m.champs.values():
        if c.hex == h:
            return c
    return None


def occupied(m: MatchState) -> dict[Hex, ChampState]:
    """Returns a map of hex to the champion standing there."""
    return {c.hex: c for c in m.champs.values() if c.hex is not None}


def hp(m: MatchState, c: ChampState) -> int:
    """Returns the HP on the face-up side."""
    return side(m, c).hp


def bloodied(m: MatchState, c: ChampState) -> bool:
    """Bloodied: remaining HP is half the maximum or less, rounding up (A15: 7 HP is bloodied at 4)."""
    full = hp(m, c)
    return c.hex is not None and full - c.damage <= (full + 1) // 2


def has_trait(m: MatchState, c: ChampState, trait: str) -> bool:
    """Whether the face-up side of ``c`` has ``trait``."""
    return trait in side(m, c).traits


_ADJACENT = frozenset(DIRECTIONS)
"""The offsets from a hex to its six neighbours."""


def defence(m: MatchState, c: ChampState) -> int:
    """Returns the current defence of ``c``: printed, reaction bonuses and adjacent guardians."""
    value = side(m, c).defence + c.defence_turn + c.defence_attack
    h = c.hex
    if h is not None:
        q, r = h
        for other in m.champs.values():
            o = other.hex
            # ``o`` adjacent to ``h`` (one of its six neighbours), without building the neighbour set.
            if (
                o is not None
                and (o[0] - q, o[1] - r) in _ADJACENT
                and is_ally(m, c, other)
                and has_trait(m, other, "guardian")
            ):
                value += 1
                break
    return value


def defences(m: MatchState) -> dict[str, int]:
    """Returns :func:`defence` of every champion, by id, finding the Guardians on the board once."""
    guardians = [
        (g.hex[0], g.hex[1], g.id, team(m, g.seat))
        for g in m.champs.values()
        if g.hex is not None and has_trait(m, g, "guardian")
    ]
    out = {}
    for c in m.champs.values():
        value = side(m, c).defence + c.defence_turn + c.defence_attack
        h = c.hex
        if h is not None and guardians:
            mine = team(m, c.seat)
            for gq, gr, gid, gteam in guardians:
                if gteam == mine and gid != c.id and (gq - h[0], gr - h[1]) in _ADJACENT:
                    value += 1
                    break
        out[c.id] = value
    return out


def in_range(a: Hex, b: Hex, lo: int, hi: int) -> bool:
    """Whether ``b`` is within ``lo..hi`` hexes of ``a``."""
    return lo <= distance(a, b) <= hi
