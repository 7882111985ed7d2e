"""Full matches through a real referee on loopback with real SDK clients.

Partitions: remote bot vs remote bot, remote vs house, house vs house; many concurrent matches on
one session; a bot seated twice in one match; what every bot and spectator was sent compared with
what the engine allows that viewer to see; every recorded replay verifies.
"""

from __future__ import annotations

import asyncio

import pytest

from referee.core import EVERYONE, Event, SeededChance, get_game
from referee.core.replay import verify
from referee.protocol import codec
from referee.protocol.timecontrol import TimeSettings
from referee.server.match import MatchState
from tests.referee.bots import FirstBot, RecordingBot
from tests.referee.harness import GAMES, referee_env

CALM = TimeSettings(decision_time=5.0, bank_time=60.0)
"""Happy-path matches must not time out even on a loaded machine; fault tests use short clocks."""


@pytest.mark.parametrize("game", GAMES)
def test_concurrent_full_matches_all_finish_and_verify(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "a", games=[game])
            env.connect(FirstBot, "b", games=[game])
            runners = [env.start(game, ["a", "b"] if n % 2 else ["b", "a"], seed=n, time=CALM) for n in range(12)]
            runners.append(env.start(game, ["a", "house:random"], seed=99, time=CALM))
            runners.append(env.start(game, ["house:random", "house:random"], seed=98, time=CALM))
            runners.append(env.start(game, ["a", "a"], seed=97, time=CALM))  # one bot in both seats
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in runners)), 60)
            for r in runners:
                assert r.state is MatchState.SUCCEEDED, (r.match_id, r.error, r.replay and r.replay.incidents)
                assert r.replay is not None and not r.replay.incidents
                verify(r.replay)
                assert env.sink.replays[r.match_id] is r.replay
            assert env.sink.writes == len(runners)

    asyncio.run(scenario())


def _replayed(game: str, replay):  # type: ignore[no-untyped-def]
    """Yields (decision number, match) while re-playing ``replay`` step by step."""
    g = get_game(game)
    match = g.new_match(g.parse_config(replay.config, len(replay.seats)), len(replay.seats), SeededChance(replay.seed))
    yield 0, match
    for n, d in enumerate(replay.decisions, 1):
        match.apply(d.option_id)
        yield n, match


@pytest.mark.parametrize("game", GAMES)
def test_bots_and_spectators_are_sent_only_what_they_may_see(game: str) -> None:
    RecordingBot.turns.clear()

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(RecordingBot, "rec", games=[game])
            env.connect(FirstBot, "other", games=[game])
            runners = [
                env.start(game, ["rec", "other"] if n % 2 else ["other", "rec"], seed=100 + n, time=CALM)
                for n in range(16)
            ]
            watched = []

            async def watch(runner) -> None:  # type: ignore[no-untyped-def]
                async for msg in runner.watch():
                    watched.append((runner, msg))

            watchers = [asyncio.create_task(watch(r)) for r in runners[:4]]
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in runners)), 60)
            await asyncio.wait_for(asyncio.gather(*watchers), 5)
            assert all(r.state is MatchState.SUCCEEDED for r in runners)

            turns: dict[tuple[str, int], list] = {}  # type: ignore[type-arg]
            for turn in RecordingBot.turns:
                turns.setdefault((turn.match_id, turn.decision_number), []).append(turn)
            views: dict[tuple[str, int], list] = {}  # type: ignore[type-arg]
            for runner, msg in watched:
                views.setdefault((runner.match_id, msg.decision_count), []).append(msg)
            checked = 0
            spectator_events: dict[str, list[tuple[int, str, object]]] = {}
            for r in runners:
                for n, match in _replayed(game, r.replay):
                    for turn in turns.get((r.match_id, n), []):
                        allowed = codec.payload_data(codec.observation(game, match.observe(turn.seat)))
                        assert turn.observation == allowed
                        assert turn.decision.seat == turn.seat == match.to_move().seat
                        assert [o.id for o in turn.options] == [o.id for o in match.legal_options()]
                        for ev in turn.events:
                            full = match.events(ev.index, EVERYONE)[0]
                            assert full.visible(turn.seat), (
                                f"event {ev.index} ({ev.kind}) is hidden from seat {turn.seat}"
                            )
                            assert ev.data == codec.payload_data(codec.event(game, full))
                        checked += 1
                    for msg in views.get((r.match_id, n), []):
                        public = codec.payload_data(codec.observation(game, match.observe(None)))
                        assert codec.payload_data(msg.observation) == public
                        spectator_events.setdefault(r.match_id, []).extend(
                            (e.index, e.kind, codec.payload_data(e)) for e in msg.events
                        )
            assert checked == len(RecordingBot.turns) > 100

            for runner in runners[:4]:
                public = [Event(e["i"], e["kind"], e["data"]) for e in runner.replay.events]
                expected = [(e.index, e.kind, codec.payload_data(codec.event(game, e))) for e in public]
                assert spectator_events[runner.match_id] == expected
                assert len(expected) > 0

    asyncio.run(scenario())
