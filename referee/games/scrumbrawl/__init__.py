"""ScrumBrawl: the rules engine (the ``scrumbrawl`` game of the registry).

:class:`ScrumBrawl` validates a config and creates :class:`~referee.games.scrumbrawl.engine.SBMatch`
matches. The rules live in the modules of this package, one concept each: ``board``, ``movement``,
``orbs``, ``combat``, ``creatures``, ``abilities``, ``cards``, ``turn``, ``scoring``,
``observation``; content is data under ``data/``. See ``docs/rules/scrumbrawl.md``. :data:`INFO`, what
the game says of itself, is defined once in :mod:`.engine`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.core.chance import Chance
from referee.core.contract import Event, Game, JSONDict, Option
from referee.core.errors import ConfigError
from referee.core.ids import Seat
from referee.core.view import BoardView, Targets
from referee.games.scrumbrawl import (  # noqa: F401 (they register their steps, hooks and the observation)
    abilities,
    cards,
    combat,
    draft,
    movement,
    observation,
    orbs,
    scoring,
    turn,
)
from referee.games.scrumbrawl.board import draw_orb, edge_square, place_new_orb, place_portal, sq
from referee.games.scrumbrawl.content import CONTENT
from referee.games.scrumbrawl.engine import INFO, Frame, SBMatch, decision, step

_DEFAULTS: dict[str, Any] = {
    "max_rounds": 40,
    "teams": False,
    "last_man_standing": False,
    "creature_draft": False,
    "simple_rules": False,
    "simple_remove_alter_reality": False,
    "simple_remove_events": False,
    "portals": 0,
    "deck_size": 0,
    "deck_counts": {},
}


class ScrumBrawl(Game):
    """The ScrumBrawl game: 2 to 4 seats, free-for-all or 2v2 (``teams``), with its variants."""

    info = INFO

    def parse_config(self, raw: Mapping[str, Any], seats: int) -> JSONDict:
        """Validates ``raw`` and fills in the defaults.

        Raises:
            ConfigError: an unknown field, a wrong type, or a combination the rules do not allow.
        """
        unknown = set(raw) - set(_DEFAULTS)
        if unknown:
            raise ConfigError(f"unknown scrumbrawl config fields {sorted(unknown)!r}; known: {sorted(_DEFAULTS)!r}")
        INFO.check_seats(seats)
        cfg = {**_DEFAULTS, **raw}
        for key in (
            "teams",
            "last_man_standing",
            "simple_rules",
            "simple_remove_alter_reality",
            "simple_remove_events",
        ):
            if not isinstance(cfg[key], bool):
                raise ConfigError(f"{key} must be true or false, got {cfg[key]!r}")
        for key, low in (("max_rounds", 1), ("portals", 0), ("deck_size", 0)):
            if not isinstance(cfg[key], int) or isinstance(cfg[key], bool) or cfg[key] < low:
                raise ConfigError(f"{key} must be an integer >= {low}, got {cfg[key]!r}")
        if cfg["teams"] and seats != 4:
            raise ConfigError(f"teams (2v2) needs 4 seats, got {seats}")
        if cfg["teams"] and cfg["last_man_standing"]:
            raise ConfigError("last_man_standing is a free-for-all variant; it cannot be combined with teams")
        if cfg["portals"] == 0:
            cfg["portals"] = 2 if seats >= 3 else 1
        if cfg["portals"] > 3:
            raise ConfigError(f"portals must be 1 to 3 (the box has 3 portal tokens), got {cfg['portals']}")
        counts = cfg["deck_counts"]
        if not isinstance(counts, dict):
            raise ConfigError(f"deck_counts must map card names to copies, got {counts!r}")
        for name, n in counts.items():
            if name not in CONTENT.deck or not isinstance(n, int) or n < 0:
                raise ConfigError(f"deck_counts: {name!r} is not a non-creature card name with a count >= 0 ({n!r})")
        cfg["deck_counts"] = dict(sorted(counts.items()))
        full = len(deck_names(cfg))
        if cfg["deck_size"] > full:
            raise ConfigError(f"deck_size {cfg['deck_size']} exceeds the {full} cards of the deck list")
        return cfg

    def new_match(self, config: Mapping[str, Any], seats: int, chance: Chance) -> SBMatch:
        """Creates a match and runs its setup up to the first decision.

        Raises:
            ConfigError: the config is invalid.
        """
        cfg = self.parse_config(config, seats)
        m = SBMatch(cfg, seats, chance)
        setup(m)
        m.run()
        return m

    def board_view(self, obs: Mapping[str, Any], viewer: Seat | None) -> BoardView:
        """The arena, creatures, orbs, portals and card areas ``viewer`` sees (:mod:`.view`)."""
        from referee.games.scrumbrawl import view

        return view.board_view(INFO.board or {}, obs, viewer)

    def event_text(self, event: Event, viewer: Seat | None, names: Mapping[str, str] | None = None) -> str:
        """The event's sentence, creatures by name (:mod:`.view`)."""
        from referee.games.scrumbrawl import view

        return view.event_text(event, names)

    def option_targets(self, option: Option, board: BoardView) -> Targets:
        """The squares, pieces and cards of ``board`` that ``option`` acts on (:mod:`.view`)."""
        from referee.games.scrumbrawl import view

        return view.option_targets(option, board)


