"""Rate limits hold across processes: two real web servers share one count.

Two gunicorn processes serve the site on loopback with the anonymous rate at 5 an hour, and the
test alternates its requests between them. With counters per process each would let 5 through (10
in all); with the shared cache the sixth request, whichever process gets it, is refused. Both
caches are tried: Redis (``REDIS_URL``, the production setting) and the file cache of the embedded
defaults (no ``REDIS_URL``). A forged ``X-Forwarded-For`` on every request changes nothing, since no
proxy is trusted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.workers.stack import free_port, wait_until

REPO = Path(__file__).resolve().parents[2]
LIMIT = 5


def status(url: str, forged: str) -> int:
    request = urllib.request.Request(url, headers={"X-Forwarded-For": forged})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def up(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture(params=["redis", "file"])
def servers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[str]]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(REPO),
        "DJANGO_SETTINGS_MODULE": "webapp.settings",
        "BRAWL_VAR_DIR": str(tmp_path),
        "BRAWL_THROTTLE_ANON": f"{LIMIT}/hour",
    }
    if os.environ.get("DATABASE_URL"):
        env["DATABASE_URL"] = os.environ["DATABASE_URL"]
    if request.param == "redis":
        base = os.environ.get("REDIS_URL")
        if not base:
            pytest.fail("REDIS_URL is needed for the Redis partition (make test provides it)")
        redis_url = base.rsplit("/", 1)[0] + "/" + os.environ.get("BRAWL_TEST_REDIS_DB", "5")
        env["REDIS_URL"] = redis_url
        import redis

        client = redis.Redis.from_url(redis_url)
        for key in client.scan_iter("*throttle_anon_*"):
            client.delete(key)
    procs, urls = [], []
    try:
        for _ in range(2):
            port = free_port()
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "gunicorn", "webapp.wsgi:application", "-b", f"127.0.0.1:{port}", "-w", "1"],
                    cwd=REPO,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            urls.append(f"http://127.0.0.1:{port}")
        for url in urls:
            wait_until(lambda url=url: up(f"{url}/healthz"), 60, f"gunicorn at {url}")
        yield urls
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_two_processes_share_one_count(servers: list[str]) -> None:
    codes = [status(f"{servers[i % 2]}/api/v1/games/", forged=f"10.9.8.{i}") for i in range(LIMIT + 3)]
    assert codes == [200] * LIMIT + [429] * 3
