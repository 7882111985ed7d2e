"""The hostile-client suite: issue 11's findings 1, 3, 4 and 7 tried against a real referee.

Each test runs an honest match between two well-behaved bots while a hostile client (``wire``,
written from the .proto files) tries one family of attacks; each attempt must get the status the
protocol documents, and the honest match must keep being served: it gains decisions during the
attack and records no incident (no timeout, strike or disconnect).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import grpc
import pytest
from brawl.bot.v1 import bot_pb2
from brawl.referee.v1 import referee_pb2
from google.protobuf.struct_pb2 import Struct

from common.seeding import new_seed
from referee.core import Decision, JSONDict, Option
from referee.core.registry import game_names
from referee.protocol.timecontrol import TimeSettings
from referee.server.hub import RefereeSettings
from referee.server.match import MatchRunner, MatchState
from referee.server.service import MAX_PRE_HELLO_ERRORS
from tests.referee.harness import Env, referee_env, wait_connected
from tests.referee.hostile import wire

State = referee_pb2.Match.State
HONEST_GAME = "scrumbrawl"
HONEST_TIME = TimeSettings(
    decision_time=2.0, bank_time=10.0, max_overrun=1.0, max_strikes=3, reconnect_grace=5.0, max_rtt_credit=0.05
)
QUICK = TimeSettings(
    decision_time=0.5, bank_time=1.0, max_overrun=0.25, max_strikes=3, reconnect_grace=0.5, max_rtt_credit=0.05
)


class PatientFirst:
    """An honest bot: the first option, after a short think, so its match lasts through an attack."""

    def choose(self, decision: Decision, observation: JSONDict, options: Sequence[Option]) -> str:
        time.sleep(0.01)
        return options[0].id


@asynccontextmanager
async def honest_match(env: Env) -> AsyncIterator[MatchRunner]:
    """Runs a match between two honest SDK bots for the block; checks it was served throughout."""
    env.connect(PatientFirst, "honest-a", games=[HONEST_GAME], max_matches=1)
    env.connect(PatientFirst, "honest-b", games=[HONEST_GAME], max_matches=1)
    await wait_connected(env, "honest-a", "honest-b")
    seed = new_seed()
    while seed.bit_length() < 40:  # long enough that its digits cannot appear in a response by chance
        seed = new_seed()
    runner = env.start(HONEST_GAME, ["honest-a", "honest-b"], seed=seed, time=HONEST_TIME, match_id="honest")
    while len(runner.recorder.replay.decisions) < 5:
        assert not runner.is_over(), "the honest match ended before the attack began"
        await asyncio.sleep(0.01)
    before = len(runner.recorder.replay.decisions)
    yield runner
    # Served during and after the attack: it keeps gaining decisions (a short attack may be over
    # before the next one, so wait for it rather than demand it already happened).
    await until(lambda: len(runner.recorder.replay.decisions) > before)
    assert not runner.recorder.replay.incidents, runner.recorder.replay.incidents
    outcome = runner.recorder.outcome()
    assert outcome is None or outcome.termination.value not in ("forfeit", "cancelled"), outcome


def seats(*players: str) -> list[referee_pb2.Seat]:
    return [
        referee_pb2.Seat(house_bot=p[6:]) if p.startswith("house:") else referee_pb2.Seat(bot_id=p) for p in players
    ]


def sessions_of(env: Env, bot_id: str) -> list[object]:
    return [s for s in env.referee.sessions.values() if s.identity.bot_id == bot_id]


async def until(check: object, timeout: float = 10.0) -> None:
    """Polls ``check()`` until true; fails with the check's name after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {check}"
        await asyncio.sleep(0.02)


# ----- finding 1: the internal API on the bot port, open, leaking, unbounded ------------------------


def test_the_bot_port_serves_and_lists_only_what_bots_may_call() -> None:
    """Finding 1: 'RefereeService ... is served, and listed by reflection, on the same port as
    BotService, with no credentials.'"""

    async def scenario() -> None:
        async with referee_env() as env, honest_match(env):
            assert await wire.reflected_services(env.address) == {
                "brawl.bot.v1.BotService",
                "grpc.health.v1.Health",
                "grpc.reflection.v1alpha.ServerReflection",
            }
            for method, (request_type, _) in wire.UNARY.items():
                for secret in (None, env.secret):  # not even the credential opens it on this port
                    code = await wire.status_of(env.address, method, request_type(), secret)
                    assert code == grpc.StatusCode.UNIMPLEMENTED, (method, code)
            assert await wire.watch_status(env.address, "honest", env.secret) == grpc.StatusCode.UNIMPLEMENTED

    asyncio.run(scenario())


