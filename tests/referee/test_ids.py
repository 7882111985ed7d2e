"""One rule of a valid id (``referee.core.ids``), applied at every door and honoured by every sink.

Issue 24, finding 6: "a match_id with ':' is accepted by the API and the docs, but the standalone
file sink refuses it at the end: the match is played, then FAILED with no replay." Here a set of
tricky ids goes through the real internal API of a real referee (gRPC on loopback, the file sink,
the Redis journal): each id the API accepts is played to the end and stored by every sink (file,
hand-off, memory, journal keys), and each id it refuses is refused before any match exists,
leaving no file, no journal key and no match behind.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import tempfile
import uuid
from pathlib import Path

import grpc
import pytest
import redis.asyncio as aioredis
from brawl.referee.v1 import referee_pb2
from hypothesis import given
from hypothesis import strategies as st

from referee.core import ids, register
from referee.core.ids import BotId, IdKind, MatchId, id_problem
from referee.core.replay import Replay
from referee.server import cli as referee_cli
from referee.server.auth import BotIdentity, JsonFileTokenStore, MemoryTokenStore
from referee.server.hub import RefereeSettings, StartError
from referee.server.journal import keys
from referee.server.match import SeatSpec
from referee.server.service import create_server
from referee.server.sinks import FileResultSink, HandOffResultSink, MemoryResultSink, ResultSink
from tests.conformance.tinygame import TinyGame
from tests.referee.hostile import wire

register(TinyGame())

REDIS = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

TRICKY = [
    "t:1:g2",  # the finding: ':' (namespaced ids)
    "a:",
    "7",
    "m-1.final_2",
    "_x",
    "x" * 64,
    "x" * 65,
    "x" * 200,
    "",
    ".hidden",
    ".",
    "..",
    "a..b",
    "../x",
    "a/b",
    "/abs",
    "a\\b",
    "-rf",
    ":x",
    "match\u00e9",
    "\u8a66\u5408",
    "a b",
    "a\x00b",
    "m\nINFO forged",
    "a*",
    "a?b",
    "[a]",
    "a%2Fb",
    "a#b",
]
"""Ids worth trying: separators, path steps, option look-alikes, Unicode, lengths, glob and URL characters."""

VALID = [i for i in TRICKY if id_problem(IdKind.MATCH, i) is None]
INVALID = [i for i in TRICKY if id_problem(IdKind.MATCH, i) is not None]
REFUSED = [i for i in INVALID if i]
"""What ``StartMatch`` refuses: an empty ``match_id`` is no id at all (the referee picks one, valid)."""


def test_the_rule_accepts_and_refuses_what_it_says() -> None:
    """The tricky set splits as the docs say (docs/bot-protocol.md, section 6), and both halves are non-empty."""
    assert VALID == ["t:1:g2", "a:", "7", "m-1.final_2", "_x", "x" * 64]
    for bad in INVALID:
        with pytest.raises(ids.InvalidIdError) as exc:
            ids.match_id(bad)
        assert repr(bad[:80]) in str(exc.value), "the error shows the value"
    assert id_problem(IdKind.BOT, "a:b") is not None, "a bot id is a Redis key segment looked up by pattern"
    assert id_problem(IdKind.BOT, "bot-7.v2") is None
    assert id_problem(IdKind.REQUEST, "t3-GF1-g2") is None


@given(st.text(max_size=80))
def test_every_valid_id_is_a_plain_file_name_in_the_sink_directory(value: str) -> None:
    """Property: any string the rule accepts names a file directly inside the sink's directory."""
    with tempfile.TemporaryDirectory() as d:
        sink = FileResultSink(d)
        if id_problem(IdKind.MATCH, value) is not None:
            with pytest.raises(ValueError):
                sink.path_for(MatchId(value))
            return
        path = sink.path_for(MatchId(value))
    assert path.parent == Path(d) and path.name == f"{value}.json.gz"
    assert not path.name.startswith((".", "-")) and os.sep not in value and "\x00" not in value


def _start(match_id: str, request_id: str) -> referee_pb2.StartMatchRequest:
    return referee_pb2.StartMatchRequest(
        request_id=request_id,
        match_id=match_id,
        game="tinygame",
        seats=[referee_pb2.Seat(house_bot="random"), referee_pb2.Seat(house_bot="random")],
    )


