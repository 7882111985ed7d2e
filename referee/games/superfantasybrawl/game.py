"""The game object: metadata, config validation and the match factory.

Config fields (all optional; ``parse_config`` fills the defaults):

- ``selection``: ``"free"`` (each seat in turn picks its whole team from the roster),
  ``"casual"`` (shared pool, picks in reverse turn order, A3), ``"competitive"`` (own pools of
  5, one ban each, alternating picks, 2 players only) or ``"fixed"`` (``teams`` given).
- ``teams``: per seat, the champion ids (3 each with 2 seats, 2 each with 4); for ``fixed``.
- ``pool``: the casual draft's shared pool (at least 6, or 8 with 4 seats); default the roster.
- ``pools``: per seat, 5 distinct champions for the competitive draft.
- ``round_cap``: rounds before the match ends on VP (default 15); ``vp_to_win``: 5 or 7.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.core.chance import Chance
from referee.core.contract import Event, Game, JSONDict, Option
from referee.core.errors import ConfigError
from referee.core.ids import Seat
from referee.core.steps import Frame
from referee.core.view import BoardView, Targets
from referee.games.superfantasybrawl import view
from referee.games.superfantasybrawl.content import Content, load_default
from referee.games.superfantasybrawl.match import INFO, BrawlMatch
from referee.games.superfantasybrawl.phases import SETUP

CONTENT: Content = load_default()
"""The shipped content, read and validated once at import."""

SELECTIONS = ("free", "casual", "competitive", "fixed")
_FIELDS = {"selection", "teams", "pool", "pools", "round_cap", "vp_to_win"}


def _ids(value: Any, field: str, roster: Content) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{field} must be a list of champion ids, got {value!r}")
    unknown = [v for v in value if v not in roster.champions]
    if unknown:
        raise ConfigError(f"{field}: unknown champions {unknown!r}; known: {sorted(roster.champions)!r}")
    if len(set(value)) != len(value):
        raise ConfigError(f"{field}: a champion appears twice in {value!r}")
    return list(value)


class SuperFantasyBrawl(Game):
    """Super Fantasy Brawl for 2 players, or 4 in two teams (Super Team Tornado)."""

    info = INFO

    def __init__(self, content: Content | None = None) -> None:
        self.content = content or CONTENT

    def parse_config(self, raw: Mapping[str, Any], seats: int) -> JSONDict:
        """Validates a config and fills its defaults.

        Raises:
            ConfigError: unknown field, bad value, or a seat count not in ``INFO.seat_counts``.
        """
        INFO.check_seats(seats)
        unknown = set(raw) - _FIELDS
        if unknown:
            raise ConfigError(f"unknown config fields {sorted(unknown)!r}; known: {sorted(_FIELDS)!r}")
        per = 3 if seats == 2 else 2
        roster = sorted(self.content.champions)
        selection = raw.get("selection", "free")
        if selection not in SELECTIONS:
            raise ConfigError(f"selection must be one of {list(SELECTIONS)!r}, got {selection!r}")
        round_cap = raw.get("round_cap", 15)
        if not isinstance(round_cap, int) or isinstance(round_cap, bool) or not 1 <= round_cap <= 100:
            raise ConfigError(f"round_cap must be an integer 1..100, got {round_cap!r}")
        vp_to_win = raw.get("vp_to_win", 5 if seats == 2 else 7)
        if not isinstance(vp_to_win, int) or isinstance(vp_to_win, bool) or not 1 <= vp_to_win <= 30:
            raise ConfigError(f"vp_to_win must be an integer 1..30, got {vp_to_win!r}")
        out: JSONDict = {"selection": selection, "round_cap": round_cap, "vp_to_win": vp_to_win}
        if selection == "fixed":
            teams = raw.get("teams")
            if not isinstance(teams, list) or len(teams) != seats:
                raise ConfigError(f"teams must list {seats} teams for fixed selection, got {teams!r}")
            parsed = [_ids(t, f"teams[{i}]", self.content) for i, t in enumerate(teams)]
            if any(len(t) != per for t in parsed):
                raise ConfigError(f"each seat has exactly {per} champions, got {[len(t) for t in parsed]!r}")
            _ids([c for t in parsed for c in t], "teams", self.content)
            out["teams"] = parsed
        elif selection == "casual":
            pool = _ids(raw.get("pool", roster), "pool", self.content)
            if len(pool) < per * seats:
                raise ConfigError(f"the casual pool needs at least {per * seats} champions, got {len(pool)}")
            out["pool"] = pool
        elif selection == "competitive":
            if seats != 2:
                raise ConfigError("the competitive draft is for 2 seats")
            pools = raw.get("pools", [roster[:5], roster[5:10]])
            if not isinstance(pools, list) or len(pools) != 2:
                raise ConfigError(f"pools must hold two pools of 5, got {pools!r}")
            parsed = [_ids(p, f"pools[{i}]", self.content) for i, p in enumerate(pools)]
            if any(len(p) != 5 for p in parsed) or set(parsed[0]) & set(parsed[1]):
                raise ConfigError("each competitive pool holds 5 distinct champions, and the pools do not overlap")
            out["pools"] = parsed
        return out

    def new_match(self, config: Mapping[str, Any], seats: int, chance: Chance) -> BrawlMatch:
        """Creates a match and runs the set-up up to the first decision.

        Raises:
            ConfigError: the config is invalid for ``seats``.
        """
        full = self.parse_config(config, seats)
        match = BrawlMatch(self.content, full, seats, chance)
        match.push_all([Frame(name) for name in SETUP])
        match.run()
        return match

    def board_view(self, observation: Mapping[str, Any], viewer: Seat | None) -> BoardView:
        """The arena, champions, traps and card areas ``viewer`` sees (:mod:`.view`)."""
        return view.board_view(self.content, observation, viewer)

    def event_text(self, event: Event, viewer: Seat | None, names: Mapping[str, str] | None = None) -> str:
        """The event's sentence, champions and cards by name (:mod:`.view`)."""
        return view.event_text(self.content, event, names)

    def option_targets(self, option: Option, board: BoardView) -> Targets:
        """The hexes, champions and cards of ``board`` that ``option`` acts on (:mod:`.view`)."""
        return view.option_targets(self.content, option, board)