def test_the_internal_api_refuses_every_call_without_the_right_credential() -> None:
    """Finding 1: 'CancelMatch lets anyone cancel any running match (a losing bot escapes its loss)';
    'GetMatch/ListMatches of a running match return its seed'. Without the credential, with a wrong
    one, or with a bot's own token, every method and reflection get UNAUTHENTICATED."""

    async def scenario() -> None:
        async with referee_env() as env, honest_match(env) as honest:
            bot_token = env.token("honest-a")
            requests = {
                "StartMatch": referee_pb2.StartMatchRequest(
                    game="tinygame", seats=seats("house:random", "house:random")
                ),
                "GetMatch": referee_pb2.GetMatchRequest(match_id="honest"),
                "CancelMatch": referee_pb2.CancelMatchRequest(match_id="honest", reason="I am losing"),
                "ListMatches": referee_pb2.ListMatchesRequest(),
                "ListBots": referee_pb2.ListBotsRequest(),
            }
            for secret in (None, "", "guess", env.secret[:-1], env.secret + "x", bot_token):
                for method, request in requests.items():
                    code = await wire.status_of(env.internal, method, request, secret)
                    assert code == grpc.StatusCode.UNAUTHENTICATED, (method, secret, code)
                assert await wire.watch_status(env.internal, "honest", secret) == grpc.StatusCode.UNAUTHENTICATED
                with pytest.raises(grpc.aio.AioRpcError) as exc:
                    await wire.reflected_services(env.internal, secret)
                assert exc.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert not honest.is_over(), "no refused CancelMatch touched the match"
            assert len(env.referee.matches) == 1, "no refused StartMatch started anything"

    asyncio.run(scenario())


def test_no_seed_of_a_running_match_even_with_the_credential() -> None:
    """Finding 1: 'a bot that reads its own match's seed knows the opponent's hand and deck order'."""

    async def scenario() -> None:
        async with referee_env() as env, honest_match(env) as honest:
            got = await wire.call(env.internal, "GetMatch", referee_pb2.GetMatchRequest(match_id="honest"), env.secret)
            listed = await wire.call(env.internal, "ListMatches", referee_pb2.ListMatchesRequest(), env.secret)
            for match in [got.match, *listed.matches]:
                assert match.state == State.STATE_RUNNING and not match.HasField("seed")
                assert len(match.seed_commitment) == 64
            assert str(honest.seed).encode() not in got.SerializeToString() + listed.SerializeToString()

    asyncio.run(scenario())


