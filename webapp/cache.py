"""The cache of the embedded defaults, and the helpers that cache pieces of pages under keys naming their data.

One store shared by every process of the machine.

Throttle counters and computed replay frames must be shared by all web processes (gunicorn runs
several), or each process counts on its own and a limit of 600 lets thousands through. With
``REDIS_URL`` the cache is Redis; without it, this file-based cache under ``BRAWL_VAR_DIR/cache``.

Django's file cache lists its whole directory on every write to decide whether to cull; with a few
thousand entries that made a throttle check cost 8-16 ms here (Django's database cache: 16-18 ms,
it counts its rows on every write). Culling on one write in a hundred costs 2.6 ms per check
(get and set; measured with 2,000 entries, load average about 8; local memory: 0.02 ms, not
shared). The directory can then overshoot ``MAX_ENTRIES`` by at most a hundred writes' worth.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar, cast

from django.core.cache import cache
from django.core.cache.backends.filebased import FileBasedCache
from django.db import transaction

T = TypeVar("T")
MISSING = object()

CULL_EVERY = 100
"""On average one write in this many checks whether the cache is over ``MAX_ENTRIES``."""


class SharedFileCache(FileBasedCache):
    """Django's file-based cache, culling on one write in :data:`CULL_EVERY`."""

    def _cull(self) -> None:
        # Which write culls does not matter, only that it happens now and then: not a secret, not a seed.
        if random.random() < 1 / CULL_EVERY:
            super()._cull()


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


def bots_generation() -> int:
    """Returns the current bots generation (0 until a bot changes); part of the keys of leaderboard pieces."""
    return int(cache.get(BOTS_GENERATION_KEY, 0))


def _bump() -> None:
    try:
        cache.incr(BOTS_GENERATION_KEY)
    except ValueError:  # not set yet (or evicted): any value other than the last one read will do
        cache.set(BOTS_GENERATION_KEY, int(time.time() * 1000), None)


def bump_bots_generation() -> None:
    """Invalidates every cached piece that shows bots: now, and again once the current transaction commits.

    The second bump is the one that matters: a request between the two may cache what it read
    before the commit under the first bump's key. The first makes the change visible at once where
    commit hooks never run (inside a test's transaction).
    """
    _bump()
    transaction.on_commit(_bump)
