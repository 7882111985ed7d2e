"""The Python SDK's network client: connects a bot class to a referee and keeps it connected.

:class:`BotClient` opens the ``Connect`` stream with the token in the metadata, sends the Hello,
answers pings, and hands every other message to a :class:`~referee.sdk.host.BotHost`. When the
stream breaks it reconnects with exponential backoff (the referee re-sends the matches in
progress and their pending decisions); a refused token or Hello is fatal and raised.

``server`` may list several referees (``"host1:50051,host2:50051"``): each reconnect goes to the
next address in turn, so a bot whose referee died comes back on another one, which plays its seats
on (the match journal, :mod:`referee.server.journal`, lets any referee take a match over). A
service address that resolves to several referees (a Kubernetes Service, ``dns:///name:port``)
gives the same through gRPC's own name resolution.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import grpc
from brawl.bot.v1 import bot_pb2, bot_pb2_grpc

from referee.sdk.host import BotHost, MatchResult

log = logging.getLogger("referee.sdk")

CLIENT = "brawl-python-sdk/1"
FATAL = {
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.INVALID_ARGUMENT,
}
"""Status codes after which reconnecting cannot help."""


class BotConnectionError(RuntimeError):
    """The referee refused the bot (bad token, no playable game); the message is the referee's."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


def load_object(spec: str) -> Any:
    """Returns the object named by ``"package.module:Name"``.

    Raises:
        ValueError: ``spec`` has no ``:``.
        ImportError: the module cannot be imported.
        AttributeError: the module has no such name.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected 'module:Name', got {spec!r}")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


class BotSpecError(ValueError):
    """A ``module:Class`` an author named cannot be loaded; the message is one line saying why."""


def load_spec(spec: str, *, what: str = "bot") -> Any:
    """Returns the object named by the author's ``"module:Name"``, looking in the current folder too.

    The ``brawl`` console script does not put the current folder on ``sys.path`` the way
    ``python -m`` does, so ``brawl play mybot:MyBot`` run beside ``mybot.py`` would not find it:
    the current folder is added (after the installed packages, so a local file never shadows one
    of them). Every failure becomes a :class:`BotSpecError` with one line naming the cause, never
    a traceback: a spec without ``:``, a module that is not there, an import that fails inside the
    author's module (a missing dependency, a syntax error, an exception), a missing name.

    Raises:
        BotSpecError: ``spec`` cannot be loaded.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        hint = f" (did you mean {spec.removesuffix('.py')}:ClassName?)" if not sep and spec else ""
        raise BotSpecError(f"{what} {spec!r}: expected module:Class, e.g. mybot:MyBot{hint}")
    if module_name.endswith(".py") or "/" in module_name:
        dotted = module_name.removesuffix(".py").replace("/", ".")
        raise BotSpecError(f"{what} {spec!r}: name the module, not the file: {dotted}:{attr}")
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.append(here)
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise BotSpecError(
                f"{what} {spec!r}: no module {exc.name!r} in the current folder ({here}) or the installed packages"
            ) from None
        raise BotSpecError(f"{what} {spec!r}: importing {module_name} failed: {exc}") from None
    except SyntaxError as exc:
        where = f"{exc.filename}, line {exc.lineno}" if exc.filename else module_name
        raise BotSpecError(f"{what} {spec!r}: {where}: {exc.msg}") from None
    except Exception as exc:
        raise BotSpecError(
            f"{what} {spec!r}: importing {module_name} raised {type(exc).__name__}: {_one_line(exc)}"
        ) from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise BotSpecError(f"{what} {spec!r}: {module_name} has no {part!r}") from None
    if not callable(obj):
        raise BotSpecError(f"{what} {spec!r}: {attr} is not a class (got {type(obj).__name__})")
    return obj


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 200 else text[:197] + "..."


