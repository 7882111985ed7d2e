"""Batches on the bot stream (``Hello.batching``, ``ResponseBatch``, ``RequestBatch``).

A bot in many matches at once gets the messages waiting for it at the same moment as one stream
message, and may answer several requests in one; docs/bot-protocol.md ("Batches"). These tests
drive a real referee on loopback with a raw client written from the .proto (no SDK), so they see
exactly what crosses the stream: batches form only for a session that asked, every element is a
message that session may see, and a RequestBatch is handled element by element, with clear
errors for what may not be batched.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from brawl.bot.v1 import bot_pb2

from referee.server.hub import Outbox
from referee.server.outgoing import MAX_BATCH, as_bytes, batch
from tests.referee.bots import FirstBot
from tests.referee.harness import Env, referee_env, wait_connected
from tests.referee.hostile import wire
from tests.referee.test_deltas import CALM

GAME = "tinygame"
MATCHES = 8


def flat(received: list[bot_pb2.ConnectResponse]) -> list[bot_pb2.ConnectResponse]:
    """The referee messages in the order they came, with each batch's elements in its place."""
    out: list[bot_pb2.ConnectResponse] = []
    for m in received:
        out.extend(m.batch.messages if m.WhichOneof("message") == "batch" else [m])
    return out


def hello(batching: bool) -> bytes:
    return bot_pb2.ConnectRequest(
        hello=bot_pb2.Hello(games=[GAME], max_matches=MATCHES, client="raw/1", batching=batching)
    ).SerializeToString()


def answer_of(msg: bot_pb2.ConnectResponse) -> bot_pb2.ConnectRequest:
    req = msg.decision_request
    return bot_pb2.ConnectRequest(
        answer=bot_pb2.Answer(match_id=req.match_id, decision_id=req.decision_id, option_id=req.options[0].id)
    )


async def play_raw(env: Env, stream: wire.RawStream, runners: list[Any], answer_in_batches: bool) -> None:
    """Answers every request ``stream`` gets with its first option until every match is over.

    The requests of one stream message are answered together: as one RequestBatch when
    ``answer_in_batches``, else one message each.
    """
    seen = 0
    while not all(r.is_over() for r in runners):
        if seen == len(stream.received):
            assert stream.status is None, (stream.status, stream.details)
            await asyncio.sleep(0.005)
            continue
        msg = stream.received[seen]
        seen += 1
        elements = msg.batch.messages if msg.WhichOneof("message") == "batch" else [msg]
        answers = [answer_of(m) for m in elements if m.WhichOneof("message") == "decision_request"]
        if answer_in_batches and len(answers) > 1:
            stream.send(bot_pb2.ConnectRequest(batch=bot_pb2.RequestBatch(messages=answers)).SerializeToString())
        else:
            for a in answers:
                stream.send(a.SerializeToString())


async def raw_bot(env: Env, bot_id: str, batching: bool) -> wire.RawStream:
    stream = await wire.RawStream(env.address, env.token(bot_id, frozenset({GAME}))).open()
    stream.send(hello(batching))
    welcome = await stream.next_of("welcome")
    assert welcome.welcome.max_batch == MAX_BATCH
    return stream


async def eight_matches(env: Env, bot_id: str, batching: bool) -> tuple[wire.RawStream, list[Any]]:
    """A raw bot ``bot_id`` against an SDK bot, eight matches started at once, played to the end."""
    env.connect(FirstBot, "other", games=[GAME])
    stream = await raw_bot(env, bot_id, batching=batching)
    await wait_connected(env, "other", bot_id)
    runners = [env.start(GAME, [bot_id, "other"], seed=s, time=CALM) for s in range(MATCHES)]
    await asyncio.wait_for(play_raw(env, stream, runners, answer_in_batches=batching), 60)
    return stream, runners