def deck_names(cfg: Mapping[str, Any]) -> list[str]:
    """The deck as card names for ``cfg``: creatures, then each other card times its count."""
    # The Simple Rules variant takes some creatures out (section 1.8): ``simple_rules_removed`` in the data.
    names = [n for n, c in CONTENT.creatures.items() if not (cfg["simple_rules"] and c.simple_rules_removed)]
    counts = {**CONTENT.deck, **cfg["deck_counts"]}
    for name, n in counts.items():
        kind = CONTENT.card_type(name)
        if kind == "alter_reality" and cfg["simple_remove_alter_reality"]:
            continue
        if kind == "event" and cfg["simple_remove_events"]:
            continue
        names.extend([name] * n)
    return names


def setup(m: SBMatch) -> None:
    """Builds and shuffles the decks, then schedules portals, orbs and the first turn (section 1.1)."""
    deck = [m.new_card_id(n) for n in deck_names(m.config)]
    m.chance.shuffle(deck)
    if m.config["deck_size"]:
        deck = deck[: m.config["deck_size"]]
    creatures = [k for k in deck if m.card_names[k] in CONTENT.creatures]
    if m.config["creature_draft"]:
        deck = [k for k in deck if k not in set(creatures)]
    m.deck = deck
    m.orb_deck = sorted(CONTENT.orbs)
    m.chance.shuffle(m.orb_deck)
    n = m.config["portals"]
    m.base_orbs = n
    m.push("first_turn")
    for _ in range(n):
        m.push("setup_orb")
    if m.lms:
        for seat in reversed(range(m.seats)):
            m.push("lms_portal", seat=seat, prompt="place your portal on your edge")
    else:
        for i in reversed(range(n)):
            m.push("setup_portal", pid=f"p{i}")
    if m.config["creature_draft"]:
        draft.start_draft(m, creatures)
    m.emit("setup", {"values": [m.seats, n, len(deck)]})


@step("setup_portal")
def _setup_portal(m: SBMatch, f: Frame) -> None:
    place_portal(m, f["pid"])


@step("setup_orb")
def _setup_orb(m: SBMatch, f: Frame) -> None:
    name = draw_orb(m)
    if name is not None:
        place_new_orb(m, name)


@step("first_turn")
def _first_turn(m: SBMatch, f: Frame) -> None:
    m.active = 0
    turn.begin_turn(m)


def _lms_options(m: SBMatch, f: Frame) -> list[Option]:
    seat = f["seat"]
    return [
        Option(
            f"portal:{sq(edge_square(seat, i))}",
            "portal",
            f"portal on {sq(edge_square(seat, i))}",
            {"row": edge_square(seat, i)[0], "col": edge_square(seat, i)[1]},
        )
        for i in (10, 11)
    ]


@decision("lms_portal", "lms_portal", _lms_options, default="first")
def _lms_portal(m: SBMatch, f: Frame, opt: Option) -> None:
    m.stack.pop()
    pid = f"p{f['seat']}"
    pos = (opt.params["row"], opt.params["col"])
    m.portals[pid] = pos
    m.portal_home[pid] = pos
    m.portal_owner[pid] = f["seat"]
    m.emit("portal_placed", {"portal": pid, "row": pos[0], "col": pos[1], "seat": f["seat"]})


GAME = ScrumBrawl
"""The registry's entry point (the package name is the game's registry name)."""

__all__ = ["GAME", "INFO", "SBMatch", "ScrumBrawl", "cards", "combat", "movement", "orbs", "scoring"]
