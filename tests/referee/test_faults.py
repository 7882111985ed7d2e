"""Faulty bots: each fault ends as the protocol says, and other matches keep running meanwhile.

Partitions: late answer (default applied, strike, stale late answer), illegal answer (retry
allowed, then forfeit at the strike limit), malformed bytes and empty fields, oversized message,
missing / wrong / revoked token, disconnect then reconnect inside the grace, a bot that never
answers, a bot process that dies mid-match (outside the grace). Every replay verifies.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from brawl.bot.v1 import bot_pb2

from referee.core import SeededChance, Termination, get_game
from referee.core.replay import Replay, verify
from referee.protocol.timecontrol import TimeSettings
from referee.sdk import BotClient, BotConnectionError
from referee.server.match import MatchRunner, MatchState
from tests.referee.bots import FirstBot, IllegalAlwaysBot, IllegalOnceBot, SilentBot, SlowFirstBot
from tests.referee.harness import FAST, GAMES, Env, eventually, referee_env, wait_connected

ROOT = Path(__file__).resolve().parents[2]


def kinds(replay: Replay | None) -> list[str]:
    assert replay is not None
    return [i.kind for i in replay.incidents]


async def control_match(env: Env, game: str) -> MatchRunner:
    """A healthy match run beside each fault, to show the referee keeps serving."""
    env.connect(FirstBot, "good1", games=[game])
    env.connect(FirstBot, "good2", games=[game])
    return env.start(game, ["good1", "good2"], seed=5)


async def finish(*runners: MatchRunner, timeout: float = 30) -> None:
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in runners)), timeout)
    for r in runners:
        assert r.replay is not None, r.error
        verify(r.replay)


def codes(client: BotClient) -> list[str]:
    return [bot_pb2.ErrorCode.Name(e.code) for e in client.errors]


@pytest.mark.parametrize("game", GAMES)
def test_late_answer_gets_the_default_a_strike_and_a_stale_error(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            SlowFirstBot.delay = 1.2  # past decision_time 0.5 + overrun 0.25
            slow = env.connect(SlowFirstBot, "slow", games=[game])
            env.connect(FirstBot, "fast", games=[game])
            control = await control_match(env, game)
            r = env.start(game, ["slow", "fast"], seed=_seed_where_seat0_decides_first(game))
            await finish(r, control)
            assert r.state is MatchState.SUCCEEDED
            assert r.replay is not None and r.replay.outcome is not None
            assert r.replay.outcome.termination is not Termination.FORFEIT
            assert kinds(r.replay) == ["timeout"]
            first = next(d for d in r.replay.decisions if d.seat == 0)
            assert first.source == "default"
            assert r.seats[0].strikes == 1
            assert abs(r.seats[0].bank - (FAST.bank_time - FAST.max_overrun)) < 0.05
            # The late answer arrives after the timeout and is refused.
            await eventually(
                lambda: {"ERROR_CODE_STALE_DECISION", "ERROR_CODE_UNKNOWN_MATCH"} & set(codes(slow)),
                "the late answer's refusal",
            )
            assert "ERROR_CODE_TIMEOUT" in codes(slow)
            assert control.state is MatchState.SUCCEEDED

    asyncio.run(scenario())


def _seed_where_seat0_decides_first(game: str) -> int:
    """A seed whose first decision is seat 0's (Super Fantasy Brawl draws the first player)."""
    g = get_game(game)
    for seed in range(1, 100):
        match = g.new_match(g.default_config(2), 2, SeededChance(seed))
        decision = match.to_move()
        if decision is not None and decision.seat == 0:
            return seed
    raise AssertionError(f"no seed in 1..99 gives seat 0 the first decision of {game}")