def test_a_batching_bot_gets_waiting_messages_as_one_batch_and_may_answer_in_one() -> None:
    """Eight matches start at once against a batching raw bot: their MatchStarts and first requests
    wait together, so they come as ResponseBatches; the bot answers each batch's requests with one
    RequestBatch, and every answer counts (no strike, no default, every match played out)."""

    async def scenario() -> None:
        async with referee_env() as env:
            stream, runners = await eight_matches(env, "batcher", batching=True)
            batches = [m.batch for m in stream.received if m.WhichOneof("message") == "batch"]
            assert batches, "no ResponseBatch although eight matches started at once"
            for b in batches:
                assert 2 <= len(b.messages) <= MAX_BATCH
                assert all(m.WhichOneof("message") not in ("welcome", "batch", None) for m in b.messages)
            # Each element is this bot's own: a match it sits in, its own seat (0 in every match).
            mine = {r.match_id for r in runners}
            for m in flat(stream.received):
                kind = m.WhichOneof("message")
                if kind in ("match_start", "decision_request", "match_end"):
                    body = getattr(m, kind)
                    assert body.match_id in mine and body.seat == 0, m
            for r in runners:
                await r.wait()
                assert r.replay is not None and not r.replay.incidents, r.replay and r.replay.incidents
                assert all(d.source != "default" for d in r.replay.decisions)
            assert [m for m in flat(stream.received) if m.WhichOneof("message") == "error"] == []
            await stream.close()

    asyncio.run(scenario())


def test_a_bot_that_did_not_ask_for_batches_never_gets_one() -> None:
    """The same eight matches against a raw bot whose Hello leaves ``batching`` unset: one message
    per stream message, as before batches existed; the matches play out the same way."""

    async def scenario() -> None:
        async with referee_env() as env:
            stream, runners = await eight_matches(env, "plain", batching=False)
            assert stream.received and all(m.WhichOneof("message") != "batch" for m in stream.received)
            for r in runners:
                await r.wait()
                assert r.replay is not None and not r.replay.incidents
            await stream.close()

    asyncio.run(scenario())


def test_a_request_batch_is_handled_element_by_element_with_clear_errors() -> None:
    """What may not be batched is refused element by element (a Hello: OUT_OF_ORDER; a batch in a
    batch or an empty element: MALFORMED) while the batch's good answer still counts; a batch of
    more than Welcome.max_batch elements is refused whole (MALFORMED), its good answer unused. Any
    session may send a RequestBatch: this one did not ask for ResponseBatches."""

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "other", games=[GAME])
            stream = await raw_bot(env, "mixed", batching=False)
            await wait_connected(env, "other", "mixed")
            runner = env.start(GAME, ["mixed", "other"], seed=3, time=CALM)
            first = await stream.next_of("decision_request")
            good = answer_of(first)

            too_many = [bot_pb2.ConnectRequest(pong=bot_pb2.Pong(ping_id=0))] * MAX_BATCH + [good]
            stream.send(bot_pb2.ConnectRequest(batch=bot_pb2.RequestBatch(messages=too_many)).SerializeToString())
            refused = await stream.next_of("error")
            assert refused.error.code == bot_pb2.ERROR_CODE_MALFORMED and str(MAX_BATCH) in refused.error.message
            await asyncio.sleep(0.2)
            assert len(runner.recorder.replay.decisions) == 0, "an answer of a refused batch was applied"

            nested = bot_pb2.ConnectRequest(batch=bot_pb2.RequestBatch(messages=[good]))
            hello_again = bot_pb2.ConnectRequest(hello=bot_pb2.Hello(games=[GAME]))
            mixed = [hello_again, nested, bot_pb2.ConnectRequest(), good]
            stream.send(bot_pb2.ConnectRequest(batch=bot_pb2.RequestBatch(messages=mixed)).SerializeToString())
            codes = [(await stream.next_of("error")).error for _ in range(3)]
            assert [e.code for e in codes] == [
                bot_pb2.ERROR_CODE_OUT_OF_ORDER,
                bot_pb2.ERROR_CODE_MALFORMED,
                bot_pb2.ERROR_CODE_MALFORMED,
            ], codes
            assert "inside a RequestBatch" in codes[1].message
            while len(runner.recorder.replay.decisions) == 0:
                assert stream.status is None
                await asyncio.sleep(0.01)
            assert runner.recorder.replay.decisions[0].option_id == good.answer.option_id
            assert runner.recorder.replay.decisions[0].source != "default"
            runner.cancel("test over")
            await stream.close()

    asyncio.run(scenario())


