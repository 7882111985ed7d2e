"""The per-worker environment of ``tests/conftest.py``: pytest-xdist workers never share a Redis database."""

from __future__ import annotations

import pytest

from tests.conftest import REDIS_ROLES, redis_db, worker_environment

BASE = {"REDIS_URL": "redis://127.0.0.1:6385/0", "BRAWL_TEST_REDIS_DB": "13", "BRAWL_CLUSTER_REDIS_DB": "12"}


def numbers(env: dict[str, str]) -> list[int]:
    """The Redis databases a worker uses: its ``REDIS_URL``'s and one per role."""
    url = env.get("REDIS_URL", BASE["REDIS_URL"])
    return [redis_db(url), *(int(env[name]) for name in REDIS_ROLES)]


def test_four_workers_use_sixteen_distinct_databases_and_their_own_var_folders() -> None:
    envs = [worker_environment(i, BASE, f"/tmp/var/gw{i}") for i in range(4)]
    used = [n for env in envs for n in numbers(env)]
    assert sorted(used) == list(range(16)), used
    assert numbers(envs[0]) == [0, 13, 12, 14], "the first worker keeps the given numbers"
    assert envs[1]["REDIS_URL"] == "redis://127.0.0.1:6385/1", "same server, another database"
    assert len({env["BRAWL_VAR_DIR"] for env in envs}) == 4


def test_a_worker_beyond_what_redis_holds_is_refused_naming_the_limit() -> None:
    with pytest.raises(pytest.UsageError, match="enough for 4 test workers"):
        worker_environment(4, BASE, "/tmp/var/gw4")
