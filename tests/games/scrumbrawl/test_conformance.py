"""The shared conformance kit on ScrumBrawl: 2, 3 and 4 players, 2v2 and the variants.

Random legal play over seeded games checks: no exception, the contract's invariants, strict proto
parsing of every payload, determinism, replay round trip, no hidden-information leak, and the
game's own invariants (one creature per square, at most three creatures per player, chips never
decrease except in Last Man Standing, every game ends).
"""

from __future__ import annotations

import weakref
from typing import Any

import pytest

from referee.core.conformance import run_conformance
from referee.core.contract import Match
from referee.games.scrumbrawl import ScrumBrawl
from referee.games.scrumbrawl.engine import SBMatch
from referee.wire import validator

GAME = ScrumBrawl()


class ChipsNeverDecrease:
    """Game-specific invariants, kept per match (chip history needs memory)."""

    def __init__(self) -> None:
        # Weak keys: a finished match's id() may be reused by the next one.
        self.seen: weakref.WeakKeyDictionary[Match, list[int]] = weakref.WeakKeyDictionary()

    def __call__(self, match: Match) -> None:
        assert isinstance(match, SBMatch)
        squares = [c.pos for c in match.creatures.values()]
        assert len(squares) == len(set(squares)), f"two creatures share a square: {sorted(squares)}"
        for seat in range(match.seats):
            n = sum(1 for c in match.creatures.values() if c.owner == seat)
            assert n <= 3, f"seat {seat} controls {n} creatures"
        assert all(1 <= r <= 20 and 1 <= c <= 20 for r, c in squares), "a creature is off the Arena"
        for orb, cid in match.carrier.items():
            assert match.creatures[cid].orb == orb, f"{orb} carrier bookkeeping is inconsistent"
        if match.lms:
            return
        chips = [b + r for b, r in zip(match.blue, match.red, strict=True)]
        before = self.seen.get(match)
        if before is not None and len(before) == len(chips):
            assert all(a >= b for a, b in zip(chips, before, strict=True)), f"chips decreased: {before} -> {chips}"
        self.seen[match] = chips


CASES: list[tuple[str, int, dict[str, Any], int, bool]] = [
    ("2 players, proto-validated", 2, {"max_rounds": 5}, 30, True),
    ("3 players, proto-validated", 3, {"max_rounds": 3}, 15, True),
    ("4 players, proto-validated", 4, {"max_rounds": 3}, 10, True),
    ("2v2, proto-validated", 4, {"teams": True, "max_rounds": 3}, 10, True),
    ("last man standing, proto-validated", 3, {"last_man_standing": True, "max_rounds": 3}, 8, True),
    ("creature draft, proto-validated", 2, {"creature_draft": True, "max_rounds": 4}, 6, True),
    (
        "simple rules, proto-validated",
        2,
        {"simple_rules": True, "simple_remove_alter_reality": True, "max_rounds": 5},
        8,
        True,
    ),
    ("2 players", 2, {"max_rounds": 6}, 100, False),
    ("3 players", 3, {"max_rounds": 4}, 50, False),
    ("4 players", 4, {"max_rounds": 3}, 35, False),
    ("2v2", 4, {"teams": True, "max_rounds": 3}, 35, False),
]
"""The full counts, run by the slow suite."""

DEFAULT_SHARE = 8
"""The default suite plays the first eighth of each case's games (at least 2): since rules version 3
asks every seat after every roll (Alter Reality), random play makes five times the decisions, and the
whole counts cost about four minutes of CPU; the slow suite keeps them."""


def _params() -> list[Any]:
    params = []
    for label, seats, config, games, validate in CASES:
        quick = max(2, games // DEFAULT_SHARE)
        params.append(pytest.param(label, seats, config, quick, validate, id=label))
        params.append(pytest.param(label, seats, config, games, validate, id=f"{label}, all", marks=pytest.mark.slow))
    return params


@pytest.mark.parametrize(("label", "seats", "config", "games", "validate"), _params())
def test_conformance(label: str, seats: int, config: dict[str, Any], games: int, validate: bool) -> None:
    """The conformance kit passes with the ScrumBrawl invariants; the first runs also parse every observation,
    option and event strictly into the proto messages (the costly part, so on fewer games)."""
    report = run_conformance(
        GAME,
        seats,
        range(games),
        config,
        invariants=[ChipsNeverDecrease()],
        validator=validator("scrumbrawl") if validate else None,
        leak_every=25,
        determinism_every=20,
    )
    assert report.games == games
    assert report.leak_checks > 0 and report.redeals_with_hidden_changes > 0
    assert sum(report.terminations.values()) == games
