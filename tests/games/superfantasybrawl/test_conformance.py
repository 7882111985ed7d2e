"""The shared conformance kit on seeded random games, 2 and 4 players, with strict proto parsing.

Layers 4 and 5 of the house test plan: random playouts run to the end without exceptions, the
contract's invariants hold at every step, re-dealing hidden information never changes what a
viewer sees (and does change what others would see), replays round-trip and verify, and the
same seed gives the same match. Every observation, option and event parses into the game's
proto messages.
"""

from __future__ import annotations

import time

import pytest

from referee.core.conformance import run_conformance
from referee.games.superfantasybrawl import SuperFantasyBrawl
from referee.games.superfantasybrawl.match import BrawlMatch
from referee.wire import validator

GAME = SuperFantasyBrawl()
WIRE = validator("superfantasybrawl")


def _invariants(match: object) -> None:
    m = match
    assert isinstance(m, BrawlMatch)
    hexes = [c.hex for c in m.champs.values() if c.hex is not None]
    assert len(hexes) == len(set(hexes)), "two champions share a hex"
    assert not set(hexes) & m.statues, "a champion stands on a statue"
    assert len(m.traps) <= m.content.traps_on_board
    for c in m.champs.values():
        assert c.damage >= 0, f"{c.id} has negative damage"
        if c.hex is None:
            assert c.damage == 0 and not c.levelled, f"{c.id} on the Gate keeps damage or its levelled side"
    cards = sum(len(h) for h in m.hands) + sum(len(d) for d in m.decks) + sum(len(d) for d in m.discards)
    if m.phase == "play":
        assert cards == 6 * len(m.champs), "cards were lost or duplicated"


DEFAULT_SEEDS = {2: range(0, 64), 4: range(1000, 1024)}
"""The default suite's random games: as few as still reach every decision and event kind (checked by
test_playouts.py::test_the_default_playouts_reach_every_decision_and_event_kind); the soak runs thousands."""


@pytest.mark.parametrize(
    ("seats", "seeds", "wired"),
    [
        # The default suite runs the kit on the first of DEFAULT_SEEDS' games; the slow suite on all.
        (2, DEFAULT_SEEDS[2][:16], 6),
        (4, DEFAULT_SEEDS[4][:8], 3),
        pytest.param(2, DEFAULT_SEEDS[2], 15, marks=pytest.mark.slow),
        pytest.param(4, DEFAULT_SEEDS[4], 8, marks=pytest.mark.slow),
    ],
)
def test_conformance_on_seeded_random_games(seats: int, seeds: range, wired: int) -> None:
    """Conformance kit, first ``wired`` games with strict proto validation, the rest without (for speed)."""
    seeds_list = list(seeds)
    report = run_conformance(GAME, seats, seeds_list[:wired], validator=WIRE, invariants=[_invariants], leak_every=6)
    rest = run_conformance(
        GAME, seats, seeds_list[wired:], invariants=[_invariants], leak_every=20, determinism_every=40, replay_every=10
    )
    assert report.games + rest.games == len(seeds_list)
    assert report.redeals_with_hidden_changes > 0 and rest.redeals_with_hidden_changes > 0
    assert sum(rest.terminations.values()) == rest.games


@pytest.mark.parametrize("selection", ["casual", "competitive"])
def test_conformance_with_drafts(selection: str) -> None:
    """The drafts run under the kit too."""
    report = run_conformance(GAME, 2, range(10), {"selection": selection}, validator=WIRE, leak_every=10)
    assert report.games == 10


@pytest.mark.slow
@pytest.mark.timeout(7200)
@pytest.mark.parametrize(("seats", "seeds"), [(2, range(10_000, 11_500)), (4, range(20_000, 20_700))])
def test_conformance_soak_thousands_of_games(seats: int, seeds: range) -> None:
    """Thousands of seeded random games, 2 and 4 players (run with -m slow)."""
    start = time.perf_counter()
    report = run_conformance(
        GAME, seats, seeds, invariants=[_invariants], leak_every=25, determinism_every=50, replay_every=10
    )
    elapsed = time.perf_counter() - start
    print(
        f"soak: {report.games} {seats}-player games, {report.decisions} decisions, {elapsed:.0f} s; "
        f"terminations {report.terminations}, leak checks {report.leak_checks}"
    )
    assert report.games == len(seeds)
