"""Where finished matches go: the :class:`ResultSink` protocol and its implementations.

The referee calls ``record`` once per finished match (retrying on failure); a sink must be
idempotent, so a retry after a crash between "written" and "acknowledged" stores nothing twice.

- :class:`FileResultSink` writes ``<dir>/<match_id>.json.gz`` atomically (temporary file, fsync,
  rename): ``brawl referee --replays``. Every valid match id is a safe file name as it is.
- :class:`HandOffResultSink` hands the encoded replay to a ``send`` callable: the ladder's
  referee passes one that puts a ``record_result`` message on the broker (``service.refhost``),
  so the referee never writes the database; the workers record it, once.
- :class:`MemoryResultSink` keeps replays in memory (tests, ``brawl play``).

Every sink stores the bytes of :meth:`Replay.encode`, the one replay encoder.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from referee.core import ids
from referee.core.ids import MatchId
from referee.core.replay import Replay


class ResultSink(Protocol):
    """Stores a finished match's replay (which carries its outcome)."""

    async def record(self, match_id: MatchId, replay: Replay) -> str:
        """Stores the replay of ``match_id`` and returns where (a path or URL).

        Idempotent: recording the same match again stores nothing new.
        """
        ...


class MemoryResultSink:
    """Keeps replays in a dict; for tests and ``brawl play`` without ``--out``."""

    def __init__(self) -> None:
        self.replays: dict[MatchId, Replay] = {}
        self.writes = 0
        """How many records were new (not repeats)."""

    async def record(self, match_id: MatchId, replay: Replay) -> str:
        """Keeps the replay unless one is already kept for ``match_id``."""
        if match_id not in self.replays:
            self.replays[match_id] = replay
            self.writes += 1
        return f"memory:{match_id}"


class FileResultSink:
    """Writes each replay to ``<directory>/<match_id>.json.gz``, atomically and once.

    Args:
        directory: Created if missing.
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def path_for(self, match_id: MatchId) -> Path:
        """Returns the file of ``match_id``: the id itself names it.

        Every valid match id (:func:`referee.core.ids.id_problem`, the rule ``StartMatch`` applies)
        is a safe file name: no ``/``, no ``..``, no leading ``.`` or ``-``. This checks with that
        same rule, so the sink can refuse nothing that the referee accepted.

        Raises:
            InvalidIdError: ``match_id`` is not a valid match id (a ``ValueError``).
        """
        return self.directory / f"{ids.match_id(match_id)}.json.gz"

    def _write(self, match_id: MatchId, replay: Replay) -> str:
        path = self.path_for(match_id)
        if path.exists():
            return str(path)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        data = replay.encode()
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        return str(path)

    async def record(self, match_id: MatchId, replay: Replay) -> str:
        """Writes the replay unless its file exists; returns the file's path.

        Raises:
            OSError: the file cannot be written.
        """
        return await asyncio.to_thread(self._write, match_id, replay)


class HandOffResultSink:
    """Hands each finished match's encoded replay to ``send`` (a broker publish, for the ladder).

    ``send(match_id, data)`` runs in a worker thread with :meth:`Replay.encode` bytes and must
    raise when the hand-off fails (the referee then retries ``record``). Sending the same match
    twice is harmless: the receiving side records a match once (``workers.recording``).

    Args:
        send: Delivers ``(match_id, encoded replay)``; returns where the replay will be found.
    """

    def __init__(self, send: Callable[[MatchId, bytes], str]) -> None:
        self.send = send

    async def record(self, match_id: MatchId, replay: Replay) -> str:
        """Encodes the replay and hands it off; returns what ``send`` returned.

        Raises:
            Exception: whatever ``send`` raised (the hand-off failed; the referee retries).
        """
        return await asyncio.to_thread(self.send, match_id, replay.encode())
