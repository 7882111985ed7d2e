"""Bounded waiting for long-polls: how many requests of one web process may wait for news at once.

A long-poll (``matches/<id>/live/?wait=``, ``bots/<id>/events/?wait=``) holds a server thread
for as long as it waits. Without a bound, a handful of anonymous long-polls take every thread of
a threaded server and every other request, ``/healthz`` and the referees' token checks among
them, queues behind them. :func:`wait_slot` hands out at most :data:`SLOTS` waiting slots per
process; a request that finds them all taken does not wait: it answers at once with what there
is and tells the client when to come back (``Retry-After``), so the other threads stay free.

This module is not a rate limit (DRF's throttles count requests) and not a push channel; it only
bounds how many threads may be spent waiting.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from django.conf import settings

RETRY_AFTER_SECONDS = 3
"""What a request refused a waiting slot asks its client to wait before polling again."""

_lock = threading.Lock()
_taken = 0


def slots() -> int:
    """Waiting slots of this process (``BRAWL_LONGPOLL_SLOTS``, read through the settings)."""
    return int(getattr(settings, "BRAWL_LONGPOLL_SLOTS", 2))


def waiting() -> int:
    """How many requests of this process are waiting now."""
    return _taken


@contextlib.contextmanager
def wait_slot(wait: float) -> Iterator[float]:
    """Yields how long the request may wait: ``wait`` with a free slot (held until the block ends), else 0.

    A request asking for no wait takes no slot. Callers that get 0 for a positive ``wait`` answer
    with :data:`RETRY_AFTER_SECONDS` in a ``Retry-After`` header (see :func:`refused`).
    """
    global _taken
    if wait <= 0:
        yield 0.0
        return
    with _lock:
        granted = _taken < slots()
        if granted:
            _taken += 1
    if not granted:
        yield 0.0
        return
    try:
        yield wait
    finally:
        with _lock:
            _taken -= 1


def refused(asked: float, granted: float) -> bool:
    """Whether a request that asked to wait ``asked`` seconds was refused a slot."""
    return asked > 0 and granted <= 0
