"""Full-length playouts (slow): random games run to their natural end, the 40-round cap included.

The default suite's conformance playouts stop after 3 to 6 rounds (``max_rounds``), and the soak in
``test_bots_and_info.py`` after 5 to 10, so neither sees a late game: the deck runs out and the discard
pile is reshuffled, orb decks cycle, skins pile up into red chips, Orbstorm orbs accumulate, Last Man
Standing players are eliminated one by one, and the round cap itself ends the game. Two tiers, every
table size and variant, all with the default 40-round cap:

- ``test_full_length_conformance``: a few whole games through the whole conformance kit (every step:
  the contract's invariants and the ScrumBrawl ones, options and observations of every seat; strict
  proto parsing on the first game; replay round trip; determinism; hidden-information leak checks).
  The kit costs 10 to 50 times the game itself, since every step observes every seat.
- ``test_full_length_soak``: many more whole games with the ScrumBrawl invariants at every step, and
  every 10th game the replay round trip and, at its end, the leak check.

Run with ``.venv/bin/python -m pytest -m slow tests/games/scrumbrawl/test_full_playouts.py -s``; each
case prints its games, decisions, CPU time and how the games ended (figures in docs/rules/scrumbrawl.md).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from referee.core.conformance import check_no_leak, check_replay_roundtrip, random_playout, run_conformance
from referee.games.scrumbrawl import ScrumBrawl
from referee.wire import validator
from tests.games.scrumbrawl.test_conformance import ChipsNeverDecrease

GAME = ScrumBrawl()

FORMATS: dict[str, tuple[int, dict[str, Any]]] = {
    "2 players": (2, {}),
    "3 players": (3, {}),
    "4 players": (4, {}),
    "2v2": (4, {"teams": True}),
    "last man standing 3": (3, {"last_man_standing": True}),
    "last man standing 4": (4, {"last_man_standing": True}),
    "creature draft": (2, {"creature_draft": True}),
    "simple rules": (2, {"simple_rules": True, "simple_remove_alter_reality": True}),
}
"""label -> (seats, config); every config keeps the default 40-round cap."""

KIT_GAMES = {"2 players": 4, "4 players": 1, "2v2": 1, "last man standing 4": 1}
"""Whole games through the full kit per format (2 for the others): about 2 s of CPU for a two-player game,
12 s for a four-player one."""

SOAK_GAMES = {"2 players": 200, "3 players": 60, "4 players": 50, "2v2": 50}
"""Whole games in the soak per format (30 for the others): 0.15 to 0.3 s of CPU each."""


def _ended(counts: dict[str, int], more: dict[str, int]) -> dict[str, int]:
    return {k: counts.get(k, 0) + more.get(k, 0) for k in {*counts, *more}}


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("label", list(FORMATS))
def test_full_length_conformance(label: str) -> None:
    """Whole random games to the 40-round cap pass the conformance kit; the first also parses every observation,
    option and event strictly into the proto messages."""
    seats, config = FORMATS[label]
    assert GAME.parse_config(config, seats)["max_rounds"] == 40
    games = KIT_GAMES.get(label, 2)
    seeds = range(50_000, 50_000 + games)
    start = time.process_time()
    strict = run_conformance(
        GAME, seats, seeds[:1], config, invariants=[ChipsNeverDecrease()], validator=validator("scrumbrawl"),
        leak_every=150, determinism_every=1,
    )  # fmt: skip
    rest = run_conformance(
        GAME, seats, seeds[1:], config, invariants=[ChipsNeverDecrease()], leak_every=150, determinism_every=3
    )
    took = time.process_time() - start
    assert strict.games + rest.games == games
    assert strict.leak_checks + rest.leak_checks > 0
    assert strict.redeals_with_hidden_changes + rest.redeals_with_hidden_changes > 0
    print(
        f"\nkit, {label}: {games} whole games, {strict.decisions + rest.decisions} decisions "
        f"(longest {max(strict.longest, rest.longest)}), {took:.1f} s CPU, "
        f"endings {_ended(strict.terminations, rest.terminations)}"
    )


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("label", list(FORMATS))
def test_full_length_soak(label: str) -> None:
    """Many whole random games to the 40-round cap: the ScrumBrawl invariants hold at every step, and every 10th
    game's replay round-trips and its final position leaks nothing hidden."""
    seats, config = FORMATS[label]
    games = SOAK_GAMES.get(label, 40)
    invariant = ChipsNeverDecrease()
    ends: dict[str, int] = {}
    decisions = 0
    start = time.process_time()
    for seed in range(60_000, 60_000 + games):
        try:
            rec = random_playout(GAME, seats, seed, config, on_step=lambda r, _step: invariant(r.match))
        except AssertionError as exc:
            raise AssertionError(f"{label}, seed {seed}: {exc}") from exc
        outcome = rec.outcome()
        assert outcome is not None
        ends[outcome.termination.value] = ends.get(outcome.termination.value, 0) + 1
        decisions += len(rec.replay.decisions)
        if seed % 10 == 0:
            check_replay_roundtrip(rec)
            check_no_leak(rec.match, seats, seed)
    took = time.process_time() - start
    print(f"\nsoak, {label}: {games} whole games, {decisions} decisions, {took:.1f} s CPU, endings {ends}")
    assert sum(ends.values()) == games
