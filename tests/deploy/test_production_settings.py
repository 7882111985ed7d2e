"""Production settings fail fast, in a fresh interpreter, with a message that names the fix.

Each case starts ``python -c 'import django; ...'`` with ``BRAWL_ENV=production`` and a chosen
environment, exactly as a container would start. Partitions: secret key missing, set to the
development default, or real; allowed hosts missing or set; environment name valid or not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.deploy.helpers import load_settings_in_subprocess

COMPLETE = {
    "BRAWL_ENV": "production",
    "SECRET_KEY": "a-test-key-that-is-not-the-development-default",
    "ALLOWED_HOSTS": "brawl.example.org",
    "DATABASE_URL": "postgresql://brawl:pw@db.invalid:5432/brawl",
    "REDIS_URL": "redis://redis.invalid:6379/0",
    "BRAWL_INTERNAL_TOKEN": "a-test-internal-token-of-32-characters",
}
"""A production environment that loads (nothing is connected to while settings load)."""


def without(name: str) -> dict[str, str]:
    return {k: v for k, v in COMPLETE.items() if k != name}


def test_complete_production_environment_loads(tmp_path: Path) -> None:
    result = load_settings_in_subprocess({**COMPLETE, "BRAWL_VAR_DIR": str(tmp_path)}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["django.db.backends.postgresql", "False"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (without("SECRET_KEY"), "environment variable SECRET_KEY is required"),
        ({**COMPLETE, "SECRET_KEY": ""}, "environment variable SECRET_KEY is required"),
        (
            {**COMPLETE, "SECRET_KEY": "insecure-dev-only-secret-key-do-not-use-in-production"},
            "SECRET_KEY is the insecure development default",
        ),
        (without("ALLOWED_HOSTS"), "ALLOWED_HOSTS is required in production"),
        ({**COMPLETE, "BRAWL_ENV": "prod"}, "environment variable BRAWL_ENV='prod' is malformed"),
        (without("BRAWL_INTERNAL_TOKEN"), "environment variable BRAWL_INTERNAL_TOKEN is required"),
        ({**COMPLETE, "BRAWL_INTERNAL_TOKEN": "short"}, "BRAWL_INTERNAL_TOKEN must be at least 24 characters"),
    ],
    ids=[
        "no-secret-key",
        "empty-secret-key",
        "dev-secret-key",
        "no-allowed-hosts",
        "bad-env-name",
        "no-internal-token",
        "short-internal-token",
    ],
)
def test_production_refuses_to_start_with_a_clear_message(env: dict[str, str], message: str, tmp_path: Path) -> None:
    result = load_settings_in_subprocess({**env, "BRAWL_VAR_DIR": str(tmp_path)}, tmp_path)
    assert result.returncode != 0, f"settings loaded without complaint: {result.stdout}"
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("common.settings.ConfigurationError: "), result.stderr[-1500:]
    assert message in last_line


def test_development_needs_no_secret(tmp_path: Path) -> None:
    # The other side of the partition: the one-machine default starts with nothing set.
    result = load_settings_in_subprocess({"BRAWL_VAR_DIR": str(tmp_path / "var")}, tmp_path)
    assert result.returncode == 0, result.stderr
    # Debug pages are off unless asked for, even on the one-machine default (issue 11).
    assert result.stdout.split() == ["django.db.backends.sqlite3", "False"]


def test_debug_pages_only_when_asked(tmp_path: Path) -> None:
    result = load_settings_in_subprocess({"BRAWL_VAR_DIR": str(tmp_path / "var"), "DEBUG": "true"}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["django.db.backends.sqlite3", "True"]
