"""The match journal's JSON: orjson now writes it, and a journal the previous release wrote still resumes.

Issue 25 ("orjson for replays, frames and journal entries"): ``referee.server.journal`` wrote each
start record and log entry with the standard library (``json.dumps(..., separators=(",", ":"))``,
non-ASCII as ``\\u`` escapes). A deployment upgraded mid-match holds journals in that form; a
referee of the new release must adopt and finish them, and a referee of the old release must
read what the new one writes (both are plain JSON).
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid

import pytest
import redis.asyncio as aioredis

from referee.core import register
from referee.core.ids import MatchId
from referee.protocol.timecontrol import TimeSettings
from referee.server import journal as journals
from referee.server.auth import MemoryTokenStore
from referee.server.hub import RefereeSettings
from referee.server.match import MatchState, SeatSpec
from referee.server.service import create_server
from referee.server.sinks import MemoryResultSink
from tests.conformance.tinygame import TinyGame

register(TinyGame())

REDIS = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
SEED = 7
KEPT = 3
"""Decisions the old journal holds before its referee died."""


def old_dumps(value: object) -> str:
    """What the previous release wrote: the standard library's compact JSON, ASCII with escapes."""
    return json.dumps(value, separators=(",", ":"))


async def _played() -> list[tuple[int, str]]:
    """The (seat, option id) of each decision of a whole tinygame match between house bots."""
    sink = MemoryResultSink()
    server = create_server("127.0.0.1:0", tokens=MemoryTokenStore(), sink=sink, secret="test-x")
    await server.start()
    try:
        runner = server.referee.start_match(
            game="tinygame", seats=[SeatSpec(house_bot="random")] * 2, seed=SEED, match_id="first"
        )
        await asyncio.wait_for(runner.wait(), 30)
    finally:
        await server.stop(0.5)
    return [(int(d.seat), d.option_id) for d in sink.replays[MatchId("first")].decisions]


def test_a_journal_written_by_the_standard_library_is_adopted_and_finished() -> None:
    """A start record and log in the old form (non-ASCII names escaped), orphaned by a dead referee:
    a new referee claims it, replays the three journaled decisions and plays the match to its end."""
    prefix = f"brawltest-jf-{uuid.uuid4().hex[:8]}"
    mid = "old:1"

    async def scenario() -> None:
        played = await _played()
        assert len(played) > KEPT
        seats = [SeatSpec(house_bot="random", name="Zo\u00eb"), SeatSpec(house_bot="random", name="\u8a66\u5408")]
        record = journals.start_record(
            match_id=mid,
            game="tinygame",
            config=TinyGame().parse_config({}, 2),
            seed=SEED,
            seats=seats,
            time=TimeSettings(),
            meta={"match_id": mid, "note": "Zo\u00eb"},
            labels={"who": "\u8a66\u5408"},
            join_timeout=10.0,
            request_id="old-request",
        )
        entries = [
            {"k": "d", "n": n, "s": seat, "o": option, "src": "bot", "ms": 1.5}
            for n, (seat, option) in enumerate(played[:KEPT])
        ]
        entries.append({"k": "seats", "bank": [30.0, 30.0], "sent": [0, 0]})
        assert "\\u00eb" in old_dumps(record), "the old form escapes non-ASCII"
        client = aioredis.Redis.from_url(REDIS)
        owner, start, log_key, members = journals.keys(prefix, mid)
        try:
            await client.set(owner, "deadref oldboot")  # no lease under that name: an orphan
            await client.set(start, old_dumps(record))
            await client.sadd(members, mid)
            for e in entries:
                await client.xadd(log_key, {"e": old_dumps(e)})
        except Exception as exc:
            pytest.fail(f"Redis at {REDIS} is required: {exc!r}")
        sink = MemoryResultSink()
        server = create_server(
            "127.0.0.1:0",
            tokens=MemoryTokenStore(),
            sink=sink,
            settings=RefereeSettings(ping_interval=0.2),
            relay_url=REDIS,
            relay_prefix=prefix,
            secret="test-x",
        )
        await server.start()
        try:
            relay = server.referee.relay
            assert relay is not None
            assert await relay.take_over_orphans() == [mid]
            runner = server.referee.matches[MatchId(mid)].runner
            await asyncio.wait_for(runner.wait(), 30)
            assert runner.state is MatchState.SUCCEEDED, runner.error
            replay = sink.replays[MatchId(mid)]
            assert [(int(d.seat), d.option_id) for d in replay.decisions[:KEPT]] == played[:KEPT]
            assert replay.meta["note"] == "Zo\u00eb" and runner.labels == {"who": "\u8a66\u5408"}
            assert (await client.get(owner)) == b"done"
        finally:
            await server.stop(0.5)
            async for key in client.scan_iter(f"{prefix}:*"):
                await client.delete(key)
            await client.aclose()

    asyncio.run(scenario())


def test_what_the_new_journal_writes_the_old_reader_reads() -> None:
    """:func:`journal.dump` is orjson's UTF-8 JSON: the standard library reads it back equal; and
    :func:`journal.load` reads what only the old encoder could write (``NaN``, huge integers)."""
    record = journals.start_record(
        match_id="m:1",
        game="tinygame",
        config={"n": 3},
        seed=2**63 - 1,
        seats=[SeatSpec(house_bot="random", name="Zo\u00eb")] * 2,
        time=TimeSettings(),
        meta={"x": [1, 2.5, None, True]},
        labels={"k": "\u8a66"},
        join_timeout=10.0,
        request_id="r",
    )
    entry = {"k": "i", "j": 0, "at": 2, "s": 1, "kind": "timeout", "detail": "late by 0.3 s \u2014 strike 1"}
    for value in (record, entry):
        written = journals.dump(value)
        assert json.loads(written) == value == journals.load(written) == journals.load(old_dumps(value))
    assert journals.dump({"big": 2**70}) == b'{"big":1180591620717411303424}'
    assert journals.load(b'{"big":1180591620717411303424}') == {"big": 2**70}
    nan = journals.load('{"bank":[NaN]}')["bank"][0]
    assert nan != nan
