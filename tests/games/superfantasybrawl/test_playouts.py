"""Full-length playouts to the 15-round cap, and proof that the default suite's few games still cover the rules.

Random play ends many games on VP before the cap (most four-player games), so these games set
``vp_to_win`` to 30, which no team reaches in 15 rounds of random play: every game then plays all
15 rounds (decks reshuffled many times, the challenge deck refilled, every champion knocked out and
back) under the full conformance kit. The default suite runs one such game per seat count; the slow
suite (``-m slow``) runs hundreds.
"""

from __future__ import annotations

import pytest

from referee.core import Termination
from referee.core.conformance import random_playout, run_conformance
from referee.games.superfantasybrawl import SuperFantasyBrawl
from referee.games.superfantasybrawl.match import BrawlMatch
from tests.games.superfantasybrawl.test_conformance import DEFAULT_SEEDS, _invariants

GAME = SuperFantasyBrawl()
FULL = {"vp_to_win": 30, "round_cap": 15}

DECISION_KINDS = {
    "attack_target", "dash", "deploy", "fear", "force", "jump", "main", "move", "mulligan", "pick", "place", "plan",
    "post_attack", "reaction", "setup_trap", "side", "skill", "strike", "stun_discard", "swoop", "trap_replace",
}  # fmt: skip
"""Every decision kind of superfantasybrawl.md section 15 but ``ban`` (drafts: test_conformance_with_drafts)."""
EVENT_KINDS = {
    "activation_ended", "attack", "attack_declined", "attack_roll", "card_played", "challenge_scored",
    "challenges_reshuffled", "damage", "deck_reshuffled", "deployed", "draw", "drew", "first_player",
    "hand_discarded", "hand_revealed", "heal", "ignored", "level_up", "match_over", "moved", "mulligan", "no_attack",
    "no_target", "out_of_action", "picked", "planned", "planned_card", "post_attack_declined", "reaction",
    "reaction_passed", "rooted", "side_chosen", "skill", "standard_action", "stunned", "track_advanced",
    "trap_placed", "trap_sprung", "trap_token", "turn", "vp",
}  # fmt: skip
"""The event kinds random play reaches (``immune`` and ``banned`` need a levelled steadfast or unstunnable
champion, or a draft: their own tests cover them)."""


def _full_games(seats: int, seeds: range) -> None:
    report = run_conformance(
        GAME, seats, seeds, FULL, invariants=[_invariants], leak_every=25, determinism_every=50, replay_every=10
    )
    assert report.terminations == {Termination.ROUND_CAP.value: len(seeds)}, report.terminations


def test_the_default_playouts_reach_every_decision_and_event_kind() -> None:
    """The default suite's seeded games (test_conformance.DEFAULT_SEEDS) are few; this proves they still reach
    every decision kind and event kind, so a regression in any of them is met. When a rules change makes them
    miss one, add seeds (or a scenario test) rather than drop the kind."""
    decisions: set[str] = set()
    events: set[str] = set()

    def seen(rec: object, step: int) -> None:
        d = rec.match.to_move()  # type: ignore[attr-defined]
        if d is not None:
            decisions.add(d.kind)

    for seats, seeds in DEFAULT_SEEDS.items():
        for seed in seeds:
            rec = random_playout(GAME, seats, seed, on_step=seen)
            events.update(e.kind for e in rec.match.events())
    assert decisions >= DECISION_KINDS, f"never offered: {sorted(DECISION_KINDS - decisions)}"
    assert events >= EVENT_KINDS, f"never emitted: {sorted(EVENT_KINDS - events)}"


@pytest.mark.parametrize(("seats", "seed"), [(2, 0), (4, 1000)])
def test_one_game_per_seat_count_plays_all_fifteen_rounds(seats: int, seed: int) -> None:
    """Default suite: one whole game to the 15-round cap for each seat count, under the conformance kit."""
    rec = random_playout(GAME, seats, seed, FULL)
    m = rec.match
    assert isinstance(m, BrawlMatch) and m.round == 15
    outcome = m.outcome()
    assert outcome is not None and outcome.termination is Termination.ROUND_CAP
    _full_games(seats, range(seed, seed + 1))


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize(("seats", "seeds"), [(2, range(30_000, 30_200)), (4, range(40_000, 40_100))])
def test_hundreds_of_full_length_games_to_the_round_cap(seats: int, seeds: range) -> None:
    """Slow suite: hundreds of whole games, every one to the 15-round cap, under the conformance kit."""
    _full_games(seats, seeds)
