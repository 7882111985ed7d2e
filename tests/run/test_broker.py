"""The embedded broker (``common.broker``): every message delivered exactly once, none torn, none lost.

The issue: under ``brawl run`` the Celery worker died with "Unrecoverable error: JSONDecodeError"
because kombu's filesystem transport let it read a message file that was still empty
(celery/kombu#1551). These tests show that state on kombu's transport, then check the replacement
with real processes: many producers and consumers counting every message, a consumer SIGKILLed
while holding messages, a reject, a stray file, and concurrent exchange declarations.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from kombu import Connection, Exchange, Producer, Queue

from common import broker
from tests.run.broker_stress import stress


def _connection(transport: str, folder: Path, **extra: Any) -> Connection:
    broker.register()
    for sub in ("queue", "control", "processed"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    options = {
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "control_folder": str(folder / "control"),
        "processed_folder": str(folder / "processed"),
        "store_processed": False,
        **extra,
    }
    return Connection(f"{transport}://", transport_options=options)


def _queue(name: str = "q") -> Queue:
    return Queue(name, Exchange(name, type="direct"), routing_key=name)


def _publish(conn: Connection, body: dict[str, Any], name: str = "q") -> None:
    with conn.channel() as channel:
        _queue(name)(channel).declare()
        Producer(channel, exchange=_queue(name).exchange, routing_key=name, serializer="json").publish(body)


def test_kombu_filesystem_transport_hands_out_a_half_written_message(tmp_path: Path) -> None:
    """kombu#1551 on kombu's transport, made deterministic.

    kombu's ``_put`` creates ``<ms>_<uuid>.<queue>.msg`` in the queue folder and only then writes
    the body; a consumer listing the folder in between reads an empty file. The test leaves the
    queue in exactly that state.
    """
    with _connection("filesystem", tmp_path) as conn, conn.channel() as channel:
        (tmp_path / "queue" / "1000_0123.q.msg").write_bytes(b"")
        with pytest.raises(json.JSONDecodeError):
            channel._get("q")


def test_a_message_being_written_is_not_visible_and_a_complete_one_is(tmp_path: Path) -> None:
    """With brawlfs a body is written under staging/ and renamed into the queue once complete."""
    with _connection("brawlfs", tmp_path) as conn, conn.channel() as channel:
        # The state of a publish interrupted mid-write: a partial body in staging.
        (tmp_path / "staging" / "1000_0123.q.msg").write_bytes(b'{"body": "eyJ')
        with pytest.raises(broker.Empty):
            channel._get("q")
        _publish(conn, {"n": 1})
        staged = [p.name for p in (tmp_path / "staging").iterdir()]
        assert staged == ["1000_0123.q.msg"], "a completed publish left its staging file"
        queue = _queue()(channel)
        message = queue.get(no_ack=False)
        assert message is not None and message.payload == {"n": 1}
        message.ack()
    assert not list((tmp_path / "unacked").rglob("*.msg")), "an acknowledged message is still held"


def test_many_producers_and_consumers_get_every_message_exactly_once(tmp_path: Path) -> None:
    outcome = stress("brawlfs", producers=6, consumers=3, per_producer=200, folder=str(tmp_path / "b"))
    assert outcome.errors == []
    assert outcome.lost == []
    assert outcome.duplicated == []
    assert outcome.delivered == outcome.sent == 1200


def test_messages_held_by_a_consumer_killed_mid_task_are_delivered_to_another(tmp_path: Path) -> None:
    """Tasks acknowledge late; a SIGKILLed worker's messages go back to the queue, each delivered once."""
    outcome = stress("brawlfs", producers=4, consumers=2, per_producer=100, crash_claims=15, folder=str(tmp_path / "b"))
    assert outcome.errors == []
    assert outcome.lost == [], f"{len(outcome.lost)} messages lost"
    assert outcome.duplicated == []
    assert outcome.delivered == outcome.sent == 400


def test_a_rejected_message_is_requeued_and_an_unacked_one_restored_on_close(tmp_path: Path) -> None:
    with _connection("brawlfs", tmp_path) as conn:
        _publish(conn, {"n": 1})
        _publish(conn, {"n": 2})
        with conn.channel() as channel:
            queue = _queue()(channel)
            first = queue.get(no_ack=False)
            assert first is not None and first.payload == {"n": 1}
            first.reject(requeue=True)
            held = queue.get(no_ack=False)
            assert held is not None
        # Closing the channel without an ack restores what it held (kombu's virtual QoS).
        with conn.channel() as channel:
            queue = _queue()(channel)
            got = []
            while (message := queue.get(no_ack=False)) is not None:
                got.append(message.payload["n"])
                message.ack()
    assert sorted(got) == [1, 2]
    assert not list((tmp_path / "queue").iterdir())
    assert not list((tmp_path / "unacked").rglob("*.msg"))


def test_an_unreadable_file_is_set_aside_and_the_queue_keeps_going(tmp_path: Path) -> None:
    with _connection("brawlfs", tmp_path) as conn:
        _publish(conn, {"n": 1})
        (tmp_path / "queue" / "00000000000000000001_ab.q.msg").write_bytes(b"not json")
        with conn.channel() as channel:
            message = _queue()(channel).get(no_ack=False)
            assert message is not None and message.payload == {"n": 1}
            message.ack()
    assert [p.name for p in (tmp_path / "bad").iterdir()] == ["00000000000000000001_ab.q.msg"]


def test_concurrent_declarations_keep_every_binding(tmp_path: Path) -> None:
    """Processes declaring queues on one exchange at once: no binding lost, the table never torn."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_declare_many, args=(str(tmp_path), i)) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    with _connection("brawlfs", tmp_path) as conn, conn.channel() as channel:
        table = channel.get_table("shared")
    assert {q.queue for q in table} == {f"q{i}-{j}" for i in range(4) for j in range(25)}


def _declare_many(folder: str, index: int) -> None:
    with _connection("brawlfs", Path(folder)) as conn, conn.channel() as channel:
        exchange = Exchange("shared", type="direct")
        for j in range(25):
            Queue(f"q{index}-{j}", exchange, routing_key=f"k{index}-{j}")(channel).declare()
            # Every read in between must see a whole table.
            channel.get_table("shared")


def test_restore_ignores_live_owners(tmp_path: Path) -> None:
    """A consumer that is alive keeps its messages: a second channel's sweep does not take them."""
    with _connection("brawlfs", tmp_path) as conn:
        _publish(conn, {"n": 1})
        with conn.channel() as holder:
            message = _queue()(holder).get(no_ack=False)
            assert message is not None
            with conn.channel() as other:
                assert other.restore_dead_owners() == 0
                assert _queue()(other).get(no_ack=False) is None
            message.ack()
    assert os.listdir(tmp_path / "queue") == []
