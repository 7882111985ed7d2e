"""Broker stress: many producer and consumer processes on one embedded broker, counting every message.

Each producer process publishes numbered messages through a direct exchange (as Celery does, so
the exchange tables are read on every publish and written by every process that declares the
queue); each consumer process takes messages, acknowledges them and records their ids. Optionally
one consumer claims a few messages and is then SIGKILLed without acknowledging them (a worker dying
mid-task). The outcome lists the messages never delivered, those delivered more than once, and the
errors consumers hit (kombu#1551 shows as ``JSONDecodeError``).

Run as a script to measure (``python -m tests.run.broker_stress --transport filesystem``); the tests
in ``test_broker.py`` call :func:`stress`.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing as mp
import os
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

QUEUE = "stress"


def _connection(transport: str, folder: str) -> Any:
    from kombu import Connection

    from common import broker

    broker.register()
    base = Path(folder)
    options: dict[str, Any] = {
        "data_folder_in": str(base / "queue"),
        "data_folder_out": str(base / "queue"),
        "control_folder": str(base / "control"),
        "processed_folder": str(base / "processed"),
        "store_processed": False,
    }
    if transport == "brawlfs":
        options["restore_interval"] = 0.5
    if transport == "redis":
        return Connection(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    for sub in ("queue", "control", "processed"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    return Connection(f"{transport}://", transport_options=options)


def _queue() -> Any:
    from kombu import Exchange, Queue

    return Queue(QUEUE, Exchange(QUEUE, type="direct"), routing_key=QUEUE)


def _producer(transport: str, folder: str, index: int, count: int, go: Any, errors: Any) -> None:
    from kombu import Producer

    go.wait()
    with _connection(transport, folder) as conn, conn.channel() as channel:
        queue = _queue()
        queue(channel).declare()
        producer = Producer(channel, exchange=queue.exchange, routing_key=QUEUE, serializer="json")
        for i in range(count):
            try:
                producer.publish({"id": f"{index}-{i}", "pad": "x" * 200})
            except Exception as exc:  # counted, not fatal: the point is to see every failure
                errors.put(f"producer {index}: {exc!r}")


def _consumer(transport: str, folder: str, index: int, out: str, stop: Any, errors: Any) -> None:
    with _connection(transport, folder) as conn, conn.channel() as channel, open(out, "w") as record:
        queue = _queue()(channel)
        queue.declare()
        while not stop.is_set():
            try:
                message = queue.get(no_ack=False)
            except Exception as exc:
                errors.put(f"consumer {index}: {exc!r}")
                continue
            if message is None:
                time.sleep(0.005)
                continue
            record.write(json.loads(message.body)["id"] + "\n")
            record.flush()
            message.ack()


def _crasher(transport: str, folder: str, claims: int, go: Any, claimed: Any) -> None:
    """Claims ``claims`` messages without acknowledging them, then dies by SIGKILL."""
    go.wait()
    conn = _connection(transport, folder)
    channel = conn.channel()
    queue = _queue()(channel)
    queue.declare()
    held = 0
    while held < claims:
        message = queue.get(no_ack=False)
        if message is None:
            time.sleep(0.005)
            continue
        held += 1
        claimed.value = held
    os.kill(os.getpid(), signal.SIGKILL)


@dataclass
class Outcome:
    """What a stress run saw."""

    sent: int
    delivered: int
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        """One line of figures."""
        kinds = collections.Counter(e.split(": ", 1)[-1].split("(")[0] for e in self.errors)
        return (
            f"sent {self.sent}, delivered {self.delivered}, lost {len(self.lost)}, duplicated "
            f"{len(self.duplicated)}, errors {len(self.errors)} {dict(kinds)}, {self.seconds:.1f} s, "
            f"{self.sent / self.seconds:.0f} msg/s"
        )


def stress(
    transport: str,
    *,
    producers: int = 6,
    consumers: int = 3,
    per_producer: int = 300,
    crash_claims: int = 0,
    folder: str | None = None,
    drain_timeout: float = 60.0,
) -> Outcome:
    """Runs one stress round and returns what was delivered.

    Args:
        transport: ``brawlfs`` (this project's), ``filesystem`` (kombu's) or ``redis`` (``REDIS_URL``).
        producers: producer processes.
        consumers: consumer processes that acknowledge what they take.
        per_producer: messages each producer sends.
        crash_claims: when above 0, one more consumer claims this many messages and is SIGKILLed.
        folder: the broker folder (a temporary one by default).
        drain_timeout: seconds to wait for every message once the producers are done.
    """
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        folder = folder or str(Path(tmp) / "broker")
        if transport == "redis":
            with _connection(transport, folder) as conn, conn.channel() as channel:
                _queue()(channel).declare()
                channel.queue_purge(QUEUE)
        go, stop, errors = ctx.Event(), ctx.Event(), ctx.Queue()
        claimed = ctx.Value("i", 0)
        outs = [str(Path(tmp) / f"consumer-{i}.txt") for i in range(consumers)]
        crasher = None
        if crash_claims:
            crasher = ctx.Process(target=_crasher, args=(transport, folder, crash_claims, go, claimed))
            crasher.start()
        workers = [
            ctx.Process(target=_consumer, args=(transport, folder, i, outs[i], stop, errors)) for i in range(consumers)
        ]
        senders = [
            ctx.Process(target=_producer, args=(transport, folder, i, per_producer, go, errors))
            for i in range(producers)
        ]
        for p in workers + senders:
            p.start()
        time.sleep(1.0)  # let every process import kombu, so they start publishing together
        started = time.monotonic()
        go.set()
        for p in senders:
            p.join()
        sent = producers * per_producer
        deadline = time.monotonic() + drain_timeout
        seen: collections.Counter[str] = collections.Counter()
        while time.monotonic() < deadline:
            seen = collections.Counter(
                line.strip() for out in outs if Path(out).exists() for line in Path(out).read_text().splitlines()
            )
            if len(seen) >= sent and (crasher is None or not crasher.is_alive()):
                break
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        time.sleep(0.5)  # a duplicate delivered just after the last new id still counts
        stop.set()
        for p in workers:
            p.join(10)
            if p.is_alive():
                p.kill()
        if crasher is not None:
            crasher.join(10)
        seen = collections.Counter(
            line.strip() for out in outs if Path(out).exists() for line in Path(out).read_text().splitlines()
        )
        expected = {f"{i}-{j}" for i in range(producers) for j in range(per_producer)}
        found_errors = []
        while not errors.empty():
            found_errors.append(errors.get())
        return Outcome(
            sent=sent,
            delivered=sum(seen.values()),
            lost=sorted(expected - set(seen)),
            duplicated=sorted(k for k, n in seen.items() if n > 1),
            errors=found_errors,
            seconds=elapsed,
        )


def main() -> None:
    """Prints the figures of a few rounds on the chosen transport."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", default="brawlfs", choices=["brawlfs", "filesystem", "redis"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--producers", type=int, default=6)
    parser.add_argument("--consumers", type=int, default=3)
    parser.add_argument("--per-producer", type=int, default=300)
    parser.add_argument("--crash-claims", type=int, default=0)
    args = parser.parse_args()
    for _ in range(args.rounds):
        outcome = stress(
            args.transport,
            producers=args.producers,
            consumers=args.consumers,
            per_producer=args.per_producer,
            crash_claims=args.crash_claims,
        )
        print(outcome.summary(), flush=True)


if __name__ == "__main__":
    main()
