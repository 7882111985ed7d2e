"""The cache of the embedded defaults: one store shared by every process of the machine.

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

from django.core.cache.backends.filebased import FileBasedCache

CULL_EVERY = 100
"""On average one write in this many checks whether the cache is over ``MAX_ENTRIES``."""


class SharedFileCache(FileBasedCache):
    """Django's file-based cache, culling on one write in :data:`CULL_EVERY`."""

    def _cull(self) -> None:
        # Which write culls does not matter, only that it happens now and then: not a secret, not a seed.
        if random.random() < 1 / CULL_EVERY:
            super()._cull()