def test_start_match_refuses_absurd_values_unsafe_ids_and_too_many_pending_matches(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Finding 1: 'StartMatch accepts absurd time controls (decision time 1,000,000 s, 100,000
    rounds), any number of pending matches, and unsafe match ids (../x, NUL, newline: the newline
    forges log lines).' Each gets INVALID_ARGUMENT or RESOURCE_EXHAUSTED naming the value."""
    caplog.set_level(logging.DEBUG)

    def start(**kw: object) -> referee_pb2.StartMatchRequest:
        request = referee_pb2.StartMatchRequest(game="tinygame", seats=seats("house:random", "house:random"))
        for key, value in kw.items():
            if key == "time":
                request.time_control.CopyFrom(value)  # type: ignore[arg-type]
            elif key == "seats":
                del request.seats[:]
                request.seats.extend(value)  # type: ignore[arg-type]
            elif key == "labels":
                request.labels.update(value)  # type: ignore[call-overload]
            elif key == "config":
                config = Struct()
                config.update(value)  # type: ignore[arg-type]
                request.config.CopyFrom(config)
            else:
                setattr(request, key, value)
        return request

    def tc(**kw: float) -> bot_pb2.TimeControl:
        msg = bot_pb2.TimeControl()
        for key, value in kw.items():
            if key == "max_strikes":
                msg.max_strikes = int(value)
            else:
                getattr(msg, key).FromNanoseconds(int(value * 1e9))
        return msg

    bad = [
        (start(time=tc(decision_time=1_000_000)), "time_control.decision_time is 1e+06 s"),
        (start(time=tc(decision_time=0.0001)), "time_control.decision_time is 0.0001 s"),
        (start(time=tc(bank_time=100_000)), "time_control.bank_time is 100000 s"),
        (start(time=tc(max_overrun=3600)), "time_control.max_overrun is 3600 s"),
        (start(time=tc(reconnect_grace=86_400)), "time_control.reconnect_grace is 86400 s"),
        (start(time=tc(max_rtt_credit=60)), "time_control.max_rtt_credit is 60 s"),
        (start(time=tc(max_strikes=100_000)), "time_control.max_strikes is 100000"),
        (start(game="scrumbrawl", config={"max_rounds": 100_000}), "config.max_rounds is 100000"),
        (start(game="superfantasybrawl", config={"round_cap": 100_000}), "100000"),
        (start(match_id="../x"), "match_id '../x'"),
        (start(match_id="a\x00b"), "match_id 'a\\x00b'"),
        (start(match_id="m\n2026-12-01 INFO forged line"), "match_id 'm\\n2026-12-01 INFO forged line'"),
        (start(match_id="x" * 65), "match_id 'xxxxxxxx"),
        (start(request_id="r/../../etc"), "request_id 'r/../../etc'"),
        (start(seed=2**63), f"seed {2**63} is not below 2**63"),
        (start(join_timeout_seconds=1e9), "join_timeout_seconds is 1000000000.0"),
        (start(join_timeout_seconds=-1), "join_timeout_seconds is -1.0"),
        (start(labels={f"k{i}": "v" for i in range(40)}), "40 labels"),
        (start(labels={"k": "v" * 1000}), "label 'k' is too long"),
        (start(seats=seats(*["house:random"] * 9)), "9 seats"),
        (
            start(seats=[referee_pb2.Seat(house_bot="random", display_name="evil\nname")] * 2),
            "display_name 'evil\\nname'",
        ),
    ]

    async def scenario() -> None:
        settings = RefereeSettings(ping_interval=0.2, max_pending_matches=3)
        async with referee_env(settings) as env, honest_match(env):
            for request, text in bad:
                with pytest.raises(grpc.aio.AioRpcError) as exc:
                    await wire.call(env.internal, "StartMatch", request, env.secret)
                assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (text, exc.value.details())
                assert text in (exc.value.details() or ""), (text, exc.value.details())
            for bad_id in ("../x", "a\nb"):
                for method, request in (
                    ("GetMatch", referee_pb2.GetMatchRequest(match_id=bad_id)),
                    ("CancelMatch", referee_pb2.CancelMatchRequest(match_id=bad_id)),
                ):
                    code = await wire.status_of(env.internal, method, request, env.secret)
                    assert code == grpc.StatusCode.INVALID_ARGUMENT
            forged = referee_pb2.CancelMatchRequest(match_id="honest", reason="done\n2026-12-01 INFO forged line")
            assert (
                await wire.status_of(env.internal, "CancelMatch", forged, env.secret)
                == grpc.StatusCode.INVALID_ARGUMENT
            )
            assert set(env.referee.matches) == {"honest"}, "no refused request started a match"

            # The honest match is running, not pending: three matches waiting for absent bots fill the cap.
            for n in range(3):
                ok = start(request_id=f"wait-{n}", match_id=f"wait-{n}", seats=seats("absent", "house:random"))
                await wire.call(env.internal, "StartMatch", ok, env.secret)
            over = start(request_id="wait-3", seats=seats("absent", "house:random"))
            with pytest.raises(grpc.aio.AioRpcError) as exc:
                await wire.call(env.internal, "StartMatch", over, env.secret)
            assert exc.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "3 matches waiting" in (exc.value.details() or "")
            again = start(request_id="wait-1", match_id="wait-1", seats=seats("absent", "house:random"))
            replay = await wire.call(env.internal, "StartMatch", again, env.secret)
            assert replay.match.match_id == "wait-1", "a retried start of an accepted match is not refused"
            for n in range(3):
                await wire.call(
                    env.internal, "CancelMatch", referee_pb2.CancelMatchRequest(match_id=f"wait-{n}"), env.secret
                )

    asyncio.run(scenario())
    for record in caplog.records:
        assert "\n2026-12-01 INFO forged" not in record.getMessage()


def test_list_bots_shows_no_session_ids() -> None:
    """Finding 1: 'ListBots shows every bot's session ids.'"""

    async def scenario() -> None:
        async with referee_env() as env, honest_match(env):
            listed = await wire.call(env.internal, "ListBots", referee_pb2.ListBotsRequest(), env.secret)
            assert {b.bot_id for b in listed.bots} == {"honest-a", "honest-b"}
            blob = listed.SerializeToString()
            for link_id in env.referee.sessions:
                assert link_id.encode() not in blob
            assert "session_id" not in referee_pb2.ConnectedBot.DESCRIPTOR.fields_by_name

    asyncio.run(scenario())


# ----- finding 3: sessions outliving their streams -----------------------------------------------