def test_every_id_the_api_accepts_is_played_and_stored_and_every_other_is_refused_first(tmp_path: Path) -> None:
    """Through the real internal API with the file sink and the Redis journal: a valid id's match
    succeeds with its replay at ``<dir>/<id>.json.gz`` (on today's main, 't:1:g2' FAILED with no
    replay); an invalid id gets INVALID_ARGUMENT naming it, and leaves no match, file or key."""
    replays = tmp_path / "replays"
    prefix = f"brawltest-ids-{uuid.uuid4().hex[:8]}"
    secret = "test-" + secrets.token_urlsafe(24)

    async def scenario() -> None:
        server = create_server(
            "127.0.0.1:0",
            tokens=MemoryTokenStore(),
            sink=FileResultSink(replays),
            settings=RefereeSettings(ping_interval=0.2),
            relay_url=REDIS,
            relay_prefix=prefix,
            secret=secret,
        )
        try:
            await server.start()
        except Exception as err:
            pytest.fail(f"Redis at {REDIS} is required: {err!r}")
        internal = f"127.0.0.1:{server.internal_port}"
        client = aioredis.Redis.from_url(REDIS)
        try:
            for n, bad in enumerate(REFUSED):
                with pytest.raises(grpc.aio.AioRpcError) as exc:
                    await wire.call(internal, "StartMatch", _start(bad, f"bad-{n}"), secret)
                assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (bad, exc.value.details())
                assert f"match_id {bad[:80]!r}" in (exc.value.details() or ""), exc.value.details()
            assert server.referee.matches == {}, "no refused id started a match"
            assert list(replays.iterdir()) == [], "no refused id left a file"
            assert [k async for k in client.scan_iter(f"{prefix}:journal*")] == [], "nor a journal key"

            for n, good in enumerate(VALID):
                started = await wire.call(internal, "StartMatch", _start(good, f"good-{n}"), secret)
                assert started.match.match_id == good
                await asyncio.wait_for(server.referee.matches[MatchId(good)].runner.wait(), 30)
                got = await wire.call(internal, "GetMatch", referee_pb2.GetMatchRequest(match_id=good), secret)
                assert got.match.state == referee_pb2.Match.STATE_SUCCEEDED, (good, got.match)
                assert got.match.replay_uri == str(replays / f"{good}.json.gz")
                replay = Replay.decode(Path(got.match.replay_uri).read_bytes())
                assert replay.meta["match_id"] == good
                owner, _start_key, _log, members = keys(prefix, good)
                assert (await client.get(owner)) == b"done", "the journal ended with its tombstone"
                assert not await client.sismember(members, good)
            assert sorted(p.name for p in replays.iterdir()) == sorted(f"{g}.json.gz" for g in VALID)
        finally:
            await server.stop(0.5)
            async for key in client.scan_iter(f"{prefix}:*"):
                await client.delete(key)
            await client.aclose()

    asyncio.run(scenario())


def test_every_sink_stores_every_valid_id(tmp_path: Path) -> None:
    """The file, hand-off and memory sinks each record a replay under every valid id, and none
    refuses one: the sinks have no rule of their own."""
    replay = Replay("tinygame", "1", {}, 1, ["a", "b"])
    handed: list[str] = []

    def send(mid: MatchId, data: bytes) -> str:
        handed.append(mid)
        return f"/api/v1/matches/{mid}/replay/"

    sinks: list[ResultSink] = [FileResultSink(tmp_path / "files"), HandOffResultSink(send), MemoryResultSink()]

    async def scenario() -> None:
        for good in VALID:
            for sink in sinks:
                where = await sink.record(MatchId(good), replay)
                assert good in where, (sink, good, where)
        for bad in INVALID:
            with pytest.raises(ValueError):
                await sinks[0].record(MatchId(bad), replay)

    asyncio.run(scenario())
    assert handed == VALID
    assert sorted(p.name for p in (tmp_path / "files").iterdir()) == sorted(f"{g}.json.gz" for g in VALID)


def test_the_in_process_door_refuses_an_invalid_id_before_the_match_exists() -> None:
    """``Referee.start_match`` (``brawl play``, the bot host's validation, the demo) applies the same rule."""

    async def scenario() -> None:
        server = create_server("127.0.0.1:0", tokens=MemoryTokenStore(), sink=MemoryResultSink(), secret="test-x")
        await server.start()
        try:
            for bad in REFUSED:
                with pytest.raises(StartError, match="match id"):
                    server.referee.start_match(game="tinygame", seats=[SeatSpec(house_bot="random")] * 2, match_id=bad)
            assert server.referee.matches == {}
        finally:
            await server.stop(0.5)

    asyncio.run(scenario())


@pytest.mark.parametrize("value", TRICKY)
def test_the_cli_refuses_what_the_api_refuses(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``brawl referee start --match-id`` and ``token --bot-id`` apply the rule before any call."""
    parser = argparse.ArgumentParser(prog="brawl")
    referee_cli.add_parser(parser.add_subparsers())
    start = ["referee", "start", "--game", "tinygame", "--bot", "house:random", f"--match-id={value}"]
    token = ["referee", "token", "--tokens", "/nonexistent/tokens.json", f"--bot-id={value}"]
    for argv, kind in ((start, IdKind.MATCH), (token, IdKind.BOT)):
        if id_problem(kind, value) is None or (kind is IdKind.MATCH and not value):
            parser.parse_args(argv)
            continue
        with pytest.raises(SystemExit):
            parser.parse_args(argv)
        assert repr(value[:80]) in capsys.readouterr().err


def test_a_token_file_naming_an_invalid_bot_id_is_refused_with_the_id(tmp_path: Path) -> None:
    """``JsonFileTokenStore`` reads bot ids with the same rule: a hand-edited ``a:b`` is an error
    naming it, not a bot that logs in and can never be seated (``StartMatch`` refuses that seat)."""
    path = tmp_path / "tokens.json"
    store = JsonFileTokenStore(path)
    token = store.add(BotIdentity(BotId("b-1"), "Alice"))
    assert asyncio.run(store.authenticate(token)) == BotIdentity(BotId("b-1"), "Alice")
    data = json.loads(path.read_text())
    data["tokens"][0]["bot_id"] = "a:b"
    path.write_text(json.dumps(data))
    os.utime(path, (1, 1))  # a new mtime: the store re-reads the file
    with pytest.raises(ValueError, match=r"bot id 'a:b' is not"):
        asyncio.run(store.authenticate(token))
