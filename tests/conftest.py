"""Shared test configuration: each pytest-xdist worker gets resources of its own.

``make test`` runs the default suite on pytest-xdist workers (``-n``, ``--dist loadfile``: the
tests of one file stay together on one worker, in order). Two workers must never share a piece of
state one of them flushes or rewrites, so before a worker process starts pytest (and so before
Django reads its settings) the controller gives it its own environment:

- ``REDIS_URL``: the same server, a database number of the worker's own (the web cache, the
  referee relay tests, the broker stress test); worker ``gw0`` keeps the given number.
- ``BRAWL_TEST_REDIS_DB`` (13 by default: the workers' tests, the shared-limits test),
  ``BRAWL_CLUSTER_REDIS_DB`` (12: the cluster test) and ``BRAWL_SPARE_REDIS_DB`` (14: the metrics
  and ``brawl run`` tests): ``gw0`` keeps them, every other worker takes four unused numbers of
  the 16 a Redis server has, so at most four workers run at once.
- ``BRAWL_VAR_DIR``: a folder of the worker's own (SQLite, replay files, the file cache and
  broker folders of code that does not get one from its test), removed when the run ends.

PostgreSQL test databases are suffixed with the worker id (``_gw0``, ``_gw1``): pytest-django
does it for its default name, and the workers' and cluster conftests do it for theirs. Ports are
picked free (port 0) by the tests, and ``tmp_path`` is per worker already. Without ``-n`` nothing
here changes anything.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

REDIS_ROLES = {"BRAWL_TEST_REDIS_DB": 13, "BRAWL_CLUSTER_REDIS_DB": 12, "BRAWL_SPARE_REDIS_DB": 14}
"""The Redis database numbers the tests use besides ``REDIS_URL``'s own, with their defaults."""

REDIS_DATABASES = 16
"""The databases of a default Redis server."""

LONGEST_FILES = (
    "tests/kits/test_kits.py",  # first on a fresh machine: it builds the Go, C++ and Java kits
    "tests/workers/test_split_referees.py",
    "tests/workers/test_tournaments.py",
    "tests/workers/test_ladder.py",
    "tests/webapp/test_fuzz_api.py",
    "tests/workers/test_recovery.py",
    "tests/cluster/test_cluster.py",
    "tests/run/test_run_command.py",
    "tests/games/scrumbrawl/test_conformance.py",
    "tests/games/superfantasybrawl/test_conformance.py",
    "tests/run/test_restart.py",
    "tests/webapp/test_viewer_browser.py",
    "tests/webapp/test_browser_flows.py",
    "tests/ladder/test_matchmaking_week.py",
    "tests/referee/test_play.py",
    "tests/authors/test_doc_commands.py",
    "tests/webapp/test_leak_scan.py",
)
"""The default suite's longest test files, longest first (``--durations``, measured on 2 cores).

Under ``--dist loadfile`` the workers take these before any other file, so that no long file is
left to run alone at the end while the other workers are idle. A name that no longer exists is
ignored; a new long file missing here costs only wall time."""

_var_root: str | None = None
"""The controller's folder holding the workers' var folders (created with the first worker)."""


def redis_db(url: str) -> int:
    """The database number of a Redis URL (0 when it names none)."""
    path = urlsplit(url).path.strip("/")
    return int(path) if path.isdigit() else 0


def with_redis_db(url: str, number: int) -> str:
    """``url`` with its database number replaced."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{number}", parts.query, parts.fragment))


def worker_environment(index: int, environ: Mapping[str, str], var_dir: str) -> dict[str, str]:
    """The variables worker number ``index`` (``gw<index>``) runs with, on top of the controller's.

    Raises ``pytest.UsageError`` when the Redis server has too few databases for that many workers.
    """
    url = environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    given = {name: int(environ.get(name, default)) for name, default in REDIS_ROLES.items()}
    env = {"BRAWL_VAR_DIR": var_dir}
    if index == 0:
        env.update({name: str(number) for name, number in given.items()})
        return env
    taken = {redis_db(url), *given.values()}
    free = sorted(set(range(REDIS_DATABASES)) - taken)
    per_worker = 1 + len(REDIS_ROLES)
    mine = free[(index - 1) * per_worker : index * per_worker]
    if len(mine) < per_worker:
        raise pytest.UsageError(
            f"worker gw{index}: Redis has {REDIS_DATABASES} databases, enough for "
            f"{1 + len(free) // per_worker} test workers; run with fewer (-n)"
        )
    env["REDIS_URL"] = with_redis_db(url, mine[0])
    env.update({name: str(number) for name, number in zip(REDIS_ROLES, mine[1:], strict=True)})
    return env


def pytest_xdist_newgateway(gateway: Any) -> None:
    """Sets the new worker process's environment before its pytest (and Django) starts."""
    global _var_root
    if _var_root is None:
        _var_root = tempfile.mkdtemp(prefix="brawl-test-var-")
    worker = str(gateway.id)
    index = int(worker.removeprefix("gw"))
    env = worker_environment(index, os.environ, os.path.join(_var_root, worker))
    channel = gateway.remote_exec("import os\nos.environ.update(channel.receive())")
    channel.send(env)
    channel.waitclose()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Removes the workers' var folders once the controller is done."""
    if _var_root is not None and not hasattr(config, "workerinput"):
        shutil.rmtree(_var_root, ignore_errors=True)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile``, with the longest files handed out first (``LONGEST_FILES``)."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

    class LongestFilesFirst(LoadFileScheduling):  # type: ignore[misc]
        def _assign_work_unit(self, node: Any) -> None:
            for scope in LONGEST_FILES:
                if scope in self.workqueue:
                    self.workqueue.move_to_end(scope, last=False)
                    break
            super()._assign_work_unit(node)

    return LongestFilesFirst(config, log)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With ``BRAWL_FORBID_SKIPS=1`` (set by scripts/test.sh under CI) a skipped test fails the run.

    The skips in this suite guard tools a developer's machine may lack (bubblewrap, Chromium,
    writable cgroups); ``make test`` installs them where it may, so on CI a skip means a test
    silently stopped running, and the run must say so rather than pass.
    """
    if os.environ.get("BRAWL_FORBID_SKIPS") != "1" or hasattr(session.config, "workerinput"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if skipped:
        for report in skipped:
            print(f"\nskipped under BRAWL_FORBID_SKIPS: {report.nodeid}: {report.longrepr}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


CHROMIUM = os.environ.get("BRAWL_CHROMIUM", "/usr/bin/chromium")
"""Debian's Chromium: no test downloads a browser of its own."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium (playwright driving Debian's binary), one per test module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
            ],
        )
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A desktop-sized page in a fresh context; the test fails on any JavaScript error it raised."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert not errors, f"JavaScript errors: {errors}"
