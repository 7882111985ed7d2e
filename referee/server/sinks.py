"""Where finished matches go: the :class:`ResultSink` protocol and its file implementation.

The referee calls ``record`` once per finished match (retrying on failure); a sink must be
idempotent, so a retry after a crash between "written" and "acknowledged" stores nothing twice.
The database sink of the ladder plugs in through the same protocol. :class:`FileResultSink`
writes ``<dir>/<match_id>.json.gz`` atomically (temporary file, fsync, rename).
"""

from __future__ import annotations

import asyncio
import gzip
import os
import re
from pathlib import Path
from typing import Protocol

from referee.core.ids import MatchId
from referee.core.replay import Replay

_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


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
        """Returns the file of ``match_id``.

        Raises:
            ValueError: the id has characters unsafe in a file name.
        """
        if not _SAFE_ID.match(match_id):
            raise ValueError(f"match id {match_id!r} is not safe as a file name")
        return self.directory / f"{match_id}.json.gz"

    def _write(self, match_id: MatchId, replay: Replay) -> str:
        path = self.path_for(match_id)
        if path.exists():
            return str(path)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        data = gzip.compress(replay.dumps().encode(), mtime=0)
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
