"""``brawl token`` and the environment-driven settings.

Partitions: token for a new bot or an existing one; owner right or wrong; settings in development
or production, with or without a secret; database URL PostgreSQL, SQLite or malformed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import main
from webapp.bots.models import Bot, BotToken
from webapp.bots.services import hash_token
from webapp.config import ConfigurationError, env, parse_bool, parse_database_url

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_token_create_prints_the_token_once_and_list_shows_prefixes(capsys) -> None:
    assert main(["token", "create", "--bot", "House1", "--game", "tinygame", "--owner", "house", "--house"]) == 0
    token = capsys.readouterr().out.strip()
    bot = Bot.objects.get(name="House1")
    assert bot.is_house and BotToken.objects.get(bot=bot).token_hash == hash_token(token)
    assert main(["token", "list"]) == 0
    listed = capsys.readouterr().out
    assert token not in listed and token[:12] in listed
    assert main(["token", "create", "--bot", "House1", "--game", "tinygame", "--owner", "intruder"]) == 2
    assert main(["token", "revoke", "--prefix", token[:12]]) == 0
    assert BotToken.objects.get(bot=bot).revoked_at is not None


def test_token_create_refuses_unknown_game(capsys) -> None:
    assert main(["token", "create", "--bot", "x", "--game", "chess", "--owner", "o"]) == 2
    assert "unknown game" in capsys.readouterr().err


def settings_import(env_vars: dict[str, str]) -> subprocess.CompletedProcess[str]:
    code = "import webapp.settings as s; print(s.DEBUG, s.DATABASES['default']['ENGINE'], s.SECRET_KEY[:8])"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", **env_vars},
        capture_output=True,
        text=True,
        timeout=60,
    )


PRODUCTION = {
    "BRAWL_ENV": "production",
    "ALLOWED_HOSTS": "x.org",
    "SECRET_KEY": "s3cret-value",
    "DATABASE_URL": "postgresql://brawl@db.invalid:5432/brawl",
    "REDIS_URL": "redis://redis.invalid:6379/0",
    "BRAWL_INTERNAL_TOKEN": "an-internal-token-of-at-least-24-chars",
}


@pytest.mark.parametrize("name", ["SECRET_KEY", "DATABASE_URL", "REDIS_URL", "BRAWL_INTERNAL_TOKEN"])
def test_production_requires_secret_database_and_redis(tmp_path, name) -> None:
    env = {k: v for k, v in PRODUCTION.items() if k != name}
    missing = settings_import({**env, "BRAWL_VAR_DIR": str(tmp_path)})
    assert missing.returncode != 0 and f"{name} is required" in missing.stderr


def test_complete_production_settings_load(tmp_path) -> None:
    ok = settings_import({**PRODUCTION, "BRAWL_VAR_DIR": str(tmp_path)})
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.split() == ["False", "django.db.backends.postgresql", "s3cret-v"]


def test_development_defaults_are_marked_insecure_and_show_no_debug_pages(tmp_path) -> None:
    """Debug pages (settings, SQL, source) appear only when DEBUG=true is asked for, even in development."""
    dev = settings_import({"BRAWL_VAR_DIR": str(tmp_path)})
    assert dev.returncode == 0, dev.stderr
    assert dev.stdout.split() == ["False", "django.db.backends.sqlite3", "insecure"]
    asked = settings_import({"BRAWL_VAR_DIR": str(tmp_path), "DEBUG": "true"})
    assert asked.stdout.split()[0] == "True", asked.stderr


def test_trusted_proxies_must_be_addresses(tmp_path) -> None:
    bad = settings_import({"BRAWL_VAR_DIR": str(tmp_path), "BRAWL_TRUSTED_PROXIES": "10.0.0.0/8,proxy.local"})
    assert bad.returncode != 0 and "BRAWL_TRUSTED_PROXIES" in bad.stderr


def test_env_helpers(monkeypatch) -> None:
    monkeypatch.setenv("X_BOOL", "yes")
    assert env("X_BOOL", parse_bool) is True
    monkeypatch.setenv("X_INT", "twelve")
    with pytest.raises(ConfigurationError, match="X_INT"):
        env("X_INT", int)
    with pytest.raises(ConfigurationError, match="required"):
        env("X_MISSING", str, required=True)
    pg = parse_database_url("postgresql://postgres@127.0.0.1:5432/brawl_test")
    assert (pg.engine, pg.name, pg.user, pg.host, pg.port) == (
        "django.db.backends.postgresql",
        "brawl_test",
        "postgres",
        "127.0.0.1",
        "5432",
    )
    with pytest.raises(ValueError, match="unsupported"):
        parse_database_url("mysql://x/y")


@pytest.mark.parametrize("server", ["gunicorn", "django"])
def test_brawl_web_migrates_and_serves(tmp_path, server) -> None:
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"PATH": "/usr/bin:/bin", "BRAWL_VAR_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "webapp.settings"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "service.cli",
            "web",
            "--addr",
            f"127.0.0.1:{port}",
            "--server",
            server,
            "--workers",
            "1",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    assert r.status == 200 and r.read() == b"ok"
                    break
            except OSError:
                assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
                assert time.monotonic() < deadline, "brawl web did not answer within 60 s"
                time.sleep(0.3)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/webapp/js/viewer.js", timeout=5) as r:
            assert r.status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert (tmp_path / "brawl.sqlite3").exists()
