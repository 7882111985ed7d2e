"""The conformance kit itself, exercised on the test-only game in ``tinygame``.

Partitions: a correct game passes every check for 2, 3 and 4 seats; a leaky observation, a
nondeterministic engine, a tampered replay, a match that describes itself with another info and an
engine that takes a size its info does not name are each caught.
"""

from __future__ import annotations

import dataclasses

import pytest

from referee.core import Seat, SeededChance, register
from referee.core.conformance import (
    ConformanceError,
    check_determinism,
    check_info,
    check_no_leak,
    random_playout,
    run_conformance,
)
from referee.core.replay import Replay, ReplayError, verify
from tests.conformance.tinygame import LOOSE_INFO, LooseGame, TinyGame, TinyMatch

GAME = TinyGame()
register(GAME)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_correct_game_passes_every_check(seats: int) -> None:
    report = run_conformance(GAME, seats, range(60), leak_every=2)
    assert report.games == 60
    assert report.leak_checks > 0
    assert report.redeals_with_hidden_changes > 0
    assert sum(report.terminations.values()) == 60


def test_leaky_observation_is_caught() -> None:
    with pytest.raises(ConformanceError, match="observation for viewer"):
        run_conformance(GAME, 2, range(3), {"leaky": True}, leak_every=1)


def test_nondeterministic_engine_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    original = TinyMatch.__init__

    def noisy_init(self: TinyMatch, config, seats, chance) -> None:  # type: ignore[no-untyped-def]
        original(self, config, seats, chance)
        random.shuffle(self.deck)  # global random: exactly what an engine must never do

    monkeypatch.setattr(TinyMatch, "__init__", noisy_init)
    with pytest.raises(ConformanceError, match="two different replays"):
        for seed in range(20):
            check_determinism(GAME, 2, seed)


def test_tampered_replay_fails_verification() -> None:
    replay = random_playout(GAME, 2, seed=7).finish()
    verify(Replay.loads(replay.dumps()))
    data = replay.to_json()
    data["seed"] = 8
    with pytest.raises(ReplayError):
        verify(Replay.from_json(data))


def test_redeal_keeps_the_viewers_own_hand() -> None:
    match = GAME.new_match(GAME.parse_config({}, 3), 3, SeededChance(1))
    other = match.determinize(Seat(0), SeededChance(2))
    assert other.observe(Seat(0)) == match.observe(Seat(0))
    check_no_leak(match, 3, salt=5)


def test_an_event_changed_after_emission_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    original = TinyMatch.apply

    def mutating_apply(self: TinyMatch, option_id: str):  # type: ignore[no-untyped-def]
        events = original(self, option_id)
        if self._events:
            self._events[0].data["tampered"] = True  # rewrites history that viewers already saw
        return events

    monkeypatch.setattr(TinyMatch, "apply", mutating_apply)
    with pytest.raises(ConformanceError, match="changed after it was emitted"):
        run_conformance(GAME, 2, range(2), leak_every=0, determinism_every=0, replay_every=0)


def test_a_match_with_another_info_than_its_game_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    check_info(GAME)
    monkeypatch.setattr(LooseGame, "parse_config", TinyGame.parse_config)
    monkeypatch.setattr(LooseGame, "info", dataclasses.replace(TinyGame.info))
    with pytest.raises(ConformanceError, match="a 2-seat match returns another GameInfo"):
        check_info(LooseGame())  # an equal description, but not the one object the match returns


def test_an_engine_that_takes_a_size_its_info_does_not_name_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(TinyMatch, "info", LOOSE_INFO)
    with pytest.raises(ConformanceError, match="0 seats is not in its info 2 or 3, yet accepted"):
        check_info(LooseGame())
