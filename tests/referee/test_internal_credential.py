"""The internal API's service credential: where it comes from and when a process refuses to start.

Partitions: ``BRAWL_INTERNAL_TOKEN`` set (long enough, too short); unset on embedded defaults (file
created 0600, then re-read by a second reader; a file other users may read; an empty file); unset
in production (the referee and worker processes exit at start with the reason).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from common.credential import InternalTokenError, credential_matches, internal_token

ROOT = Path(__file__).resolve().parents[2]


def test_the_environment_wins_and_a_short_secret_is_refused(tmp_path: Path) -> None:
    secret = "s" * 32
    assert internal_token({"BRAWL_INTERNAL_TOKEN": secret, "BRAWL_VAR_DIR": str(tmp_path)}) == secret
    assert not (tmp_path / "internal-token").exists(), "no file when the environment gives the secret"
    with pytest.raises(InternalTokenError, match="at least 24"):
        internal_token({"BRAWL_INTERNAL_TOKEN": "short", "BRAWL_VAR_DIR": str(tmp_path)})


def test_embedded_defaults_generate_one_private_secret_that_every_process_reads(tmp_path: Path) -> None:
    env = {"BRAWL_VAR_DIR": str(tmp_path / "var")}
    first = internal_token(env)
    path = tmp_path / "var" / "internal-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first) >= 32 and internal_token(env) == first
    assert internal_token({"BRAWL_VAR_DIR": str(tmp_path / "other")}) != first, "generated, not a constant"
    path.chmod(0o644)
    with pytest.raises(InternalTokenError, match="readable by other users"):
        internal_token(env)
    path.chmod(0o600)
    path.write_text("\n")
    with pytest.raises(InternalTokenError, match="no usable secret"):
        internal_token(env)


def test_production_without_a_secret_fails_at_start(tmp_path: Path) -> None:
    with pytest.raises(InternalTokenError, match="required in production"):
        internal_token({"BRAWL_ENV": "production", "BRAWL_VAR_DIR": str(tmp_path)})
    env = {k: v for k, v in os.environ.items() if k != "BRAWL_INTERNAL_TOKEN"}
    env.update(PYTHONPATH=str(ROOT), BRAWL_ENV="production", BRAWL_VAR_DIR=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-m", "service.cli", "referee", "--listen", "127.0.0.1:0", "--tokens", str(tmp_path / "t")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "BRAWL_INTERNAL_TOKEN is required in production" in proc.stderr
    worker = subprocess.run(
        [sys.executable, "-m", "service.cli", "worker", "--concurrency", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert worker.returncode == 2, worker.stdout + worker.stderr
    assert "BRAWL_INTERNAL_TOKEN is required in production" in worker.stderr


def test_credentials_compare_exactly() -> None:
    secret = "x" * 30
    assert credential_matches(secret, secret)
    for wrong in (None, "", secret[:-1], secret + "x", secret.upper()):
        assert not credential_matches(wrong, secret)
