"""The referee's garbage collection: short pauses, and never charged to a bot.

A referee is one event loop serving every match in its process, so a garbage collection stops
every match at once: while it runs no answer is read and no request goes out. CPython's collector
walks every tracked object of the generations it collects, and a referee's live state (engine
states, replays, option encodings) is hundreds of thousands of objects at 100 matches, and a
middle or full collection of them stalls the loop for every match (the pauses of the earlier
thresholds and of this policy: docs/benchmarks.md, "Figures moved out of the code").

:class:`Collector` keeps every pause short and accounts for the ones that remain:

* **Young collections only.** A collection runs every :data:`YOUNG` allocations (a few ms of
  walking), and whatever survives it is frozen at once (``gc.freeze``: moved to
  the permanent generation, which no automatic collection walks). Objects that outlive one young
  collection are almost all live match state; they are still freed by reference counting when
  dropped. Only garbage *cycles* among them are left, and the referee's steady play makes none
  (docs/benchmarks.md, "Figures moved out of the code").
  CPython counts young allocations minus *all* deallocations, so a finished match's state being
  dropped would let the young generation grow unseen: the hub runs a young collection
  (:meth:`Collector.collect_young`) just before it drops one.
* **A reclaim when the heap has doubled.** :meth:`Collector.reclaim_if_due` (every
  :data:`RECLAIM_CHECK_SECONDS`, from :meth:`watch`) unfreezes everything and runs one full
  collection when the allocated blocks have grown to :data:`GROWTH` times what the last reclaim
  left (and by at least :data:`MIN_GROWTH_BLOCKS`), at most every :data:`RECLAIM_EVERY_SECONDS`,
  so cycles from rarer paths (errors, dropped connections) cannot pile up: memory stays within
  about twice the live state plus ten minutes of such garbage. That pause is a full collection
  of the whole heap, as long as one of CPython's own; it comes only while the heap grows, and at
  most every :data:`RECLAIM_EVERY_SECONDS`.
* **Pauses are not a bot's time.** :attr:`Collector.paused` adds up every collection's wall time;
  the match runner credits a seat with the pauses between its request going out and its answer
  being read (:meth:`referee.server.match.MatchRunner.submit`), and moves its deadline by them.

The collector is process-wide (the garbage collector is); :func:`install` sets it up once, in the
referee's process (``brawl referee``, ``brawl play``, the benches) and never in a web or worker
process.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time
from typing import Any

log = logging.getLogger(__name__)

YOUNG = 5_000
"""Allocations between young collections (CPython's default is 700): short pauses, rare enough to
cost a small share of a decision's CPU (the figures per threshold are in docs/benchmarks.md)."""
GROWTH = 2.0
"""A reclaim runs once the allocated blocks reach this multiple of what the last one left."""
MIN_GROWTH_BLOCKS = 500_000
"""...and have grown by at least this many (an idle referee's heap doubles on its first matches)."""
RECLAIM_EVERY_SECONDS = 600.0
"""The least time between two reclaims (and from :meth:`Collector.install` to the first): a referee
taking on load doubles its heap within a minute, with no garbage to speak of."""
RECLAIM_CHECK_SECONDS = 30.0
"""How often :meth:`Collector.watch` looks at the heap (``sys.getallocatedblocks``: under a ms)."""


class Collector:
    """The process's garbage-collection policy (see the module docstring)."""

    def __init__(self) -> None:
        self.installed = False
        self.paused = 0.0
        """Wall seconds spent in garbage collections since :meth:`install` (all generations, reclaims too)."""
        self.longest = 0.0
        """The longest collection since :meth:`install`, wall seconds."""
        self.collections = 0
        self.reclaims = 0
        self.baseline = 0
        """Allocated blocks after the last reclaim (or at install)."""
        self.every = RECLAIM_EVERY_SECONDS
        """The least seconds between reclaims (:data:`RECLAIM_EVERY_SECONDS`)."""
        self._last_reclaim = 0.0
        self._started = 0.0
        self._saved: tuple[int, int, int] | None = None

    def install(self, young: int = YOUNG) -> None:
        """Collects once, freezes what is alive, and collects only the young from here on."""
        if self.installed:
            return
        self._saved = gc.get_threshold()
        gc.callbacks.append(self._callback)  # the start-up collection below is timed too
        gc.collect()
        gc.freeze()
        self.baseline = sys.getallocatedblocks()
        self._last_reclaim = time.monotonic()
        gc.set_threshold(young, 1_000, 1_000)
        self.installed = True

    def uninstall(self) -> None:
        """Puts the collector back as it was (the frozen objects are returned to it)."""
        if not self.installed:
            return
        gc.callbacks.remove(self._callback)
        assert self._saved is not None
        gc.set_threshold(*self._saved)
        gc.unfreeze()
        self.installed = False

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        pause = time.perf_counter() - self._started
        self.paused += pause
        self.collections += 1
        if pause > self.longest:
            self.longest = pause
        # The survivors leave the collected generations: no later automatic collection walks them.
        gc.freeze()

    def collect_young(self) -> None:
        """Runs a young collection now, before dropping many old objects at once (a finished match's
        state): each freed object lowers the count that triggers the next young collection, so
        without this the young generation grows unseen past :data:`YOUNG` and is walked in one go
        later."""
        if self.installed:
            gc.collect(0)

    def reclaim_due(self) -> bool:
        """Whether the last reclaim is :attr:`every` seconds old and the heap has grown enough since
        for a full collection to run."""
        if time.monotonic() - self._last_reclaim < self.every:
            return False
        blocks = sys.getallocatedblocks()
        return blocks >= self.baseline * GROWTH and blocks - self.baseline >= MIN_GROWTH_BLOCKS

    def reclaim(self) -> int:
        """Collects everything once, frozen objects included; returns the objects collected."""
        gc.unfreeze()
        collected = gc.collect()
        gc.freeze()
        self.baseline = sys.getallocatedblocks()
        self._last_reclaim = time.monotonic()
        self.reclaims += 1
        return collected

    def reclaim_if_due(self) -> bool:
        """Runs :meth:`reclaim` if :meth:`reclaim_due`; returns whether it ran."""
        if not self.installed or not self.reclaim_due():
            return False
        before = self.paused
        collected = self.reclaim()
        log.info(
            "full garbage collection: %d objects collected in %.1f ms; the heap is now %d blocks",
            collected,
            (self.paused - before) * 1e3,
            self.baseline,
        )
        return True

    async def watch(self, interval: float = RECLAIM_CHECK_SECONDS) -> None:
        """Checks for a due reclaim every ``interval`` seconds, until cancelled."""
        while True:
            await asyncio.sleep(interval)
            self.reclaim_if_due()


COLLECTOR = Collector()
"""The process's collector."""


def install() -> Collector:
    """Installs :data:`COLLECTOR` (once per process) and returns it."""
    COLLECTOR.install()
    return COLLECTOR
