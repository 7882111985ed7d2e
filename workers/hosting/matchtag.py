"""Per-match output of a hosted bot: the bot process tags its lines, the host splits them.

Inside the sandbox (bubblewrap mode: :func:`workers.hosting.sandbox.tagged_runner`), :func:`install`
runs before the SDK client: every line the bot writes to stdout or stderr while the SDK handles a message of match
``M`` (its ``match_started``/``match_ended`` hooks, each decision, a decision's traceback) starts
with ``RS M US``; when a ``MatchStart`` or ``MatchEnd`` passes through the SDK, a boundary line
``RS M GS +`` or ``RS M GS -`` is written. The host (:class:`Splitter`) removes every tag, so the
run's log reads as the bot wrote it, and keeps one bounded slice per match, each line stamped with
the host's clock. An untagged line (the interpreter's own crash report, a C library's output)
goes to every match open at that moment. A bot can forge tags only into its own matches' slices,
which only its author sees. This file is also sent as source into the sandbox (it imports only the
standard library and the SDK there), so it stays self-contained.
"""

from __future__ import annotations

import contextvars
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

RS, US, GS = "\x1e", "\x1f", "\x1d"
SLICE_LIMIT = 32 * 1024
"""Bytes of one match's output kept per run (its first and last 16 KiB; the middle is cut)."""
LINE_LIMIT = 64 * 1024
"""A line longer than this (no newline yet) is cut there."""

_INNER_TAG = re.compile(rb"\x1e[^\x1d\x1f\n]{0,64}\x1f")
"""A tag inside a line (a flushed unfinished line went out tagged, and its rest was tagged again)."""

current: contextvars.ContextVar[str] = contextvars.ContextVar("brawl_match", default="")


class TaggedStream:
    """A text stream that starts each line with the current match's tag.

    Each thread's unfinished line waits in its own buffer, and whole lines go out (and are flushed)
    in one write, so threads playing different matches never mix halves of their lines.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._local = threading.local()

    def _pending(self) -> list[str]:
        pending: list[str] | None = getattr(self._local, "pending", None)
        if pending is None:
            pending = self._local.pending = []
        return pending

    def write(self, text: str) -> int:
        if not text:
            return 0
        pending = self._pending()
        pending.append(text)
        if "\n" not in text:
            return len(text)
        whole, _, rest = "".join(pending).rpartition("\n")
        pending[:] = [rest] if rest else []
        match = current.get()
        tag = f"{RS}{match}{US}" if match else ""
        self._inner.write("".join(f"{tag}{line}\n" for line in whole.split("\n")))
        self._inner.flush()
        return len(text)

    def flush(self) -> None:
        pending = self._pending()
        if pending:
            match = current.get()
            self._inner.write((f"{RS}{match}{US}" if match else "") + "".join(pending))
            pending.clear()
        self._inner.flush()

    def mark(self, match: str, sign: str) -> None:
        self._inner.write(f"{RS}{match}{GS}{sign}\n")
        self._inner.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def install() -> None:
    """Tags the bot's output with the match the SDK is handling (run inside the sandbox)."""
    from referee.sdk import host as sdk_host

    out, err = TaggedStream(sys.stdout), TaggedStream(sys.stderr)
    sys.stdout, sys.stderr = out, err
    cls: Any = sdk_host.BotHost
    handle, answer, decide = cls.handle, cls._answer, cls._decide

    def tagged_handle(self: Any, msg: Any) -> None:
        kind = msg.WhichOneof("message")
        match = ""
        if kind == "match_start":
            match = msg.match_start.match_id
            err.mark(match, "+")
        elif kind == "match_end":
            match = msg.match_end.match_id
        elif kind in ("decision_request", "error"):
            match = getattr(msg, kind).match_id
        token = current.set(match)
        try:
            handle(self, msg)
        finally:
            current.reset(token)
            if kind == "match_end":
                err.mark(match, "-")

    def tagged_answer(self: Any, req: Any, rejected: str) -> None:
        token = current.set(req.match_id)
        try:
            answer(self, req, rejected)
        finally:
            current.reset(token)

    async def tagged_decide(self: Any, req: Any, rejected: str) -> None:
        current.set(req.match_id)  # a task runs in its own copy of the context
        await decide(self, req, rejected)

    cls.handle, cls._answer, cls._decide = tagged_handle, tagged_answer, tagged_decide


