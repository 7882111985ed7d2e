"""The embedded Celery broker of ``brawl run``: a filesystem transport that cannot hand out a torn or lost message.

kombu's own filesystem transport creates each message file under its final name and only then
writes the body, so a consumer listing the folder can read a file that is still empty and die on
``JSONDecodeError`` (celery/kombu#1551: the Celery worker of ``brawl run`` stopped that way). It also
deletes a message as soon as it is read, so a worker killed mid-task loses it even though the tasks
acknowledge late, and it rewrites the exchange tables in place, where a reader can see them half
written. This transport keeps kombu's folder layout and file names (``<time>_<uuid>.<queue>.msg``,
which ``webapp.metrics`` counts) and changes how files move:

- **Publish**: the body is written to a staging folder, flushed and fsync'd, then renamed into the
  queue folder. A rename within one filesystem is atomic, so a file in the queue folder is always
  complete.
- **Consume**: a consumer claims a message by renaming it into its own ``unacked/<owner>/`` folder;
  of two consumers racing for one file exactly one rename succeeds. The file is deleted when the
  message is acknowledged (or re-published on a reject or a restore), not when it is read.
- **Recovery**: each channel holds an exclusive ``flock`` on ``unacked/<owner>/.owner`` for its life.
  The kernel drops the lock when the process dies, however it dies, so any channel that can take
  the lock of another owner knows that owner is gone and moves its messages back to the queue
  under their original names (their place in line is kept). Tasks are safe to run twice
  (``workers.tasks``), so redelivery is the right side to err on.
- **Exchange tables** (``control/<exchange>.exchange``, used for broadcast) are read-modify-written
  under a lock file and replaced by rename, so a reader never sees a partial table.

Limits (measured in ``docs/deploy.md``): one machine and one local filesystem (``rename`` must be
atomic, so not NFS); every consumer polls the folder (Celery's 1 s poll interval by default), so a
message waits up to that long; a folder listing per poll makes a deep backlog slow.

Used when ``REDIS_URL`` is unset (``common.brokerconf.broker_settings``); registered with kombu as the
``brawlfs`` transport.
"""

from __future__ import annotations

import fcntl
import logging
import os
import time
import uuid
from pathlib import Path
from queue import Empty
from typing import Any, ClassVar

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem, virtual
from kombu.utils.json import dumps, loads

log = logging.getLogger(__name__)

ALIAS = "brawlfs"
"""The URL scheme of this transport (``brawlfs://``)."""