def test_no_session_outlives_its_stream_whenever_the_stream_ends() -> None:
    """Finding 3: 'a client that cancels its stream right after Welcome leaves its session registered
    forever (5 of 30 quick open/close cycles). Leftovers are seated in new matches'."""

    async def scenario() -> None:
        async with referee_env() as env, honest_match(env):
            token = env.token("flaky", frozenset({"tinygame"}))
            for cycle in range(30):
                stream = await wire.RawStream(env.address, token).open()
                moment = cycle % 3
                if moment >= 1:
                    stream.send(wire.hello(["tinygame"]))
                if moment == 2:
                    await stream.next_of("welcome")
                stream.cancel()  # before the Hello, right after it, right after the Welcome
                await stream.close()
            await until(lambda: not sessions_of(env, "flaky"))
            # No leftover can be seated: a match for the bot waits for it to connect.
            started = await wire.call(
                env.internal,
                "StartMatch",
                referee_pb2.StartMatchRequest(
                    match_id="for-flaky", game="tinygame", seats=seats("flaky", "house:random")
                ),
                env.secret,
            )
            assert started.match.state == State.STATE_PENDING and not started.match.seats[0].connected
            live = await wire.RawStream(env.address, token).open()
            live.send(wire.hello(["tinygame"]))
            await live.next_of("welcome")
            start = await live.next_of("match_start")
            assert start.match_start.match_id == "for-flaky", "the live session, not a leftover, gets the seat"
            await live.close()
            await until(lambda: not sessions_of(env, "flaky"))

    asyncio.run(scenario())


# ----- finding 4: revoked tokens ------------------------------------------------------------------


def test_revoking_a_token_closes_its_live_sessions_and_their_seats_follow_the_grace_rules() -> None:
    """Finding 4: 'Revoking a token does not end the sessions already open with it; they keep
    receiving new matches.'"""

    async def scenario() -> None:
        settings = RefereeSettings(ping_interval=0.2, revalidate_interval=0.2)
        async with referee_env(settings) as env, honest_match(env):
            token = env.token("cheat", frozenset({"tinygame"}))
            playing = await wire.RawStream(env.address, token).open()
            playing.send(wire.hello(["tinygame"], max_matches=2))
            await playing.next_of("welcome")
            idle = await wire.RawStream(env.address, token).open()
            idle.send(wire.hello(["tinygame"]))
            await idle.next_of("welcome")
            runner = env.start("tinygame", ["cheat", "house:random"], time=QUICK, match_id="revoked-seat")
            await playing.next_of("match_start")
            env.store.revoke(token)
            assert await playing.ended() == grpc.StatusCode.UNAUTHENTICATED
            assert "revoked" in playing.details
            assert await idle.ended() == grpc.StatusCode.UNAUTHENTICATED
            await until(lambda: not sessions_of(env, "cheat"))
            replay = await asyncio.wait_for(runner.wait(), 10)
            assert replay is not None and replay.outcome is not None
            assert replay.outcome.termination.value == "forfeit" and replay.outcome.ranks[0] > replay.outcome.ranks[1]
            assert [i.kind for i in replay.incidents if i.seat == 0][:1] == ["disconnect"]
            again = await wire.RawStream(env.address, token).open()
            again.send(wire.hello(["tinygame"]))
            assert await again.ended() == grpc.StatusCode.UNAUTHENTICATED
            await again.close()

    asyncio.run(scenario())


def test_a_start_rechecks_the_tokens_of_the_sessions_it_would_seat() -> None:
    """Finding 4, between periodic re-checks: a StartMatch re-checks its bots' tokens first, so a
    session whose token was revoked a moment ago is closed instead of seated."""

    async def scenario() -> None:
        settings = RefereeSettings(ping_interval=0.2, revalidate_interval=3600)
        async with referee_env(settings) as env, honest_match(env):
            token = env.token("late-revoked", frozenset({"tinygame"}))
            stream = await wire.RawStream(env.address, token).open()
            stream.send(wire.hello(["tinygame"]))
            await stream.next_of("welcome")
            env.store.revoke(token)
            started = await wire.call(
                env.internal,
                "StartMatch",
                referee_pb2.StartMatchRequest(
                    match_id="not-for-you", game="tinygame", seats=seats("late-revoked", "house:random")
                ),
                env.secret,
            )
            assert not started.match.seats[0].connected
            assert await stream.ended() == grpc.StatusCode.UNAUTHENTICATED
            assert not any(m.WhichOneof("message") == "match_start" for m in stream.received)
            runner = env.referee.get("not-for-you")
            assert runner is not None and runner.state is MatchState.PENDING
            runner.cancel("test over")

    asyncio.run(scenario())


