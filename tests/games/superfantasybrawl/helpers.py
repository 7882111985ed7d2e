"""Small helpers shared by the Super Fantasy Brawl rules tests."""

from __future__ import annotations

from typing import Any

from referee.games.superfantasybrawl.hexes import hex_id
from referee.games.superfantasybrawl.match import BrawlMatch
from referee.games.superfantasybrawl.scenario import build

__all__ = ["build", "events", "h", "ids", "play"]


def ids(m: BrawlMatch) -> list[str]:
    """The ids of the pending decision's options."""
    return [o.id for o in m.legal_options()]


def play(m: BrawlMatch, *choices: str) -> None:
    """Applies ``choices`` in order."""
    for c in choices:
        m.apply(c)


def events(m: BrawlMatch, kind: str) -> list[dict[str, Any]]:
    """The data of every event of ``kind``, in order."""
    return [e.data for e in m.events() if e.kind == kind]


def h(q: int, r: int) -> str:
    """A hex id."""
    return hex_id((q, r))