def _fsync_dir(folder: Path) -> None:
    """Makes a rename into ``folder`` durable across a power cut."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _owner_is_dead(owner_file: Path) -> int | None:
    """Takes the lock of ``owner_file`` if its owner is gone; returns the open descriptor, else ``None``."""
    try:
        fd = os.open(owner_file, os.O_RDWR)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


class Channel(filesystem.Channel):
    """A filesystem channel with atomic publish, claim-by-rename and redelivery of a dead consumer's messages.

    Transport options (besides kombu's ``data_folder_in``/``data_folder_out``/``control_folder``,
    which must name folders on one filesystem):
        staging_folder: where message bodies are written before they are renamed into the queue.
        unacked_folder: where consumers keep the messages they hold until acknowledged.
        bad_folder: where a file that is not a message (it cannot be parsed) is set aside.
        restore_interval: seconds between looks for dead consumers' messages while consuming (10).
        fsync: ``False`` to skip the fsync calls (faster; a power cut may lose recent messages).
    """

    def __init__(self, connection: Any, **kwargs: Any) -> None:
        super().__init__(connection, **kwargs)
        options = self.transport_options
        queue = Path(self.data_folder_in)
        if Path(self.data_folder_out) != queue:
            raise ChannelError("brawlfs needs data_folder_in and data_folder_out to be one folder")
        root = queue.parent
        self._queue_dir = queue
        self._staging = Path(options.get("staging_folder") or root / "staging")
        self._unacked_root = Path(options.get("unacked_folder") or root / "unacked")
        self._bad = Path(options.get("bad_folder") or root / "bad")
        self._fsync = bool(options.get("fsync", True))
        for folder in (queue, self._staging, self._unacked_root, self._bad, self.control_folder):
            folder.mkdir(parents=True, exist_ok=True)
        self._owner = self._unacked_root / f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self._owner.mkdir()
        self._owner_fd = os.open(self._owner / ".owner", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self._owner_fd, fcntl.LOCK_EX)
        self._claimed: dict[str, Path] = {}
        self._noack: set[str] = set()
        self._sweep_every = float(options.get("restore_interval", 10.0))
        self._last_sweep = 0.0
        self.restore_dead_owners()

    # -- publishing ------------------------------------------------------------------------------

    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Writes the message under a staging name, syncs it, then renames it into the queue."""
        # Nanoseconds, zero-padded: names sort in publish order across processes.
        name = f"{time.time_ns():020d}_{uuid.uuid4().hex}.{queue}.msg"
        staged = self._staging / name
        try:
            with open(staged, "xb") as f:
                f.write(dumps(payload).encode())
                f.flush()
                if self._fsync:
                    os.fsync(f.fileno())
            os.rename(staged, self._queue_dir / name)
            if self._fsync:
                _fsync_dir(self._queue_dir)
        except OSError as exc:
            staged.unlink(missing_ok=True)
            raise ChannelError(f"cannot add message {name!r} to {self._queue_dir}") from exc

    # -- consuming -------------------------------------------------------------------------------

    def _get(self, queue: str) -> Any:  # type: ignore[override]
        """Claims the oldest message of ``queue`` by renaming it into this channel's unacked folder."""
        now = time.monotonic()
        if now - self._last_sweep >= self._sweep_every:
            self.restore_dead_owners()
        suffix = f"{queue}.msg"
        for name in sorted(os.listdir(self._queue_dir)):
            if name.partition(".")[2] != suffix:
                continue
            claimed = self._owner / name
            try:
                os.rename(self._queue_dir / name, claimed)
            except FileNotFoundError:
                continue  # another consumer claimed it first
            try:
                payload = loads(claimed.read_bytes())
            except ValueError:
                # Not a message this transport wrote (a publish is atomic): keep it for a human,
                # and go on serving the queue rather than stopping the worker.
                os.rename(claimed, self._bad / name)
                log.error("broker: set aside unreadable message file %s", self._bad / name)
                continue
            if queue in self._noack:
                claimed.unlink(missing_ok=True)
            else:
                self._claimed[payload["properties"]["delivery_tag"]] = claimed
            return payload
        raise Empty()

    def _forget(self, delivery_tag: str) -> None:
        path = self._claimed.pop(delivery_tag, None)
        if path is not None:
            path.unlink(missing_ok=True)

    def basic_consume(self, queue: str, no_ack: bool, *args: Any, **kwargs: Any) -> Any:
        """Consumes ``queue``; messages of a ``no_ack`` consumer are deleted as they are read."""
        if no_ack:
            self._noack.add(queue)
        return super().basic_consume(queue, no_ack, *args, **kwargs)

    def basic_get(self, queue: str, no_ack: bool = False, **kwargs: Any) -> Any:
        """Gets one message directly; with ``no_ack`` its file is deleted at once."""
        message = super().basic_get(queue, no_ack=no_ack, **kwargs)
        if message is not None and no_ack:
            self._forget(message.delivery_tag)
        return message

    def basic_ack(self, delivery_tag: str, multiple: bool = False) -> None:
        """Acknowledges a message: its claimed file is deleted."""
        super().basic_ack(delivery_tag, multiple=multiple)
        self._forget(delivery_tag)

    def basic_reject(self, delivery_tag: str, requeue: bool = False) -> None:
        """Rejects a message: it is re-published first when ``requeue``, then its claimed file deleted."""
        super().basic_reject(delivery_tag, requeue=requeue)
        self._forget(delivery_tag)

    def _restore(self, message: Any) -> None:
        """Re-publishes an unacknowledged message (kombu does this on close), then drops its claim."""
        super()._restore(message)
        self._forget(message.delivery_tag)

    def restore_dead_owners(self) -> int:
        """Moves the messages held by consumers that died back into the queue; returns how many."""
        self._last_sweep = time.monotonic()
        moved = 0
        for owner in self._unacked_root.iterdir():
            if owner == self._owner or not owner.is_dir():
                continue
            fd = _owner_is_dead(owner / ".owner")
            if fd is None:
                continue
            try:
                for held in owner.glob("*.msg"):
                    try:
                        os.rename(held, self._queue_dir / held.name)
                        moved += 1
                    except FileNotFoundError:
                        continue
                (owner / ".owner").unlink(missing_ok=True)
                owner.rmdir()
            except OSError:
                pass  # another channel is sweeping the same owner; it finishes the job
            finally:
                os.close(fd)
        if moved:
            log.warning("broker: %d unacknowledged message(s) of a dead consumer returned to the queue", moved)
        return moved

    def close(self) -> None:
        """Closes the channel (kombu re-publishes what it holds), then releases its unacked folder."""
        if self.closed:
            return
        super().close()
        try:
            if not any(self._owner.glob("*.msg")):
                (self._owner / ".owner").unlink(missing_ok=True)
                self._owner.rmdir()
        except OSError:
            pass
        os.close(self._owner_fd)

    # -- exchange tables (broadcast) -------------------------------------------------------------

    def get_table(self, exchange: str) -> list[Any]:
        """Reads an exchange table; tables are replaced by rename, so no lock is needed to read one."""
        file = self._exchange_file(exchange)
        try:
            return [filesystem.exchange_queue_t(*q) for q in loads(file.read_bytes())]
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ChannelError(f"Cannot open {file}") from exc

    def _update_table(self, exchange: str, change: Any) -> None:
        """Read-modify-writes an exchange table under its lock file, replacing it by rename."""
        file = self._exchange_file(exchange)
        self.control_folder.mkdir(parents=True, exist_ok=True)
        lock_fd = os.open(file.parent / f"{file.name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX)
            queues = self.get_table(exchange)
            new = change(list(queues))
            if new == queues:
                return
            staged = self._staging / f"{file.name}.{uuid.uuid4().hex}"
            staged.write_bytes(dumps([list(q) for q in new]).encode())
            os.rename(staged, file)
        finally:
            fcntl.flock(lock_fd, fcntl.LOCK_UN)
            os.close(lock_fd)

    def _queue_bind(self, exchange: str, routing_key: str, pattern: str, queue: str) -> None:
        entry = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        self._update_table(exchange, lambda qs: qs if entry in qs else [entry, *qs])

    def _delete(self, queue: str, exchange: str, routing_key: str, pattern: str, *args: Any, **kwargs: Any) -> None:
        # Skip kombu's filesystem _delete (it rewrites the table in place); keep the virtual one.
        super(filesystem.Channel, self)._delete(queue, exchange, routing_key, pattern, *args, **kwargs)
        entry = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
        self._update_table(exchange, lambda qs: [q for q in qs if q != entry])


class Transport(filesystem.Transport):
    """kombu transport ``brawlfs://``: kombu's filesystem transport with :class:`Channel`."""

    Channel = Channel
    driver_type = "filesystem"
    driver_name = "brawlfs"

    _states: ClassVar[dict[str, virtual.BrokerState]] = {}

    def __init__(self, client: Any, **kwargs: Any) -> None:
        super().__init__(client, **kwargs)
        # kombu keeps the declared bindings in one state per process; keyed by folder here, so
        # connections to two brokers in one process (the tests) do not skip each other's bindings.
        folder = str(client.transport_options.get("data_folder_in", ""))
        self.state = self._states.setdefault(folder, virtual.BrokerState())


def register() -> None:
    """Makes ``brawlfs://`` resolve to this transport (idempotent)."""
    TRANSPORT_ALIASES.setdefault(ALIAS, f"{__name__}:Transport")
