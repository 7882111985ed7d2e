"""Full matches through a real referee on loopback with real SDK clients.

Partitions: remote bot vs remote bot, remote vs house, house vs house; many concurrent matches on
one session; a bot seated twice in one match; what every bot and spectator was sent compared with
what the engine allows that viewer to see; every recorded replay verifies.
"""

from __future__ import annotations

import asyncio

import pytest

from referee.core import EVERYONE, Event, get_game
from referee.core.replay import Recorder, verify
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
    """Yields (decision number, the seats' own decision numbers, the public decision count, the
    pending decision's kind, match) while re-playing ``replay`` step by step."""
    g = get_game(game)
    rec = Recorder(g, g.parse_config(replay.config, len(replay.seats)), replay.seed, replay.seats)
    match = rec.match
    for n, d in enumerate(replay.decisions):
        pending = match.to_move()
        yield n, list(rec.seat_decisions), rec.public_decisions, pending.kind if pending else None, match
        rec.apply(d.option_id)
    yield len(replay.decisions), list(rec.seat_decisions), rec.public_decisions, None, match


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

            # Each seat's decisions are numbered in its own count, each viewer's events in its own sequence.
            turns: dict[tuple[str, int, int], list] = {}  # type: ignore[type-arg]
            for turn in RecordingBot.turns:
                turns.setdefault((turn.match_id, int(turn.seat), turn.decision_number), []).append(turn)
            private = get_game(game).info.private_decisions
            checked = 0
            for r in runners:
                seen_by: dict[int, list[int]] = {}  # per seat: the full-log index of each event it was sent
                moments: list[tuple[int, object]] = []  # (public decision count, public view) of each public moment
                for _n, own, public_count, kind, match in _replayed(game, r.replay):
                    full = match.events(0, EVERYONE)
                    pending = match.to_move() if kind is not None else None
                    seat = int(pending.seat) if pending is not None else -1
                    for turn in turns.get((r.match_id, seat, own[seat]), []) if pending is not None else []:
                        allowed = codec.payload_data(codec.observation(game, match.observe(turn.seat)))
                        assert turn.observation == allowed
                        assert turn.decision.seat == turn.seat == pending.seat
                        assert [o.id for o in turn.options] == [o.id for o in match.legal_options()]
                        mine = [e for e in full if e.visible(turn.seat)]
                        sent = seen_by.setdefault(seat, [])
                        for ev in turn.events:
                            assert ev.index == len(sent), "a seat's events are numbered densely, in its order"
                            want = mine[ev.index]
                            assert ev.kind == want.kind and ev.data == codec.payload_data(codec.event(game, want))
                            sent.append(want.index)
                        assert sent == [e.index for e in mine], "the seat was sent every event it may see"
                        checked += 1
                    if kind is None or kind not in private:
                        moments.append((public_count, codec.payload_data(codec.observation(game, match.observe(None)))))
                # Every spectator message is the view of a public moment, in order.
                at = 0
                for msg in [msg for runner, msg in watched if runner is r]:
                    view = (msg.decision_count, codec.payload_data(msg.observation))
                    while at < len(moments) and moments[at] != view:
                        at += 1
                    assert at < len(moments), f"a spectator message is no public moment's view: {view[0]}"
            assert checked == len(RecordingBot.turns) > 100

            for runner in runners[:4]:
                public = [Event(e["i"], e["kind"], e["data"]) for e in runner.replay.events]
                expected = [(n, e.kind, codec.payload_data(codec.event(game, e))) for n, e in enumerate(public)]
                got = [
                    (e.index, e.kind, codec.payload_data(e)) for r, msg in watched if r is runner for e in msg.events
                ]
                assert got == expected
                assert len(expected) > 0

    asyncio.run(scenario())