class BotClient:
    """Connects instances of a bot class to a referee.

    Args:
        factory: Makes one bot per (match, seat), usually the bot class itself.
        server: ``HOST:PORT`` of the referee, or several, comma-separated, tried in turn.
        token: The bot's token.
        games: Games to play; empty means every game the token allows.
        max_matches: Seats to accept at once.
        reconnect: Reconnect when the stream breaks.
        threaded: Call the bot in a worker thread (keeps pings answered while it thinks).
        tls: Connect over TLS (the referee's bot port serves TLS when given a certificate).
        ca: PEM file of the certificate authority to trust (default: the system's roots).
        full_observations: Ask the referee for the whole observation in every request instead of
            a patch (the bot sees the same either way; patches cost less).
        auto_pass_kinds: Out-of-turn window decision kinds (``"dispel_window"``...) for which the
            referee answers "pass" without asking when it is the only option (``Hello.auto_pass_kinds``).
            ``None`` takes the bot class's ``auto_pass_kinds`` attribute, if it has one.
        batching: Ask for ``ResponseBatch``es (``Hello.batching``) and send answers that are ready
            together as one ``RequestBatch``: fewer stream messages when the bot plays many
            matches at once. The bot sees the same requests either way.
    """

    def __init__(
        self,
        factory: Callable[[], Any],
        server: str,
        token: str,
        *,
        games: Sequence[str] = (),
        max_matches: int = 1,
        reconnect: bool = True,
        threaded: bool = True,
        on_match_end: Callable[[MatchResult], None] | None = None,
        tls: bool = False,
        ca: str | Path | None = None,
        full_observations: bool = False,
        auto_pass_kinds: Sequence[str] | None = None,
        batching: bool = True,
    ) -> None:
        self.full_observations = full_observations
        self.batching = batching
        if auto_pass_kinds is None:
            auto_pass_kinds = tuple(getattr(factory, "auto_pass_kinds", ()))
        self.auto_pass_kinds = list(auto_pass_kinds)
        self.credentials = channel_credentials(tls, ca)
        """TLS credentials of the channel, or ``None`` for plaintext."""
        self.servers = parse_servers(server)
        self._server_index = 0
        self.token = token
        self.games = list(games)
        self.max_matches = max_matches
        self.reconnect = reconnect
        self.host = BotHost(factory, self._emit, threaded=threaded, on_match_end=on_match_end)
        self.welcome: bot_pb2.Welcome | None = None
        self.connections = 0
        """How many times a stream was opened (1 + reconnects)."""
        self.errors: list[bot_pb2.Error] = []
        """Every Error the referee sent, oldest first."""
        self._outbox: asyncio.Queue[bot_pb2.ConnectRequest | None] | None = None
        self._call: Any = None
        self._stop = False

    @property
    def server(self) -> str:
        """The referee address the current (or next) stream uses."""
        return self.servers[self._server_index]

    def _next_server(self) -> None:
        """Moves to the next address of the list (a no-op with one address)."""
        self._server_index = (self._server_index + 1) % len(self.servers)

    def _emit(self, request: bot_pb2.ConnectRequest) -> None:
        if self._outbox is not None:
            self._outbox.put_nowait(request)

    def resign(self, match_id: str) -> None:
        """Resigns match ``match_id``: the referee forfeits this bot's seats there (``Resign``)."""
        self._emit(bot_pb2.ConnectRequest(resign=bot_pb2.Resign(match_id=match_id)))

    def stop(self) -> None:
        """Closes the stream and stops reconnecting."""
        self._stop = True
        if self._call is not None:
            self._call.cancel()

    async def run(self, matches: int | None = None) -> None:
        """Plays until stopped, or until ``matches`` matches have ended.

        Raises:
            BotConnectionError: the referee refused the token or the Hello.
        """
        delay = 0.2
        while not self._stop:
            try:
                if await self._session(matches):
                    return
                delay = 0.2
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if self._stop and not (task is not None and task.cancelling()):
                    return
                raise
            except grpc.aio.AioRpcError as exc:
                if exc.code() in FATAL:
                    raise BotConnectionError(exc.code(), exc.details() or "") from exc
                if exc.code() == grpc.StatusCode.CANCELLED and self._stop:
                    return
                log.warning("stream to %s broke (%s: %s)", self.server, exc.code().name, exc.details())
            if not self.reconnect or self._stop:
                return
            self._next_server()
            log.info("reconnecting to %s in %.1f s", self.server, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    async def _session(self, matches: int | None) -> bool:
        outbox: asyncio.Queue[bot_pb2.ConnectRequest | None] = asyncio.Queue()
        outbox.put_nowait(
            bot_pb2.ConnectRequest(
                hello=bot_pb2.Hello(
                    games=self.games,
                    max_matches=self.max_matches,
                    client=CLIENT,
                    full_observations=self.full_observations,
                    auto_pass_kinds=self.auto_pass_kinds,
                    batching=self.batching,
                )
            )
        )
        self._outbox = outbox
        self.welcome = None

        async def requests() -> AsyncIterator[bot_pb2.ConnectRequest]:
            carry: bot_pb2.ConnectRequest | None = None
            while True:
                item = carry if carry is not None else await outbox.get()
                carry = None
                if item is None:
                    return
                welcome = self.welcome
                if not self.batching or welcome is None or welcome.max_batch < 2 or outbox.empty():
                    yield item
                    continue
                # Answers and pongs ready together go as one RequestBatch, within the referee's limits.
                items, size, end = [item], item.ByteSize(), False
                while len(items) < welcome.max_batch and not outbox.empty():
                    nxt = outbox.get_nowait()
                    if nxt is None:
                        end = True
                        break
                    if size + nxt.ByteSize() + 8 > welcome.max_message_bytes:
                        carry = nxt
                        break
                    items.append(nxt)
                    size += nxt.ByteSize() + 8
                yield item if len(items) == 1 else bot_pb2.ConnectRequest(batch=bot_pb2.RequestBatch(messages=items))
                if end:
                    return

        async with (
            grpc.aio.secure_channel(self.server, self.credentials)
            if self.credentials is not None
            else grpc.aio.insecure_channel(self.server)
        ) as channel:
            generated: Any = bot_pb2_grpc  # generated code carries no annotations
            stub = generated.BotServiceStub(channel)
            call = stub.Connect(requests(), metadata=(("authorization", f"Bearer {self.token}"),))
            self._call = call
            self.connections += 1
            try:
                async for msg in call:
                    kind = msg.WhichOneof("message")
                    if kind == "welcome":
                        self.welcome = msg.welcome
                        log.info(
                            "connected as %s (%s), games %s",
                            msg.welcome.bot_name,
                            msg.welcome.session_id,
                            list(msg.welcome.games),
                        )
                        continue
                    for one in msg.batch.messages if kind == "batch" else (msg,):
                        if one.WhichOneof("message") == "error":
                            self.errors.append(one.error)
                        self.host.handle(one)
                    if matches is not None and self.host.finished >= matches:
                        await self._drain()
                        call.cancel()
                        return True
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if self._stop or (task is not None and task.cancelling()):
                    raise
                # The call itself was cancelled (a local drop): treat it as a broken stream.
                log.warning("stream to %s was cancelled locally", self.server)
                return False
            finally:
                self._call = None
                self._outbox = None
                outbox.put_nowait(None)
        return self._stop

    async def _drain(self) -> None:
        # Let answers already being computed go out before the stream closes.
        if self.host.tasks:
            await asyncio.wait(list(self.host.tasks), timeout=1.0)


def parse_servers(server: str) -> list[str]:
    """Returns the addresses of a comma-separated ``server`` option.

    Raises:
        ValueError: no address is given.
    """
    servers = [s.strip() for s in server.split(",") if s.strip()]
    if not servers:
        raise ValueError(f"no referee address in {server!r}")
    return servers


def channel_credentials(tls: bool, ca: str | Path | None = None) -> grpc.ChannelCredentials | None:
    """Returns TLS channel credentials (``ca``: a PEM file to trust instead of the system's roots), or
    ``None`` for a plaintext channel.

    Raises:
        OSError: ``ca`` cannot be read.
        ValueError: ``ca`` is given without ``tls``.
    """
    if not tls:
        if ca is not None:
            raise ValueError("a CA file only makes sense with TLS (--tls)")
        return None
    return grpc.ssl_channel_credentials(root_certificates=Path(ca).read_bytes() if ca is not None else None)


def run_bot(
    factory: Callable[[], Any],
    server: str,
    token: str,
    *,
    games: Sequence[str] = (),
    max_matches: int = 1,
    matches: int | None = None,
    tls: bool = False,
    ca: str | Path | None = None,
    auto_pass_kinds: Sequence[str] | None = None,
) -> None:
    """Runs a bot until interrupted (or ``matches`` matches ended): the blocking entry point.

    Raises:
        BotConnectionError: the referee refused the token or the Hello.
        OSError: the CA file cannot be read.
    """
    client = BotClient(
        factory,
        server,
        token,
        games=games,
        max_matches=max_matches,
        tls=tls,
        ca=ca,
        auto_pass_kinds=auto_pass_kinds,
    )
    asyncio.run(client.run(matches))
