"""Super Fantasy Brawl: a rules engine behind the game contract, with an original roster as data.

Import :class:`SuperFantasyBrawl` (the game) from here. The rules are read in
``docs/rules/superfantasybrawl.md``; the content lives in ``data/``.
"""

from referee.games.superfantasybrawl.game import SuperFantasyBrawl
from referee.games.superfantasybrawl.match import BrawlMatch

__all__ = ["BrawlMatch", "SuperFantasyBrawl"]
