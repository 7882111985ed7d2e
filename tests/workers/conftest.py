"""Fixtures for the workers' tests: a database the worker processes can see, a Redis of their own, the stack.

The tests run against real PostgreSQL (``DATABASE_URL``), real Redis (``REDIS_URL``, database
``BRAWL_TEST_REDIS_DB``, 13 by default, flushed before each test), real Celery worker processes,
a real ladder referee process and bots connected over gRPC. pytest-django's database is used
with ``transaction=True``, so what a test writes is committed and visible to the subprocesses;
it is named ``test_<database>_workers`` (``_gw0``... added per pytest-xdist worker) so it never collides.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

import pytest

from tests.workers.stack import Stack

GAME = "superfantasybrawl"
"""The game the workers' tests play: a real engine whose heuristic clearly beats random play."""


def redis_url() -> str:
    """Returns the Redis URL of the tests' own Redis database."""
    base = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    parts = urlsplit(base)
    return urlunsplit((parts.scheme, parts.netloc, f"/{os.environ.get('BRAWL_TEST_REDIS_DB', '13')}", "", ""))


@pytest.fixture(scope="session")
def django_db_modify_db_settings() -> None:
    """Gives this suite's test database its own name."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    # Named after the configured database, so suites run side by side against different ones never meet.
    name = f"test_{db['NAME']}_workers"
    # One database per pytest-xdist worker (pytest-django's own name gets the same suffix).
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    db.setdefault("TEST", {})["NAME"] = f"{name}_{worker}" if worker else name


def database_url() -> str:
    """Returns the URL of the (test) database the current connection uses."""
    from django.db import connection

    d = connection.settings_dict
    if connection.vendor != "postgresql":
        pytest.fail("the workers' tests need PostgreSQL: set DATABASE_URL=postgresql://...")
    auth = d.get("USER") or ""
    if d.get("PASSWORD"):
        auth += f":{d['PASSWORD']}"
    host = f"{d.get('HOST') or '127.0.0.1'}:{d.get('PORT') or 5432}"
    return f"postgresql://{auth}@{host}/{d['NAME']}" if auth else f"postgresql://{host}/{d['NAME']}"


@pytest.fixture
def stack(transactional_db: Any, tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    """A stack of processes on a fresh committed database and a flushed Redis database; stopped afterwards."""
    import redis

    url = redis_url()
    redis.Redis.from_url(url).flushdb()
    monkeypatch.setenv("REDIS_URL", url)
    from workers.celery import app

    # Tests send tasks through the workers' app too (the web app's dispatch, webapp.tasks_out, follows
    # REDIS_URL by itself), so it needs the same broker.
    app.conf.broker_url = url
    app.conf.broker_transport_options = {"visibility_timeout": 6}
    # Drop pooled broker connections: an earlier suite pointed the app at another Redis database,
    # and the pools would keep sending there.
    app._after_fork()  # resets both the connection pool and the producer pool
    settings.BRAWL_DISPATCH = "celery"
    settings.BRAWL_RUN_MATCH_TASK = "workers.tasks.start_match"
    s = Stack(
        tmp_path,
        {
            "DATABASE_URL": database_url(),
            "REDIS_URL": url,
            "BRAWL_LADDER_GAMES": GAME,
            "BRAWL_LADDER_INTERVAL": "1",
            # Three bots use up their rematch limit in seconds; the ladder must keep playing.
            "BRAWL_REMATCH_PATIENCE": "1",
            "BRAWL_TOURNAMENT_INTERVAL": "3",
            "BRAWL_REAPER_INTERVAL": "3",
            "BRAWL_BROKER_VISIBILITY_TIMEOUT": "6",
            "BRAWL_ENV": "test",
            "LOG_LEVEL": "INFO",
        },
    )
    try:
        yield s
    finally:
        s.stop()
        from django.db import connections

        # The subprocesses are gone; drop our own connections too so the flush is not blocked.
        for conn in connections.all():
            conn.close()
