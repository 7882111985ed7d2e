"""A ladder referee with no database credentials checks bot tokens through the web tier.

Real processes: the web app served by a real HTTP server on loopback (pytest-django's live server,
with the test's database), and ``brawl referee`` in ladder mode as a subprocess whose environment
holds no ``DATABASE_URL``, no Django settings and no Redis (embedded broker) - only
``BRAWL_WEB_INTERNAL_URL`` and the internal service credential. Bots connect over gRPC with
tokens the web app issued. ``WebTokenStore`` itself is also checked against the live server
(answers, the cache, re-checks that bypass it, a web tier that is down).
"""

from __future__ import annotations

import asyncio
import os
import queue
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from brawl.bot.v1 import bot_pb2, bot_pb2_grpc
from django.contrib.auth.models import User

from referee.server.auth import TokenServiceError, WebTokenStore
from webapp.bots import services as bot_services
from webapp.bots.models import BotToken

ROOT = Path(__file__).resolve().parents[2]
BRAWL = [sys.executable, "-m", "service.cli"]
SECRET = "token-service-" + secrets.token_urlsafe(24)

pytestmark = pytest.mark.django_db(transaction=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def web(live_server: Any, monkeypatch: pytest.MonkeyPatch) -> str:
    """The live server's URL; the test process (the web tier) and the referee share the credential."""
    monkeypatch.setenv("BRAWL_INTERNAL_TOKEN", SECRET)
    return str(live_server.url)


@pytest.fixture
def issued() -> bot_services.IssuedToken:
    owner = User.objects.create_user("tomas", password="correct horse battery")
    _, token = bot_services.do_create_bot(owner, "scrumbrawl", "tomas-bot")
    return token


@pytest.fixture
def referee(web: str, tmp_path: Path) -> Iterator[str]:
    """``brawl referee`` in ladder mode, without database credentials; yields its bot port."""
    port, internal = free_port(), free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE", "REDIS_URL") and not k.startswith("PG")
    }
    env.update(
        PYTHONPATH=str(ROOT),
        BRAWL_VAR_DIR=str(tmp_path),
        BRAWL_WEB_INTERNAL_URL=web,
        BRAWL_INTERNAL_TOKEN=SECRET,
    )
    log = open(tmp_path / "referee.log", "wb")  # noqa: SIM115 - the child writes it
    proc = subprocess.Popen(
        [*BRAWL, "referee", "--listen", f"127.0.0.1:{port}", "--internal-listen", f"127.0.0.1:{internal}", "--grace=1"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                assert proc.poll() is None, (tmp_path / "referee.log").read_text()
                assert time.monotonic() < deadline, "the referee did not listen within 60 s"
                time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
    assert "django" not in (tmp_path / "referee.log").read_text().lower()


class Session:
    """One bot stream held open: the Hello is sent, then nothing until :meth:`close`."""

    def __init__(self, server: str, token: str) -> None:
        self.channel = grpc.insecure_channel(server)
        self._done = threading.Event()
        stub: Any = bot_pb2_grpc.BotServiceStub(self.channel)
        self.call = stub.Connect(self._requests(), metadata=(("authorization", f"Bearer {token}"),))
        self.messages: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _requests(self) -> Iterator[bot_pb2.ConnectRequest]:
        yield bot_pb2.ConnectRequest(hello=bot_pb2.Hello(games=["scrumbrawl"], client="token-service-test"))
        self._done.wait()

    def _read(self) -> None:
        try:
            for msg in self.call:
                self.messages.put(msg.WhichOneof("message"))
            self.messages.put("end")
        except grpc.RpcError as exc:
            self.messages.put(exc.code())

    def next(self, timeout: float = 20.0) -> Any:
        return self.messages.get(timeout=timeout)

    def close(self) -> None:
        self._done.set()
        self.call.cancel()
        self.channel.close()


def test_a_ladder_referee_without_database_credentials_admits_and_refuses_through_the_web_tier(
    referee: str, issued: Any
) -> None:
    good = Session(referee, issued.token)
    bad = Session(referee, "brawl_" + "u" * 43)
    try:
        assert good.next() == "welcome"
        assert bad.next() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        good.close()
        bad.close()
    # The web tier recorded the use; the referee never saw the database.
    assert BotToken.objects.get(pk=issued.record.pk).last_used_at is not None


@pytest.mark.slow
def test_a_revoked_token_closes_its_live_session_at_the_next_recheck(referee: str, issued: Any) -> None:
    session = Session(referee, issued.token)
    try:
        assert session.next() == "welcome"
        bot_services.do_revoke_token(BotToken.objects.get(pk=issued.record.pk))
        # The hub re-checks every 10 s and bypasses the store's cache: the stream ends by then.
        deadline = time.monotonic() + 25
        ending = session.next(timeout=25)
        while isinstance(ending, str) and ending != "end":  # other messages until the stream ends
            ending = session.next(timeout=max(0.1, deadline - time.monotonic()))
        again = Session(referee, issued.token)
        try:
            assert again.next() == grpc.StatusCode.UNAUTHENTICATED
        finally:
            again.close()
    finally:
        session.close()


def test_the_store_answers_caches_and_rechecks_against_the_live_web_tier(web: str, issued: Any) -> None:
    store = WebTokenStore(web, SECRET, ttl=3600)
    identity = asyncio.run(store.authenticate(issued.token))
    assert identity is not None
    bot = issued.record.bot
    assert (identity.bot_id, identity.name, identity.owner) == (str(bot.pk), "tomas-bot", str(bot.owner_id))
    assert identity.games == frozenset({"scrumbrawl"}) and identity.may_play("scrumbrawl")
    assert asyncio.run(store.authenticate("brawl_" + "z" * 43)) is None
    bot_services.do_revoke_token(BotToken.objects.get(pk=issued.record.pk))
    # Within its TTL the cached answer stands for a connecting bot; a re-check always asks.
    assert asyncio.run(store.authenticate(issued.token)) == identity
    assert asyncio.run(store.recheck(issued.token)) is None
    assert asyncio.run(store.authenticate(issued.token)) is None


def test_the_store_says_when_the_web_tier_is_down_or_refuses_it(web: str, issued: Any) -> None:
    with pytest.raises(TokenServiceError, match="answered 401"):
        asyncio.run(WebTokenStore(web, "wrong-" + "w" * 30).authenticate(issued.token))
    down = WebTokenStore(f"http://127.0.0.1:{free_port()}", SECRET, timeout=1)
    with pytest.raises(TokenServiceError, match="no answer"):
        asyncio.run(down.authenticate(issued.token))
    with pytest.raises(ValueError, match="http"):
        WebTokenStore("ftp://web", SECRET)


def test_a_malformed_web_url_stops_the_referee_at_start_naming_the_variable(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE", "REDIS_URL")}
    env.update(PYTHONPATH=str(ROOT), BRAWL_VAR_DIR=str(tmp_path), BRAWL_WEB_INTERNAL_URL="web:8000")
    done = subprocess.run(
        [*BRAWL, "referee", "--listen", "127.0.0.1:0", "--internal-listen", "127.0.0.1:0", "--no-relay"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "error: BRAWL_WEB_INTERNAL_URL:" in done.stderr and "'web:8000'" in done.stderr
    assert "Traceback" not in done.stderr
