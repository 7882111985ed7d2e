"""The cache of the embedded defaults, and the helpers that cache pieces of pages under keys naming their data.

One store shared by every process of the machine.

Pieces of pages are cached two ways. :func:`cached` keys a value on the state of its data (the
key changes when the data does, nothing is deleted). :func:`read_through` keeps one entry per
piece holding the value with its :data:`Stamp` (the state it was computed from): a worker
refreshes it after a result (``webapp.pages.refresh``), a stale one may be served for a few
seconds while that refresh runs, and :func:`store_if_newer` never lets an older state replace a
newer one.

Throttle counters and computed replay frames must be shared by all web processes (gunicorn runs
several), or each process counts on its own and a limit of 600 lets thousands through. With
``REDIS_URL`` the cache is Redis; without it, this file-based cache under ``BRAWL_VAR_DIR/cache``.

Django's file cache lists its whole directory on every write to decide whether to cull (and its
database cache counts its rows); this one culls on one write in :data:`CULL_EVERY`, so the
directory can overshoot ``MAX_ENTRIES`` by at most that many writes' worth (what each costs per
throttle check: docs/benchmarks.md, "Figures moved out of the code").
"""

from __future__ import annotations

import math
import os
import random
import tempfile
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar, cast

from django.core.cache import cache
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache
from django.db import transaction

T = TypeVar("T")
MISSING = object()

CULL_EVERY = 100
"""On average one write in this many checks whether the cache is over ``MAX_ENTRIES``."""


if TYPE_CHECKING:

    class _FileBasedCache(FileBasedCache):
        """The private parts of Django's file cache that :class:`SharedFileCache` builds on (django-stubs
        declare only the public ones)."""

        _dir: str

        def _cull(self) -> None: ...
        def _createdir(self) -> None: ...
        def _write_content(self, file: BinaryIO, timeout: Any, value: Any) -> None: ...
        def _key_to_file(self, key: Any, version: int | None = None) -> str: ...

else:
    _FileBasedCache = FileBasedCache


class SharedFileCache(_FileBasedCache):
    """Django's file-based cache, culling on one write in :data:`CULL_EVERY`, with an atomic ``add``."""

    def _cull(self) -> None:
        # Which write culls does not matter, only that it happens now and then: not a secret, not a seed.
        if random.random() < 1 / CULL_EVERY:
            super()._cull()

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        """Stores ``value`` only if ``key`` holds nothing live; of two processes adding at once, one wins.

        Django's own checks for the file and then writes it, so two processes could both "add". Here
        the entry is written aside and hard-linked into place, which fails if the file appeared
        meanwhile: :func:`store_if_newer` takes its lock with ``add``.
        """
        if self.has_key(key, version):  # also removes an expired file
            return False
        self._createdir()
        fd, tmp_path = tempfile.mkstemp(dir=self._dir)
        try:
            with open(fd, "wb") as f:
                self._write_content(f, timeout, value)
            os.link(tmp_path, self._key_to_file(key, version))
        except FileExistsError:
            return False
        except OSError:  # a file system without hard links: Django's check-then-write
            return bool(super().add(key, value, timeout, version))
        finally:
            os.remove(tmp_path)
        return True


PAGE_CACHE_SECONDS = 300
"""How long a cached piece of a page lives at most (its key changes as soon as its data does; this bounds the rest)."""


def cached(key: str, compute: Callable[[], T], timeout: int = PAGE_CACHE_SECONDS) -> T:
    """Returns the value cached under ``key``, computing and storing it on a miss.

    The key must name the data's state (a revision or the highest id of the rows it was computed
    from, read *before* the data): a result recorded later changes the key, so a stale value is
    never read again rather than having to be deleted. Values must pickle.
    """
    hit = cache.get(key, MISSING)
    if hit is not MISSING:
        return cast(T, hit)
    value = compute()
    cache.set(key, value, timeout)
    return value


BOTS_GENERATION_KEY = "brawl:bots-generation"
"""Cache key of a counter that every change to a bot (name, activity, new version) increments."""


def _fresh_generation() -> int:
    # Milliseconds since the epoch: above every count a generation reached by increments, and above
    # any earlier value set this way, so a generation never goes back when its key is lost.
    return int(time.time() * 1000)


def bots_generation() -> int:
    """Returns the current bots generation; part of the stamps of leaderboard and bot page pieces.

    It only goes up, even when its key is lost (evicted, or the cache cleared): a missing key is set
    to a value above every earlier one (:func:`_fresh_generation`), since :func:`store_if_newer` keeps
    a piece computed under a higher generation over one computed under a lower.
    """
    found = cache.get(BOTS_GENERATION_KEY)
    if found is None:
        cache.add(BOTS_GENERATION_KEY, _fresh_generation(), None)
        found = cache.get(BOTS_GENERATION_KEY, 0)
    return int(found)


def _bump() -> None:
    try:
        cache.incr(BOTS_GENERATION_KEY)
    except ValueError:  # not set yet (or evicted): a value above every earlier one
        cache.set(BOTS_GENERATION_KEY, _fresh_generation(), None)


def bump_bots_generation() -> None:
    """Invalidates every cached piece that shows bots: now, and again once the current transaction commits.

    The second bump is the one that matters: a request between the two may cache what it read
    before the commit under the first bump's key. The first makes the change visible at once where
    commit hooks never run (inside a test's transaction).
    """
    _bump()
    transaction.on_commit(_bump)


Stamp = tuple[int, ...]
"""The state of the data a cached piece was computed from: counters that only go up (the newest
rating-history id of a game, a bot's ``BotStats.revision``, the bots generation), read before the data."""

