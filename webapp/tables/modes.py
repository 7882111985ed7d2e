"""The table sizes and modes a game offers people, read from its ``GameInfo`` (nothing here names a game).

Every size of ``seat_counts`` is a mode. A size with a team split that always applies is that team
game (``2v2``); a size whose split applies only when a boolean config field is true is offered
twice: every seat for itself, and the team game with that field set (key ``<size>-teams``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.core.registry import get_game
from webapp.matches.services import ROUND_CAP_KEYS


@dataclass(frozen=True)
class Mode:
    """One way to sit down at a game."""

    key: str
    """``"2"``, ``"4"``, ``"4-teams"``: what a form sends."""
    seats: int
    label: str
    """In words: ``"2 players"``, ``"2v2"``, ``"4 players, each for themselves"``."""
    config: dict[str, Any] = field(default_factory=dict)
    """The config fields the mode sets."""
    teams: tuple[int, ...] = ()
    """The team of each seat, or ``()``."""


def modes(game: str) -> list[Mode]:
    """Returns every mode of ``game``, smallest table first.

    Raises:
        UnknownGameError: the game is not registered.
    """
    info = get_game(game).info
    out: list[Mode] = []
    for n in sorted(info.seat_counts):
        splits = [s for s in info.teams if s.seats == n]
        always = next((s for s in splits if s.when is None), None)
        if always is not None:
            out.append(Mode(str(n), n, team_label(always.team_of_seat), {}, always.team_of_seat))
            continue
        out.append(Mode(str(n), n, f"{n} players" + (", each for themselves" if splits else "")))
        for s in splits:
            assert s.when is not None
            out.append(Mode(f"{n}-teams", n, team_label(s.team_of_seat), {s.when: True}, s.team_of_seat))
    return out


def team_label(teams: tuple[int, ...]) -> str:
    """``"2v2"`` for two teams of two."""
    sizes = [teams.count(t) for t in sorted(set(teams))]
    return "v".join(str(k) for k in sizes)


def find_mode(game: str, key: str) -> Mode | None:
    """Returns the mode of ``game`` called ``key``, or ``None``."""
    return next((m for m in modes(game) if m.key == key), None)


def round_cap(game: str, seats: int) -> tuple[str, int] | None:
    """Returns the game's round-cap config field and its default, or ``None`` when it has none.

    A table may play fewer rounds than the default (a short game); never more.
    """
    defaults = get_game(game).default_config(seats)
    for key in ROUND_CAP_KEYS:
        if isinstance(defaults.get(key), int):
            return key, int(defaults[key])
    return None
