"""Token hashing and stores; result sinks; time-control merging.

Partitions: a token is stored only as its hash; memory store issue/revoke; JSON file store add,
re-read on change, unknown token; file sink writes atomically, is idempotent and refuses unsafe
ids; time control fields override defaults one by one and refuse negatives.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path

import pytest
from brawl.bot.v1 import bot_pb2

from referee.core.ids import BotId, MatchId
from referee.core.replay import Replay
from referee.protocol.timecontrol import TimeSettings, duration
from referee.server.auth import (
    BotIdentity,
    JsonFileTokenStore,
    MemoryTokenStore,
    generate_token,
    hash_token,
    token_matches,
)
from referee.server.sinks import FileResultSink

ALICE = BotIdentity(BotId("b1"), "Alice", "v3", "alice", frozenset({"scrumbrawl"}))


def test_tokens_are_random_and_stored_hashed() -> None:
    a, b = generate_token(), generate_token()
    assert a != b and a.startswith("brawl_") and len(a) > 40
    assert token_matches(a, hash_token(a)) and not token_matches(b, hash_token(a))
    assert ALICE.may_play("scrumbrawl") and not ALICE.may_play("superfantasybrawl")


def test_memory_store_issues_and_revokes() -> None:
    store = MemoryTokenStore()
    token = store.issue(ALICE)
    assert asyncio.run(store.authenticate(token)) == ALICE
    assert asyncio.run(store.authenticate(token + "x")) is None
    store.revoke(token)
    assert asyncio.run(store.authenticate(token)) is None


def test_json_store_keeps_only_hashes_and_rereads_the_file(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    store = JsonFileTokenStore(path)
    assert asyncio.run(store.authenticate("anything")) is None
    token = store.add(ALICE)
    assert token not in path.read_text()
    assert json.loads(path.read_text())["tokens"][0]["sha256"] == hash_token(token)
    assert asyncio.run(store.authenticate(token)) == ALICE
    other = JsonFileTokenStore(path).add(BotIdentity(BotId("b2"), "Bob"))
    assert asyncio.run(store.authenticate(other)) == BotIdentity(BotId("b2"), "Bob")


def test_file_sink_is_atomic_and_idempotent(tmp_path: Path) -> None:
    sink = FileResultSink(tmp_path / "replays")
    replay = Replay("tinygame", "1", {}, 1, ["a", "b"])
    where = asyncio.run(sink.record(MatchId("m1"), replay))
    assert Path(where).name == "m1.json.gz"
    first = Path(where).read_bytes()
    replay.seed = 2  # a second record of the same match must not overwrite the first
    asyncio.run(sink.record(MatchId("m1"), replay))
    assert Path(where).read_bytes() == first
    assert json.loads(gzip.decompress(first))["seed"] == 1
    assert [p.name for p in (tmp_path / "replays").iterdir()] == ["m1.json.gz"]
    with pytest.raises(ValueError, match=r"match id '\.\./evil' is not"):
        asyncio.run(sink.record(MatchId("../evil"), replay))


def test_time_control_fields_override_one_by_one() -> None:
    base = TimeSettings()
    msg = bot_pb2.TimeControl(decision_time=duration(0.25), max_strikes=5)
    merged = base.merged(msg)
    assert merged.decision_time == 0.25 and merged.max_strikes == 5 and merged.bank_time == base.bank_time
    assert base.merged(None) is base
    assert TimeSettings().merged(TimeSettings(bank_time=7).to_proto()) == TimeSettings(bank_time=7)
    with pytest.raises(ValueError, match="max_strikes"):
        base.merged(bot_pb2.TimeControl(max_strikes=-1))