LOCK_SECONDS = 5
"""How long one process may hold the right to replace a stamped piece (it holds it for a get and a set)."""


def at_least(a: Stamp, b: Stamp) -> bool:
    """Whether state ``a`` is at least as new as state ``b`` in every part."""
    return len(a) == len(b) and all(x >= y for x, y in zip(a, b, strict=True))


def stale_marker_key(scope: str, stamp: Stamp) -> str:
    """The key of the marker saying that a result moved ``scope`` on from state ``stamp`` a moment ago.

    ``scope``: ``game:<name>`` or ``bot:<id>``. Set by :mod:`webapp.pages.refresh` once a result is
    committed, for the scope's state just before it; it lives ``BRAWL_PAGE_STALE_SECONDS``. While
    it lives, a reader may be given a stored piece of that state instead of computing the current
    one, since the first result the piece misses is that recent (see :func:`read_through`).
    """
    return f"brawl:refresh:stale-ok:{scope}:{'.'.join(map(str, stamp))}"


clock: Callable[[], float] = time.time
"""Wall-clock seconds the stale markers are read against (tests set their own clock here)."""


def mark_stale(scope: str, stamp: Stamp, seconds: float) -> None:
    """Sets the stale marker of ``scope``'s state ``stamp`` (:func:`stale_marker_key`) for ``seconds``.

    The first result from a state sets it; later ones keep its end. The marker holds the moment it
    ends, read against :data:`clock`; the cache's expiry, a minute later, only removes it.
    """
    if seconds > 0:
        cache.add(stale_marker_key(scope, stamp), clock() + seconds, timeout=math.ceil(seconds) + 60)


def is_stale_ok(scope: str, stamp: Stamp) -> bool:
    """Whether the stale marker of ``scope``'s state ``stamp`` lives (:func:`mark_stale`)."""
    until = cache.get(stale_marker_key(scope, stamp))
    return isinstance(until, (int, float)) and not isinstance(until, bool) and until > clock()


def queued_marker_key(scope: str) -> str:
    """The key marking that a refresh of ``scope``'s pieces is queued (results meanwhile share it)."""
    return f"brawl:refresh:queued:{scope}"


def _entry(found: object) -> tuple[Stamp, Any] | None:
    if isinstance(found, tuple) and len(found) == 2 and isinstance(found[0], tuple):
        return found[0], found[1]
    return None


def read_through(
    key: str, stamp: Stamp, compute: Callable[[], T], *, scope: str | None = None, timeout: int = PAGE_CACHE_SECONDS
) -> tuple[T, Stamp]:
    """Returns the piece stored under ``key`` with its stamp, computing and storing it when it is out of date.

    One key per piece, holding ``(stamp, value)``. A stored piece at least as new as ``stamp`` (read
    by the caller, before anything the piece shows) is returned. An older one is still returned
    while the stale marker of its state lives (:func:`stale_marker_key`, one more cache read): the
    first result it misses was recorded less than ``BRAWL_PAGE_STALE_SECONDS`` ago, and a refresh
    is on its way in a worker. Otherwise the piece is computed here, as without a refresh, and
    stored unless a newer one got there first (:func:`store_if_newer`). Values must pickle.
    """
    entry = _entry(cache.get(key))
    if entry is not None:
        stored, value = entry
        if at_least(stored, stamp):
            return cast(T, value), stored
        if scope and is_stale_ok(scope, stored):
            return cast(T, value), stored
    value = compute()
    store_if_newer(key, stamp, value, timeout)
    return value, stamp


def stored_stamp(key: str) -> Stamp | None:
    """The stamp of the piece stored under ``key``; ``None`` if none is (not read in :data:`PAGE_CACHE_SECONDS`)."""
    entry = _entry(cache.get(key))
    return entry[0] if entry is not None else None


def is_current(key: str, stamp: Stamp) -> bool:
    """Whether the piece stored under ``key`` is at least as new as ``stamp``."""
    stored = stored_stamp(key)
    return stored is not None and at_least(stored, stamp)


def is_behind(key: str, stamp: Stamp) -> bool:
    """Whether a piece is stored under ``key`` (read lately) and older than ``stamp``."""
    stored = stored_stamp(key)
    return stored is not None and not at_least(stored, stamp)


def store_if_newer(
    key: str, stamp: Stamp, value: object, timeout: int = PAGE_CACHE_SECONDS, *, wait: float = 0
) -> bool:
    """Stores ``(stamp, value)`` under ``key`` unless the piece there is as new or newer; returns whether it did.

    Two processes computing the same piece from different states (two refreshes, or a refresh and
    a reader) may finish in either order; the piece left is never the older one. The read, the
    comparison and the write happen under a lock taken with the cache's atomic ``add``, held for
    at most :data:`LOCK_SECONDS`. A stored piece whose stamp is not comparable (another shape) is
    replaced. ``wait``: seconds to wait for the lock (a reader does not wait: it has its value
    already, and whoever holds the lock is storing one too).
    """
    lock = f"{key}:lock"
    deadline = time.monotonic() + wait
    while not cache.add(lock, 1, timeout=LOCK_SECONDS):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)
    try:
        entry = _entry(cache.get(key))
        if (
            entry is not None
            and len(entry[0]) == len(stamp)
            and (at_least(entry[0], stamp) or not at_least(stamp, entry[0]))
        ):
            return False  # as new, newer, or neither: a reader at the current state settles it
        cache.set(key, (stamp, value), timeout)
        return True
    finally:
        cache.delete(lock)
