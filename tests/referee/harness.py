"""A real referee on loopback, and helpers to connect real SDK clients to it."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from referee.core import register
from referee.core.ids import BotId
from referee.protocol.timecontrol import TimeSettings
from referee.sdk import BotClient
from referee.server.auth import BotIdentity, MemoryTokenStore
from referee.server.hub import Referee, RefereeSettings
from referee.server.match import MatchRunner, SeatSpec
from referee.server.service import RefereeServer, create_server
from referee.server.sinks import MemoryResultSink
from tests.conformance.tinygame import TinyGame

register(TinyGame())

GAMES = [g for g in os.environ.get("BRAWL_REFEREE_GAMES", "tinygame").split(",") if g]
"""Games every referee test runs on: ``tinygame`` by default; set ``BRAWL_REFEREE_GAMES`` (comma
separated, e.g. ``tinygame,scrumbrawl,superfantasybrawl``) to run them on the real games too."""

FAST = TimeSettings(
    decision_time=0.5, bank_time=1.0, max_overrun=0.25, max_strikes=3, reconnect_grace=1.0, max_rtt_credit=0.05
)
"""A short time control so fault tests end in about a second."""


@dataclass
class Env:
    """A running referee and the tokens issued on it."""

    server: RefereeServer
    store: MemoryTokenStore
    sink: MemoryResultSink
    secret: str = ""
    """The internal API's service credential."""
    tokens: dict[str, str] = field(default_factory=dict)
    clients: list[tuple[BotClient, asyncio.Task[None]]] = field(default_factory=list)

    @property
    def referee(self) -> Referee:
        return self.server.referee

    @property
    def address(self) -> str:
        """The bot port."""
        return f"127.0.0.1:{self.server.port}"

    @property
    def internal(self) -> str:
        """The internal listener (RefereeService)."""
        return f"127.0.0.1:{self.server.internal_port}"

    def api_channel(self, secret: str | None = None) -> grpc.aio.Channel:
        """A channel to the internal listener presenting ``secret`` (default: the right credential)."""
        return grpc.aio.insecure_channel(self.internal, interceptors=bearer(self.secret if secret is None else secret))

    def token(self, bot_id: str, games: frozenset[str] = frozenset()) -> str:
        if bot_id not in self.tokens:
            self.tokens[bot_id] = self.store.issue(BotIdentity(BotId(bot_id), bot_id.upper(), "v1", "tester", games))
        return self.tokens[bot_id]

    def connect(self, factory: Callable[[], Any], bot_id: str, **kw: Any) -> BotClient:
        """Starts a real SDK client for ``bot_id`` (connected in the background)."""
        kw.setdefault("max_matches", 64)
        client = BotClient(factory, self.address, self.token(bot_id), **kw)
        self.clients.append((client, asyncio.create_task(client.run())))
        return client

    def start(self, game: str, seats: list[str], seed: int = 0, time: TimeSettings = FAST, **kw: Any) -> MatchRunner:
        """Starts a match; a seat is a bot id, or ``house:<name>``."""
        specs = [
            SeatSpec(house_bot=s.split(":", 1)[1]) if s.startswith("house:") else SeatSpec(bot_id=BotId(s))
            for s in seats
        ]
        return self.referee.start_match(game=game, seats=specs, seed=seed, time_control=time.to_proto(), **kw)


@asynccontextmanager
async def referee_env(settings: RefereeSettings | None = None, **server_kw: Any) -> AsyncIterator[Env]:
    """Runs a referee on a free loopback port for the duration of the block."""
    store = MemoryTokenStore()
    sink = MemoryResultSink()
    # The workers' client reads the credential from the environment: a test that sets it gets it here.
    secret = os.environ.get("BRAWL_INTERNAL_TOKEN") or "test-" + secrets.token_urlsafe(24)
    server = create_server(
        "127.0.0.1:0",
        tokens=store,
        sink=sink,
        settings=settings or RefereeSettings(ping_interval=0.2),
        secret=secret,
        **server_kw,
    )
    await server.start()
    env = Env(server, store, sink, secret=secret)
    try:
        yield env
    finally:
        for client, _ in env.clients:
            client.stop()
        await asyncio.gather(*(t for _, t in env.clients), return_exceptions=True)
        await server.stop(0.5)


class _Bearer:
    """Adds ``authorization: Bearer <secret>`` to every call (an empty secret adds nothing)."""

    def __init__(self, secret: str) -> None:
        self.secret = secret

    def _details(self, details: Any) -> Any:
        if not self.secret:
            return details
        metadata = [*(details.metadata or ()), ("authorization", f"Bearer {self.secret}")]
        return details._replace(metadata=grpc.aio.Metadata(*metadata))


# A channel files each interceptor under the first call kind it implements, so one class per kind.
class _UnaryUnary(_Bearer, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self._details(details), request)


class _UnaryStream(_Bearer, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self._details(details), request)


class _StreamStream(_Bearer, grpc.aio.StreamStreamClientInterceptor):
    async def intercept_stream_stream(self, continuation: Any, details: Any, request_iterator: Any) -> Any:
        return await continuation(self._details(details), request_iterator)


def bearer(secret: str) -> list[Any]:
    """Client interceptors adding the service credential ``secret`` to unary and streaming calls."""
    return [_UnaryUnary(secret), _UnaryStream(secret), _StreamStream(secret)]


async def wait_connected(env: Env, *bot_ids: str, timeout: float = 5.0) -> None:
    """Waits until each bot has a session."""

    async def ready() -> None:
        while not all(any(s.identity.bot_id == b for s in env.referee.sessions.values()) for b in bot_ids):
            await asyncio.sleep(0.01)

    await asyncio.wait_for(ready(), timeout)


async def eventually(condition: Callable[[], object], what: str, timeout: float = 20.0) -> None:
    """Waits until ``condition()`` is true (checked every 10 ms); fails naming ``what`` after ``timeout`` s.

    For a test waiting on another task or process: it goes on as soon as the condition holds, and
    a busy machine only makes it wait longer, up to a timeout far above any quiet run's.
    """
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"gave up after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.01)


def normal(data: Any) -> Any:
    """JSON-normalises engine data the way the generic payload carries it (ints stay ints)."""
    return json.loads(json.dumps(data))