@dataclass
class BoundedLog:
    """Keeps the first and last bytes of a stream, at most ``limit`` in all, and counts the rest.

    Used for a run's whole log (:mod:`workers.hosting.sandbox`) and for each match's slice.
    """

    limit: int
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def add(self, data: bytes) -> None:
        """Appends ``data``; past the limit the middle is dropped."""
        half = self.limit // 2
        if len(self.head) < half:
            take = data[: half - len(self.head)]
            self.head += take
            data = data[len(take) :]
        self.tail += data
        if len(self.tail) > half:
            self.dropped += len(self.tail) - half
            del self.tail[: len(self.tail) - half]

    def text(self) -> str:
        """The kept log, with a line saying how much was cut."""
        middle = f"\n[... {self.dropped} bytes cut ...]\n".encode() if self.dropped else b""
        return bytes(self.head + middle + self.tail).decode("utf-8", "replace")


@dataclass
class Slice:
    """One match's lines from one run: the first and last :data:`SLICE_LIMIT` / 2 bytes."""

    started: float
    ended: float | None = None
    log: BoundedLog = field(default_factory=lambda: BoundedLog(SLICE_LIMIT))
    changes: int = 0

    def add(self, line: bytes) -> None:
        self.changes += 1
        self.log.add(line)

    def text(self) -> str:
        return self.log.text()


class Splitter:
    """Host side: removes the tags from a run's output and keeps each match's lines apart."""

    def __init__(self, clock: Any = time.time) -> None:
        self.clock = clock
        self.slices: dict[str, Slice] = {}
        self._pending = b""

    def open_matches(self) -> list[str]:
        """Matches started and not ended in this run (a crash now is theirs)."""
        return [m for m, s in self.slices.items() if s.ended is None]

    def feed(self, data: bytes) -> bytes:
        """Takes raw output; returns it without tags (whole lines; the rest waits for more)."""
        self._pending += data
        out = bytearray()
        while True:
            cut = self._pending.find(b"\n")
            if cut < 0:
                if len(self._pending) <= LINE_LIMIT:
                    break
                cut = LINE_LIMIT - 1
            line, self._pending = self._pending[: cut + 1], self._pending[cut + 1 :]
            out += self._line(line)
        return bytes(out)

    def flush(self) -> bytes:
        """Takes the unfinished last line too (the process ended)."""
        line, self._pending = self._pending, b""
        return self._line(line) if line else b""

    def _line(self, line: bytes) -> bytes:
        now = self.clock()
        stamp = time.strftime("%H:%M:%S", time.gmtime(now)).encode() + f".{int(now * 1000) % 1000:03d} ".encode()
        if line.startswith(RS.encode()):
            body = line[1:]
            mark = body.find(GS.encode())
            sep = body.find(US.encode())
            if mark > 0 and (sep < 0 or mark < sep) and body[mark + 1 : mark + 2] in (b"+", b"-"):
                match = body[:mark].decode("utf-8", "replace")[:64]
                if body[mark + 1 : mark + 2] == b"+":
                    self.slices.setdefault(match, Slice(now)).ended = None
                elif match in self.slices:
                    self.slices[match].ended = now
                return b""
            if sep > 0:
                match = body[:sep].decode("utf-8", "replace")[:64]
                text = _INNER_TAG.sub(b"", body[sep + 1 :])
                self.slices.setdefault(match, Slice(now)).add(stamp + text)
                return text
        line = _INNER_TAG.sub(b"", line)
        for match in self.open_matches():
            self.slices[match].add(stamp + line)
        return line
