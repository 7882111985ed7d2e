"""Super Fantasy Brawl: a rules engine behind the game contract, with an original roster as data.

Import :class:`SuperFantasyBrawl` (the game) from here. The rules are read in
``docs/rules/superfantasybrawl.md``; the content lives in ``data/``. :data:`INFO` is what the game
says of itself to the referee, the workers and the site (table sizes, teams, time control, board),
defined once in :mod:`.match`.
"""

from __future__ import annotations

from referee.games.superfantasybrawl.game import SuperFantasyBrawl
from referee.games.superfantasybrawl.match import INFO, BrawlMatch

GAME = SuperFantasyBrawl
"""The registry's entry point (the package name is the game's registry name)."""

__all__ = ["GAME", "INFO", "BrawlMatch", "SuperFantasyBrawl"]