@pytest.mark.parametrize("game", GAMES)
def test_illegal_answer_is_rejected_with_the_reason_and_may_be_retried(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            bad = env.connect(IllegalOnceBot, "once", games=[game])
            env.connect(FirstBot, "fast", games=[game])
            r = env.start(game, ["once", "fast"], seed=2)
            await finish(r)
            assert r.state is MatchState.SUCCEEDED
            assert kinds(r.replay) == ["illegal_answer"]
            assert "'no-such-option' is not an offered option" in r.replay.incidents[0].detail  # type: ignore[union-attr]
            err = bad.errors[0]
            assert err.code == bot_pb2.ERROR_CODE_ILLEGAL_OPTION and err.retry_allowed and err.strikes == 1
            assert "no-such-option" in err.message

    asyncio.run(scenario())


@pytest.mark.parametrize("game", GAMES)
def test_always_illegal_bot_forfeits_at_the_strike_limit(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            bad = env.connect(IllegalAlwaysBot, "bad", games=[game])
            env.connect(FirstBot, "fast", games=[game])
            control = await control_match(env, game)
            r = env.start(game, ["fast", "bad"], seed=3)
            await finish(r, control)
            o = r.replay.outcome  # type: ignore[union-attr]
            assert o is not None and o.termination is Termination.FORFEIT and o.ranks == (1, 2)
            assert kinds(r.replay).count("illegal_answer") == FAST.max_strikes
            assert kinds(r.replay)[-1] == "forfeit"
            assert "ERROR_CODE_FORFEITED" in codes(bad)
            assert control.state is MatchState.SUCCEEDED

    asyncio.run(scenario())


@pytest.mark.parametrize("game", GAMES)
def test_bot_that_never_answers_forfeits_and_never_hangs_the_match(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(SilentBot, "mute", games=[game])
            env.connect(FirstBot, "fast", games=[game])
            control = await control_match(env, game)
            r = env.start(game, ["mute", "fast"], seed=4)
            await finish(r, control, timeout=15)
            o = r.replay.outcome  # type: ignore[union-attr]
            assert o is not None and o.termination is Termination.FORFEIT and o.ranks == (2, 1)
            assert kinds(r.replay).count("timeout") == FAST.max_strikes
            assert all(d.source == "default" for d in r.replay.decisions if d.seat == 0)  # type: ignore[union-attr]
            assert control.state is MatchState.SUCCEEDED

    asyncio.run(scenario())


async def raw_stream(
    env: Env, token: str | None, messages: list[bytes]
) -> tuple[list[bot_pb2.ConnectResponse], grpc.aio.AioRpcError | None]:
    """Sends raw bytes on a Connect stream; returns what came back until the stream ended or went quiet."""
    async with grpc.aio.insecure_channel(env.address) as channel:
        method = channel.stream_stream(
            "/brawl.bot.v1.BotService/Connect",
            request_serializer=lambda b: b,
            response_deserializer=bot_pb2.ConnectResponse.FromString,
        )
        metadata = (("authorization", f"Bearer {token}"),) if token else ()

        async def requests():  # type: ignore[no-untyped-def]
            for m in messages:
                yield m
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)

        call = method(requests(), metadata=metadata)
        got: list[bot_pb2.ConnectResponse] = []
        try:
            async for msg in call:
                got.append(msg)
                if len(got) > 20:
                    break
        except grpc.aio.AioRpcError as exc:
            return got, exc
        return got, None


HELLO = bot_pb2.ConnectRequest(hello=bot_pb2.Hello(games=["tinygame"], max_matches=1)).SerializeToString()


@pytest.mark.parametrize("game", GAMES)
def test_malformed_messages_get_a_clear_error_and_the_stream_stays_open(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            control = await control_match(env, game)
            empty = bot_pb2.ConnectRequest().SerializeToString()
            no_ids = bot_pb2.ConnectRequest(answer=bot_pb2.Answer(option_id="x")).SerializeToString()
            hello = bot_pb2.ConnectRequest(hello=bot_pb2.Hello(games=[game])).SerializeToString()
            got, err = await raw_stream(env, env.token("raw"), [hello, b"\xff\xff\xff\xff", empty, hello, no_ids])
            kinds_ = [m.WhichOneof("message") for m in got]
            assert kinds_[0] == "welcome"
            errors = [m.error for m in got if m.HasField("error")]
            assert [bot_pb2.ErrorCode.Name(e.code) for e in errors] == [
                "ERROR_CODE_MALFORMED",
                "ERROR_CODE_MALFORMED",
                "ERROR_CODE_OUT_OF_ORDER",
                "ERROR_CODE_UNKNOWN_MATCH",
            ]
            assert "cannot parse a ConnectRequest" in errors[0].message
            assert err is None  # the referee never ended the stream
            await finish(control)
            assert control.state is MatchState.SUCCEEDED

    asyncio.run(scenario())


@pytest.mark.parametrize("game", GAMES)
def test_oversized_message_ends_only_that_stream(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            control = await control_match(env, game)
            huge = bot_pb2.ConnectRequest(
                answer=bot_pb2.Answer(match_id="m", decision_id="d", option_id="x" * 200_000)
            ).SerializeToString()
            hello = bot_pb2.ConnectRequest(hello=bot_pb2.Hello(games=[game])).SerializeToString()
            got, err = await raw_stream(env, env.token("big"), [hello, huge])
            assert got[0].HasField("welcome")
            assert err is not None and err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "larger than max" in (err.details() or "")
            await finish(control)
            assert control.state is MatchState.SUCCEEDED

    asyncio.run(scenario())


def test_wrong_missing_and_revoked_tokens_are_unauthenticated() -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            bad = BotClient(FirstBot, env.address, "brawl_not-a-real-token")
            with pytest.raises(BotConnectionError) as exc:
                await asyncio.wait_for(bad.run(), 5)
            assert exc.value.code == grpc.StatusCode.UNAUTHENTICATED
            assert "unknown or revoked token" in str(exc.value)

            got, err = await raw_stream(env, None, [HELLO])
            assert got == [] and err is not None and err.code() == grpc.StatusCode.UNAUTHENTICATED
            assert "authorization: Bearer" in (err.details() or "")

            token = env.token("gone")
            env.store.revoke(token)
            revoked = BotClient(FirstBot, env.address, token)
            with pytest.raises(BotConnectionError, match="UNAUTHENTICATED"):
                await asyncio.wait_for(revoked.run(), 5)

            wrong_game = BotClient(
                FirstBot, env.address, env.token("only-sfb", frozenset({"superfantasybrawl"})), games=["tinygame"]
            )
            with pytest.raises(BotConnectionError, match="FAILED_PRECONDITION"):
                await asyncio.wait_for(wrong_game.run(), 5)

    asyncio.run(scenario())


def cancel_on_loop(loop: asyncio.AbstractEventLoop | None, action: Callable[[], object]) -> None:
    """Runs ``action`` on the client's event loop from the bot's thread and returns once it has run."""
    assert loop is not None

    async def run() -> None:
        action()

    asyncio.run_coroutine_threadsafe(run(), loop).result(timeout=20)


class DroppingBot:
    """Drops its connection once, on its fifth decision, then plays on after reconnecting."""

    client: BotClient | None = None
    dropped = False

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, decision, observation, options):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.calls == 5 and not DroppingBot.dropped and DroppingBot.client is not None:
            DroppingBot.dropped = True
            call = DroppingBot.client._call
            # The stream is gone (the cancel has run on the client's loop) before this answer is sent.
            cancel_on_loop(DroppingBot.loop, call.cancel)
        return options[0].id


@pytest.mark.parametrize("game", GAMES)
def test_disconnect_then_reconnect_within_grace_resumes_the_match(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            DroppingBot.dropped = False
            DroppingBot.loop = asyncio.get_running_loop()  # type: ignore[attr-defined]
            DroppingBot.client = env.connect(DroppingBot, "drop", games=[game])
            env.connect(FirstBot, "fast", games=[game])
            control = await control_match(env, game)
            r = env.start(game, ["drop", "fast"], seed=6)
            await finish(r, control)
            assert DroppingBot.dropped
            assert r.state is MatchState.SUCCEEDED
            assert r.replay is not None and r.replay.outcome is not None
            assert r.replay.outcome.termination is not Termination.FORFEIT
            ks = kinds(r.replay)
            assert ks[:2] == ["disconnect", "reconnect"], ks
            assert DroppingBot.client.connections == 2
            assert control.state is MatchState.SUCCEEDED

    asyncio.run(scenario())


@pytest.mark.parametrize("game", GAMES)
def test_bot_process_crash_mid_match_forfeits_after_the_grace(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            token = env.token("crash")
            env.connect(FirstBot, "fast", games=[game])
            control = await control_match(env, game)
            r = env.start(game, ["crash", "fast"], seed=7, join_timeout=20)
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "service.cli",
                "bot",
                "run",
                "tests.referee.bots:CrashBot",
                "--server",
                env.address,
                "--token",
                token,
                "--games",
                game,
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            status = await asyncio.wait_for(proc.wait(), 30)
            assert status == 3, (await proc.stderr.read()).decode()[-2000:]  # type: ignore[union-attr]
            await finish(r, control)
            o = r.replay.outcome  # type: ignore[union-attr]
            assert o is not None and o.termination is Termination.FORFEIT and o.ranks == (2, 1)
            assert kinds(r.replay)[0] == "disconnect" and kinds(r.replay)[-1] == "forfeit"
            assert "grace" in r.replay.incidents[-1].detail  # type: ignore[union-attr]
            assert control.state is MatchState.SUCCEEDED

    asyncio.run(scenario())


class StopAfterThreeBot:
    """Plays three decisions, then stops its own client for good (no reconnect)."""

    client: BotClient | None = None
    loop: asyncio.AbstractEventLoop | None = None

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, decision, observation, options):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.calls == 3 and StopAfterThreeBot.client is not None and StopAfterThreeBot.loop is not None:
            cancel_on_loop(StopAfterThreeBot.loop, StopAfterThreeBot.client.stop)
        return options[0].id


@pytest.mark.parametrize("game", GAMES)
def test_seats_move_to_another_live_session_of_the_same_bot(game: str) -> None:
    async def scenario() -> None:
        async with referee_env() as env:
            StopAfterThreeBot.loop = asyncio.get_running_loop()
            StopAfterThreeBot.client = env.connect(StopAfterThreeBot, "twin", games=[game], max_matches=1)
            await wait_connected(env, "twin")  # connected first: it wins the tie for the seat
            env.connect(FirstBot, "twin", games=[game], max_matches=1)
            env.connect(FirstBot, "fast", games=[game])
            await wait_connected(env, "fast")
            await eventually(
                lambda: sum(s.identity.bot_id == "twin" for s in env.referee.sessions.values()) == 2,
                "the second session of the bot",
            )
            sessions = [s for s in env.referee.sessions.values() if s.identity.bot_id == "twin"]
            assert len(sessions) == 2
            r = env.start(game, ["twin", "fast"], seed=8)
            await finish(r)
            assert r.state is MatchState.SUCCEEDED
            assert r.replay is not None and r.replay.outcome is not None
            assert r.replay.outcome.termination is not Termination.FORFEIT
            assert kinds(r.replay)[:2] == ["disconnect", "reconnect"], r.replay.incidents

    asyncio.run(scenario())


@pytest.mark.parametrize("game", GAMES)
def test_an_answer_to_a_match_the_session_has_no_seat_in_is_refused_and_changes_nothing(game: str) -> None:
    """A bot that knows another match's id and its pending decision id (both guessable from the
    source) answers it: UNKNOWN_MATCH comes back, and the decision stays pending for its seat,
    with no strike and no incident, until that seat's own deadline."""

    async def scenario() -> None:
        calm = TimeSettings(decision_time=30, bank_time=60)
        async with referee_env() as env:
            env.connect(SilentBot, "mute", games=[game])
            env.connect(FirstBot, "good", games=[game])
            await wait_connected(env, "mute", "good")
            r = env.start(game, ["mute", "good"], seed=3, time=calm)
            await eventually(
                lambda: r.pending is not None and r.pending.decision.seat == 0 and r.pending.request is not None,
                "the silent seat to be asked",
            )
            p = r.pending
            assert p is not None
            hello = bot_pb2.ConnectRequest(hello=bot_pb2.Hello(games=[game])).SerializeToString()
            forged = bot_pb2.ConnectRequest(
                answer=bot_pb2.Answer(match_id=r.match_id, decision_id=p.decision_id, option_id=p.options[0].id)
            ).SerializeToString()
            got, err = await raw_stream(env, env.token("intruder"), [hello, forged])
            errors = [m.error for m in got if m.HasField("error")]
            assert [bot_pb2.ErrorCode.Name(e.code) for e in errors] == ["ERROR_CODE_UNKNOWN_MATCH"]
            assert err is None
            assert r.pending is p and p.answer is None
            assert r.seats[0].strikes == 0 and r.recorder.replay.incidents == []
            r.cancel("test over")
            await r.wait()

    asyncio.run(scenario())
