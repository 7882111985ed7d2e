"""Fixtures for the cluster test: a committed database and a Redis database of its own, shared by real processes.

The same pattern as ``tests/workers/conftest.py`` (pytest-django's database with
``transaction=True``, so the subprocesses see what the test writes), with their own names so the
two suites never share state: database ``test_<database>_cluster`` (plus ``_gwN`` under pytest-xdist) and Redis database
``BRAWL_CLUSTER_REDIS_DB`` (12 by default), flushed before and after the test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

import pytest

from tests.workers.conftest import GAME, database_url
from tests.workers.stack import Stack

VISIBILITY_TIMEOUT = 40
"""Seconds before Redis hands a dead worker's messages to another: above the tasks' longest retry
countdown (30 s), or a retrying ``start_match`` waiting out its countdown is redelivered and runs
again, and each copy retries in turn (seen with 6 s: hundreds of copies of one task)."""


def cluster_redis_url() -> str:
    """Returns the URL of the cluster test's own Redis database."""
    base = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    parts = urlsplit(base)
    return urlunsplit((parts.scheme, parts.netloc, f"/{os.environ.get('BRAWL_CLUSTER_REDIS_DB', '12')}", "", ""))


@pytest.fixture(scope="session")
def django_db_modify_db_settings() -> None:
    """Gives this suite's test database its own name."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    # Named after the configured database, so suites run side by side against different ones never meet.
    name = f"test_{db['NAME']}_cluster"
    # One database per pytest-xdist worker (pytest-django's own name gets the same suffix).
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    db.setdefault("TEST", {})["NAME"] = f"{name}_{worker}" if worker else name


@pytest.fixture
def cluster(transactional_db: Any, tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    """An empty stack on a fresh committed database and a flushed Redis database, with the reaper's deadlines short.

    Every process started from it shares the environment below; the caller starts the processes.
    """
    import redis

    url = cluster_redis_url()
    client = redis.Redis.from_url(url)
    client.flushdb()
    monkeypatch.setenv("REDIS_URL", url)
    from workers.celery import app

    # Tests send tasks through the workers' app too (the web app's dispatch, webapp.tasks_out, follows
    # REDIS_URL by itself), so it needs the same broker.
    app.conf.broker_url = url
    app.conf.broker_transport_options = {"visibility_timeout": VISIBILITY_TIMEOUT}
    # Drop pooled broker connections: an earlier suite pointed the app at another Redis database,
    # and the pools would keep sending there.
    app._after_fork()  # resets both the connection pool and the producer pool
    settings.BRAWL_DISPATCH = "celery"
    settings.BRAWL_RUN_MATCH_TASK = "workers.tasks.start_match"
    stack = Stack(
        tmp_path,
        {
            "DATABASE_URL": database_url(),
            "REDIS_URL": url,
            "BRAWL_LADDER_GAMES": GAME,
            "BRAWL_LADDER_INTERVAL": "1",
            # Three bots use up their rematch limit in seconds; the ladder must keep playing.
            "BRAWL_REMATCH_PATIENCE": "1",
            "BRAWL_TOURNAMENT_INTERVAL": "2",
            "BRAWL_REAPER_INTERVAL": "2",
            "BRAWL_BROKER_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
            # Short deadlines so a lost match is found within seconds, not minutes.
            "BRAWL_REAPER_START_GRACE": "4",
            "BRAWL_REAPER_RESULT_GRACE": "6",
            "BRAWL_REAPER_SILENCE": "10",
            "BRAWL_REAPER_QUEUE_GRACE": "6",
            # A dead referee's matches are taken over about one lease after it died.
            "BRAWL_REFEREE_LEASE": "3",
            "BRAWL_ENV": "test",
            "LOG_LEVEL": "INFO",
        },
    )
    try:
        yield stack
    finally:
        stack.stop()
        from django.db import connections

        for conn in connections.all():
            conn.close()
        client.flushdb()