def test_a_batch_before_the_hello_is_out_of_order_and_the_stream_stays_open() -> None:
    """A RequestBatch is a message like any other before the Hello: refused as OUT_OF_ORDER."""

    async def scenario() -> None:
        async with referee_env() as env:
            stream = await wire.RawStream(env.address, env.token("early", frozenset({GAME}))).open()
            stream.send(bot_pb2.ConnectRequest(batch=bot_pb2.RequestBatch()).SerializeToString())
            err = await stream.next_of("error")
            assert err.error.code == bot_pb2.ERROR_CODE_OUT_OF_ORDER
            stream.send(hello(True))
            await stream.next_of("welcome")
            assert stream.status is None
            await stream.close()

    asyncio.run(scenario())


def test_the_outbox_batches_within_its_limits_and_never_past_the_end_of_the_stream() -> None:
    """``Outbox.take_batch`` takes what waits behind the first message up to the element and byte
    limits, leaves the rest in order, and stops at the end-of-stream mark; the batch parses to the
    same messages in the same order."""
    pings = [bot_pb2.ConnectResponse(ping=bot_pb2.Ping(ping_id=i)) for i in range(10)]

    async def scenario() -> None:
        box = Outbox()
        for p in pings:
            box.put_nowait(p)

        async def take(limit: int, max_bytes: int) -> list[bot_pb2.ConnectResponse]:
            first = await box.get()  # as the session's writer does
            assert first is not None
            parts = box.take_batch(as_bytes(first), limit, max_bytes)
            parsed = bot_pb2.ConnectResponse.FromString(batch(parts))
            assert list(parsed.batch.messages) == [bot_pb2.ConnectResponse.FromString(b) for b in parts]
            return list(parsed.batch.messages)

        assert await take(4, 1 << 20) == pings[:4]
        assert box.qsize() == 6
        size = len(as_bytes(pings[4]))
        assert await take(64, size * 3) == pings[4:7]  # the byte limit, not the element limit, cut it
        box.put_nowait(None)
        box.put_nowait(pings[0])
        assert await take(64, 1 << 20) == pings[7:10]
        assert box.qsize() == 2  # the end-of-stream mark and what came after it stay
        assert await box.get() is None

    asyncio.run(scenario())


def test_the_sdk_asks_for_batches_and_plays_the_same() -> None:
    """The SDK's default Hello asks for batches; with many matches it gets some, and its bots
    finish every match without an error or a strike (they see one message at a time)."""

    async def scenario() -> None:
        async with referee_env() as env:
            a = env.connect(FirstBot, "sdk-a", games=[GAME])
            b = env.connect(FirstBot, "sdk-b", games=[GAME], batching=False)
            await wait_connected(env, "sdk-a", "sdk-b")
            batching = {str(s.identity.bot_id): s.batching for s in env.referee.sessions.values()}
            assert batching == {"sdk-a": True, "sdk-b": False}
            runners = [env.start(GAME, ["sdk-a", "sdk-b"], seed=s, time=CALM) for s in range(MATCHES)]
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in runners)), 60)
            for r in runners:
                assert r.replay is not None and not r.replay.incidents
            assert a.errors == [] and b.errors == []

    asyncio.run(scenario())


def test_a_stream_message_too_big_for_the_referee_still_ends_the_stream() -> None:
    """A RequestBatch is still one stream message: past Welcome.max_message_bytes the stream ends
    with RESOURCE_EXHAUSTED, as for any other message."""

    async def scenario() -> None:
        async with referee_env() as env:
            stream = await raw_bot(env, "huge", batching=True)
            note = "x" * 1100
            big = [
                bot_pb2.ConnectRequest(answer=bot_pb2.Answer(match_id="m", decision_id="d", option_id="o", note=note))
            ] * 63
            payload = bot_pb2.ConnectRequest(batch=bot_pb2.RequestBatch(messages=big)).SerializeToString()
            assert len(payload) > env.referee.settings.max_message_bytes
            stream.send(payload)
            assert await stream.ended() == grpc.StatusCode.RESOURCE_EXHAUSTED
            await stream.close()

    asyncio.run(scenario())
