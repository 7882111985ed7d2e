"""One replay pipeline: one loop of steps for simulate, verify and the viewer's frames; one encoder."""

from __future__ import annotations

import gzip

import pytest

from referee.core import register
from referee.core.conformance import random_playout
from referee.core.contract import EVERYONE
from referee.core.registry import get_game
from referee.core.replay import Replay, ReplayError, simulate, steps, verify
from tests.conformance.tinygame import TinyGame
from webapp.matches.frames import spectator_frames

GAME = TinyGame()
register(GAME)


def test_steps_yield_the_start_then_one_position_per_decision() -> None:
    replay = random_playout(GAME, 3, seed=21).finish()
    seen = [(s.index, s.decision, len(s.match.events(0, EVERYONE))) for s in steps(replay)]
    assert [i for i, _, _ in seen] == list(range(len(replay.decisions) + 1))
    assert [d for _, d, _ in seen] == [None, *replay.decisions]
    assert [n for _, _, n in seen] == sorted(n for _, _, n in seen)  # events only accumulate
    assert simulate(replay).events(0, EVERYONE) == simulate(replay).events(0, EVERYONE)
    assert verify(replay).outcome() == replay.outcome


def test_a_decision_for_the_wrong_seat_fails_at_that_decision() -> None:
    replay = random_playout(GAME, 2, seed=4).finish()
    bad = Replay.from_json(replay.to_json())
    first = bad.decisions[1]
    bad.decisions[1] = type(first)(first.seat ^ 1, first.option_id)  # type: ignore[arg-type]
    walked = steps(bad)
    assert next(walked).index == 0 and next(walked).index == 1
    with pytest.raises(ReplayError, match="decision 1 is recorded for seat"):
        next(walked)


def test_frame_pages_equal_the_slices_of_all_frames() -> None:
    game = get_game("superfantasybrawl")
    replay = random_playout(game, 2, seed=8).finish()
    everything = spectator_frames(replay, game)
    assert everything["total"] == len(everything["frames"]) == len(replay.decisions) + 1
    total = everything["total"]
    for start, limit in ((0, 5), (1, 3), (total // 2, 7), (total - 2, 10)):
        page = spectator_frames(replay, game, start=start, limit=limit)
        assert page["frames"] == everything["frames"][start : start + limit], (start, limit)
    labels = [f["decision"]["label"] for f in everything["frames"][1:]]
    assert all(labels), "the viewer's frames carry each option's label"


def test_one_encoder_is_deterministic_and_round_trips() -> None:
    replay = random_playout(GAME, 2, seed=13).finish()
    data = replay.encode()
    assert data == Replay.from_json(replay.to_json()).encode()  # same replay, same bytes
    assert gzip.decompress(data).decode() == replay.dumps()
    assert Replay.decode(data).dumps() == replay.dumps()
    assert Replay.decode(data).encode() == data  # what a worker decodes and stores is what was sent
    assert Replay.decode(replay.dumps().encode()).dumps() == replay.dumps()  # plain JSON too
    with pytest.raises(ReplayError, match="corrupt"):
        Replay.decode(data[:-6] + b"\x00" * 6)