# ----- finding 7: the protocol as documented ------------------------------------------------------


def test_before_the_hello_garbage_gets_malformed_and_an_answer_out_of_order_and_the_stream_stays_open() -> None:
    """Finding 7: 'garbage bytes before Hello end the stream with INVALID_ARGUMENT where the docs say
    MALFORMED and an open stream; an Answer before Hello ends it with FAILED_PRECONDITION where the
    ErrorCode comment says OUT_OF_ORDER'."""

    async def scenario() -> None:
        async with referee_env() as env, honest_match(env):
            token = env.token("sloppy", frozenset({"tinygame"}))
            stream = await wire.RawStream(env.address, token).open()
            stream.send(b"\xff\xff\xff\xff garbage")
            first = await stream.next_of("error")
            assert first.error.code == bot_pb2.ERROR_CODE_MALFORMED and "before the Hello" in first.error.message
            stream.send(wire.answer("m", "d", "o"))
            second = await stream.next_of("error")
            assert second.error.code == bot_pb2.ERROR_CODE_OUT_OF_ORDER
            stream.send(b"")  # a ConnectRequest with no field set
            third = await stream.next_of("error")
            assert third.error.code == bot_pb2.ERROR_CODE_MALFORMED
            stream.send(wire.hello(["tinygame"]))
            welcome = await stream.next_of("welcome")
            assert welcome.welcome.bot_id == "sloppy" and stream.status is None
            await stream.close()

            flood = await wire.RawStream(env.address, token).open()
            for _ in range(MAX_PRE_HELLO_ERRORS):
                flood.send(b"\xff junk")
            assert await flood.ended() == grpc.StatusCode.FAILED_PRECONDITION
            errors = [m for m in flood.received if m.WhichOneof("message") == "error"]
            assert len(errors) == MAX_PRE_HELLO_ERRORS
            await flood.close()

    asyncio.run(scenario())


def test_an_empty_hello_games_means_every_game_the_token_allows_and_welcome_lists_them() -> None:
    """Finding 7: 'with an empty Hello.games and a token for every game, Welcome answers games=[]'."""

    async def scenario() -> None:
        async with referee_env() as env, honest_match(env):
            everything = env.token("omnivore")  # a token naming no game allows every game
            one = env.token("specialist", frozenset({"scrumbrawl"}))
            for token, expected in ((everything, sorted(game_names())), (one, ["scrumbrawl"])):
                stream = await wire.RawStream(env.address, token).open()
                stream.send(wire.hello([]))
                welcome = await stream.next_of("welcome")
                assert list(welcome.welcome.games) == expected
                await stream.close()
            refused = await wire.RawStream(env.address, one).open()
            refused.send(wire.hello(["superfantasybrawl"]))
            assert await refused.ended() == grpc.StatusCode.FAILED_PRECONDITION
            await refused.close()

    asyncio.run(scenario())


def test_seat_zero_and_no_seat_are_told_apart_in_events() -> None:
    """Finding 7: 'seat 0 is indistinguishable from "no seat" in events (proto3 zero values)'. The
    typed events' seat is optional: set (even to 0) exactly when the engine's event names a seat."""

    async def scenario() -> None:
        async with referee_env() as env, honest_match(env) as honest:
            await asyncio.wait_for(honest.wait(), 60)
            updates = []
            async with grpc.aio.insecure_channel(env.internal) as channel:
                rpc = channel.unary_stream(
                    wire.REFEREE + "WatchMatch",
                    request_serializer=lambda m: m.SerializeToString(),
                    response_deserializer=referee_pb2.WatchMatchResponse.FromString,
                )
                async for update in rpc(
                    referee_pb2.WatchMatchRequest(match_id="honest"), metadata=wire.bearer(env.secret)
                ):
                    updates.append(update)
            events = [e for u in updates for e in u.events]
            replay = env.sink.replays["honest"]
            by_index = dict(enumerate(replay.events))  # a spectator numbers the public events 0, 1, 2...
            with_seat_zero = without_seat = 0
            for event in events:
                typed = event.scrumbrawl
                names_seat = "seat" in by_index[event.index].get("data", {})
                assert typed.HasField("seat") == names_seat, (event.kind, by_index[event.index])
                with_seat_zero += names_seat and typed.seat == 0
                without_seat += not names_seat
            assert with_seat_zero and without_seat, "both cases occurred, so the check above means something"

    asyncio.run(scenario())
