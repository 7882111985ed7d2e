"""The referee's internal API over gRPC, plus health and reflection.

Partitions: StartMatch (new, repeated request_id, taken match_id, unknown game, bad config, unknown
house bot, no seats), GetMatch (known, unknown), ListMatches (paging, state filter), CancelMatch
(running match, unknown), WatchMatch (running match to its end, unknown), health SERVING, the
services listed by reflection.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from brawl.bot.v1 import bot_pb2
from brawl.referee.v1 import referee_pb2, referee_pb2_grpc
from google.protobuf.struct_pb2 import Struct
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from referee.core.ids import BotId, MatchId
from referee.core.replay import ReleasedMatch, simulate, verify
from referee.protocol import codec
from referee.server.hub import RefereeSettings, StartError
from referee.server.match import MatchState, SeatSpec
from tests.referee.bots import FirstBot, SilentBot
from tests.referee.harness import FAST, GAMES, eventually, referee_env

State = referee_pb2.Match


def seats(*names: str) -> list[referee_pb2.Seat]:
    return [
        referee_pb2.Seat(house_bot=n[6:])
        if n.startswith("house:")
        else referee_pb2.Seat(bot_id=n, display_name=n.upper())
        for n in names
    ]


@pytest.mark.parametrize("game", GAMES)
def test_start_get_list_watch_and_cancel(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "a", games=[game])
            env.connect(SilentBot, "mute", games=[game])
            async with env.api_channel() as channel:
                api = referee_pb2_grpc.RefereeServiceStub(channel)
                req = referee_pb2.StartMatchRequest(
                    request_id="r-1",
                    match_id="m-1",
                    game=game,
                    seats=seats("a", "house:random"),
                    seed=11,
                    time_control=FAST.to_proto(),
                    labels={"ladder": "test"},
                )
                first = await api.StartMatch(req)
                again = await api.StartMatch(req)
                assert first.match.match_id == again.match.match_id == "m-1"
                assert first.match.state in (State.STATE_PENDING, State.STATE_RUNNING)
                assert first.match.seats[0].display_name == "A" and first.match.seats[1].house_bot == "random"

                watched = [m async for m in api.WatchMatch(referee_pb2.WatchMatchRequest(match_id="m-1"))]
                assert watched[-1].state == State.STATE_SUCCEEDED
                assert watched[-1].outcome.termination != bot_pb2.TERMINATION_UNSPECIFIED
                assert sum(len(m.events) for m in watched) == len(env.sink.replays["m-1"].events)
                verify(env.sink.replays["m-1"])

                got = await api.GetMatch(referee_pb2.GetMatchRequest(match_id="m-1"))
                assert got.match.state == State.STATE_SUCCEEDED and got.match.replay_uri == "memory:m-1"
                assert got.match.labels["ladder"] == "test" and got.match.decision_count > 0
                assert got.match.HasField("end_time") and got.match.HasField("start_time")

                with pytest.raises(grpc.aio.AioRpcError) as exc:
                    await api.StartMatch(
                        referee_pb2.StartMatchRequest(
                            request_id="r-2", match_id="m-1", game=game, seats=seats("a", "a")
                        )
                    )
                assert exc.value.code() == grpc.StatusCode.ALREADY_EXISTS

                long_tc = FAST.to_proto()
                long_tc.max_strikes = 100
                long_tc.bank_time.FromSeconds(1000)
                slow = await api.StartMatch(
                    referee_pb2.StartMatchRequest(
                        request_id="r-3", game=game, seats=seats("mute", "a"), time_control=long_tc
                    )
                )
                slow_runner = env.referee.matches[MatchId(slow.match.match_id)].runner
                await eventually(lambda: slow_runner.pending is not None, "the slow match to ask a seat")
                cancelled = await api.CancelMatch(
                    referee_pb2.CancelMatchRequest(request_id="c-1", match_id=slow.match.match_id, reason="test")
                )
                assert cancelled.match.state == State.STATE_CANCELLED
                assert cancelled.match.outcome.termination == bot_pb2.TERMINATION_CANCELLED
                verify(env.sink.replays[slow.match.match_id])

                listed = await api.ListBots(referee_pb2.ListBotsRequest(game=game))
                assert listed.accepting and {b.bot_id for b in listed.bots} == {"a", "mute"}
                assert all(b.max_matches == 64 and list(b.games) == [game] for b in listed.bots)
                assert not (await api.ListBots(referee_pb2.ListBotsRequest(game="nosuchgame"))).bots

                if game == "tinygame":  # a config number travels as a Struct double and must arrive as int
                    short = Struct()
                    short.update({"max_turns": 6})
                    capped = await api.StartMatch(
                        referee_pb2.StartMatchRequest(game=game, seats=seats("house:random", "a"), config=short)
                    )
                    assert capped.match.config["max_turns"] == 6
                    await env.referee.wait_all(10)
                    replay = env.sink.replays[capped.match.match_id]
                    assert replay.config["max_turns"] == 6 and len(replay.decisions) >= 6
                    verify(replay)

                for n in range(3):
                    await api.StartMatch(
                        referee_pb2.StartMatchRequest(game=game, seats=seats("house:random", "house:random"), seed=n)
                    )
                await env.referee.wait_all(10)
                page1 = await api.ListMatches(referee_pb2.ListMatchesRequest(page_size=3))
                assert len(page1.matches) == 3 and page1.next_page_token
                page2 = await api.ListMatches(
                    referee_pb2.ListMatchesRequest(page_size=3, page_token=page1.next_page_token)
                )
                assert len(page2.matches) == (3 if game == "tinygame" else 2) and not page2.next_page_token
                assert {m.match_id for m in page1.matches}.isdisjoint({m.match_id for m in page2.matches})
                only_cancelled = await api.ListMatches(referee_pb2.ListMatchesRequest(state=State.STATE_CANCELLED))
                assert [m.match_id for m in only_cancelled.matches] == [slow.match.match_id]

    asyncio.run(scenario())


@pytest.mark.parametrize("game", GAMES)
def test_refusals_carry_status_codes_and_reasons(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env, env.api_channel() as channel:
            api = referee_pb2_grpc.RefereeServiceStub(channel)
            bad_config = Struct()
            bad_config.update({"no_such_field": 1})
            cases = [
                (
                    referee_pb2.StartMatchRequest(game="chess", seats=seats("a", "b")),
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "unknown game",
                ),
                (
                    referee_pb2.StartMatchRequest(game=game, seats=seats("a", "b"), config=bad_config),
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "no_such_field",
                ),
                (
                    referee_pb2.StartMatchRequest(game=game, seats=seats("a", "house:nobody")),
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "no house bot 'nobody'",
                ),
                (referee_pb2.StartMatchRequest(game=game), grpc.StatusCode.INVALID_ARGUMENT, "needs seats"),
            ]
            for request, code, text in cases:
                with pytest.raises(grpc.aio.AioRpcError) as exc:
                    await api.StartMatch(request)
                assert exc.value.code() == code and text in (exc.value.details() or ""), exc.value.details()
            for call in (
                api.GetMatch(referee_pb2.GetMatchRequest(match_id="nope")),
                api.CancelMatch(referee_pb2.CancelMatchRequest(match_id="nope")),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as exc:
                    await call
                assert exc.value.code() == grpc.StatusCode.NOT_FOUND
            with pytest.raises(grpc.aio.AioRpcError) as exc:
                async for _ in api.WatchMatch(referee_pb2.WatchMatchRequest(match_id="nope")):
                    pass
            assert exc.value.code() == grpc.StatusCode.NOT_FOUND

    asyncio.run(scenario())


def test_health_and_reflection_list_only_what_each_listener_serves() -> None:
    """Issue 11, finding 1: the bot port serves and lists BotService and health only; the internal
    API lives on its own listener, where reflection needs the credential."""

    async def services(channel: grpc.aio.Channel) -> set[str]:
        refl = reflection_pb2_grpc.ServerReflectionStub(channel)

        async def ask():  # type: ignore[no-untyped-def]
            yield reflection_pb2.ServerReflectionRequest(list_services="")

        names: set[str] = set()
        async for resp in refl.ServerReflectionInfo(ask()):
            names |= {s.name for s in resp.list_services_response.service}
        return names

    async def scenario() -> None:
        async with referee_env() as env:
            async with grpc.aio.insecure_channel(env.address) as channel:
                health = health_pb2_grpc.HealthStub(channel)
                for service in ("", "brawl.bot.v1.BotService"):
                    resp = await health.Check(health_pb2.HealthCheckRequest(service=service))
                    assert resp.status == health_pb2.HealthCheckResponse.SERVING
                with pytest.raises(grpc.aio.AioRpcError) as exc:
                    await health.Check(health_pb2.HealthCheckRequest(service="brawl.referee.v1.RefereeService"))
                assert exc.value.code() == grpc.StatusCode.NOT_FOUND
                assert await services(channel) == {
                    "brawl.bot.v1.BotService",
                    "grpc.health.v1.Health",
                    "grpc.reflection.v1alpha.ServerReflection",
                }
            async with env.api_channel(secret="") as anonymous:
                health = health_pb2_grpc.HealthStub(anonymous)  # probes need no credential
                resp = await health.Check(health_pb2.HealthCheckRequest(service="brawl.referee.v1.RefereeService"))
                assert resp.status == health_pb2.HealthCheckResponse.SERVING
                with pytest.raises(grpc.aio.AioRpcError) as exc:
                    await services(anonymous)
                assert exc.value.code() == grpc.StatusCode.UNAUTHENTICATED
            async with env.api_channel() as channel:
                assert "brawl.referee.v1.RefereeService" in await services(channel)
                assert "brawl.bot.v1.BotService" not in await services(channel)
            await env.server.stop(0.1)
            assert env.referee.accepting is False

    asyncio.run(scenario())


def test_graceful_stop_cancels_what_does_not_finish_in_the_grace() -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(SilentBot, "mute", games=["tinygame"])
            slow_clock = FAST.to_proto()
            slow_clock.max_strikes = 1000
            slow_clock.bank_time.FromSeconds(1000)
            runner = env.referee.start_match(
                game="tinygame",
                seats=[_spec("mute"), _spec("house:random")],
                seed=1,
                time_control=slow_clock,
            )
            await eventually(lambda: runner.pending is not None, "the match to ask the silent seat")
            assert runner.state is MatchState.RUNNING
            await env.server.stop(0.5)
            assert runner.state is MatchState.CANCELLED
            assert runner.replay is not None and "shutting down" in runner.replay.outcome.reason  # type: ignore[union-attr]
            verify(env.sink.replays[runner.match_id])
            with pytest.raises(StartError, match="shutting down"):
                env.referee.start_match(game="tinygame", seats=[_spec("house:random"), _spec("house:random")])

    asyncio.run(scenario())


def _spec(name: str) -> SeatSpec:
    if name.startswith("house:"):
        return SeatSpec(house_bot=name[6:])
    return SeatSpec(bot_id=BotId(name))


def test_older_finished_matches_keep_their_record_but_release_their_state() -> None:
    """Past the newest ``keep_finished_state`` finished matches, a match keeps what GetMatch shows
    (the number of decisions, the outcome, the incidents) and its final public view, but not the
    engine's state, the event log or the decisions: with 1 kept, the first of two finished matches
    is released, the second is not, and the stored replays are both whole."""

    async def scenario() -> None:
        async with referee_env(RefereeSettings(ping_interval=0.2, keep_finished_state=1)) as env:
            runners = []
            for n in range(2):
                r = env.start("scrumbrawl", ["house:random", "house:random"], seed=n + 1, match_id=f"k-{n}")
                await r.wait()
                runners.append(r)
            old, new = runners
            assert isinstance(old.recorder.match, ReleasedMatch) and old.recorder.replay.events == []
            assert old.recorder.replay.decisions == [] and old.replay is old.recorder.replay
            assert not isinstance(new.recorder.match, ReleasedMatch) and new.recorder.replay.events
            for n in range(2):
                verify(env.sink.replays[f"k-{n}"])  # the sink's replay is untouched
            assert env.sink.replays["k-0"].events

            async with env.api_channel() as channel:
                api = referee_pb2_grpc.RefereeServiceStub(channel)
                got = await api.GetMatch(referee_pb2.GetMatchRequest(match_id="k-0"))
                assert got.match.state == State.STATE_SUCCEEDED
                assert got.match.decision_count == len(env.sink.replays["k-0"].decisions)
                assert got.match.outcome.ranks == list(env.sink.replays["k-0"].outcome.ranks)
                watched = [m async for m in api.WatchMatch(referee_pb2.WatchMatchRequest(match_id="k-0"))]
                assert len(watched) == 1 and not watched[0].events
                assert watched[0].outcome.termination != bot_pb2.TERMINATION_UNSPECIFIED
                final = simulate(env.sink.replays["k-0"]).observe(None)
                assert watched[0].observation == codec.observation("scrumbrawl", final)
                whole = [m async for m in api.WatchMatch(referee_pb2.WatchMatchRequest(match_id="k-1"))]
                assert sum(len(m.events) for m in whole) == len(env.sink.replays["k-1"].events)

    asyncio.run(scenario())


def test_a_table_size_outside_the_games_info_is_refused_before_the_engine_sees_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The loose game's info takes 2 or 3 seats; its engine would take any number, so only a door
    # that reads the info refuses 4.
    from referee.core import registry
    from tests.conformance.tinygame import LooseGame

    monkeypatch.setitem(registry._LOADED, "loosegame", LooseGame())

    async def scenario() -> None:
        async with referee_env() as env, env.api_channel() as channel:
            api = referee_pb2_grpc.RefereeServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as exc:
                await api.StartMatch(
                    referee_pb2.StartMatchRequest(game="loosegame", seats=seats("a", "b", "c", "d"), match_id="m4")
                )
            assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "loosegame is played by 2 or 3 seats, got 4" in (exc.value.details() or "")
            # Refused input leaves nothing behind: no match under that id, and a good start still works.
            listed = await api.ListMatches(referee_pb2.ListMatchesRequest())
            assert [m.match_id for m in listed.matches] == []
            ok = await api.StartMatch(
                referee_pb2.StartMatchRequest(game="loosegame", seats=seats("house:random", "house:random"))
            )
            assert ok.match.match_id

    asyncio.run(scenario())
