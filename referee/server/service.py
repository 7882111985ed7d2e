"""The gRPC face of the referee: the bot service, the internal referee API, health and reflection.

Servicers are thin: they authenticate, parse and convert messages, and call the
:class:`~referee.server.hub.Referee`. :func:`create_server` builds a ``grpc.aio`` server without
starting it (tests bind ``127.0.0.1:0``); :func:`serve` runs one until SIGTERM/SIGINT and stops
gracefully: health goes NOT_SERVING, no new match is accepted, running matches get a grace period.

The bot stream's requests are parsed here rather than by gRPC, so a malformed message gets a
clear ``Error`` on the stream instead of killing the call; oversized messages are refused by
gRPC itself (``RESOURCE_EXHAUSTED``), which ends only that bot's stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
from brawl.bot.v1 import bot_pb2
from brawl.referee.v1 import referee_pb2, referee_pb2_grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from referee.core.ids import BotId
from referee.server import codec
from referee.server.auth import TokenStore
from referee.server.hub import AlreadyExistsError, BotSession, Referee, RefereeSettings, StartError
from referee.server.match import STATE_PROTO, MatchState, SeatSpec, loop_time
from referee.server.sinks import ResultSink
from referee.server.timecontrol import duration

log = logging.getLogger(__name__)

PROTOCOL = "brawl.bot.v1"
BOT_SERVICE = bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name
REFEREE_SERVICE = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"].full_name


def bearer_token(metadata: Any) -> str | None:
    """Returns the token of an ``authorization: Bearer <token>`` metadata entry, if any."""
    for key, value in metadata or ():
        if key.lower() == "authorization" and isinstance(value, str):
            scheme, _, token = value.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


class BotServicer:
    """``brawl.bot.v1.BotService``: one stream per bot process."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    async def connect(
        self, request_iterator: AsyncIterator[bytes], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[bot_pb2.ConnectResponse]:
        """Runs one bot session until the bot or the referee closes it."""
        ref = self.referee
        token = bearer_token(context.invocation_metadata())
        if token is None:
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED, "missing token: send metadata 'authorization: Bearer <token>'"
            )
        identity = await ref.tokens.authenticate(token or "")
        if identity is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown or revoked token")
        assert identity is not None
        iterator = request_iterator.__aiter__()
        try:
            first = await asyncio.wait_for(iterator.__anext__(), ref.settings.hello_timeout)
            hello_msg = bot_pb2.ConnectRequest.FromString(first)
        except (TimeoutError, StopAsyncIteration):
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "the first message must be a Hello")
        except DecodeError:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message is not a ConnectRequest")
        if hello_msg.WhichOneof("message") != "hello":
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "the first message must be a Hello")
        try:
            session = ref.open_session(identity, hello_msg.hello)
        except StartError as exc:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        log.info("bot %s connected as %s", identity.bot_id, session.link_id)
        yield bot_pb2.ConnectResponse(
            welcome=bot_pb2.Welcome(
                session_id=session.link_id,
                bot_id=identity.bot_id,
                bot_name=identity.name,
                version_id=identity.version_id,
                games=sorted(session.games),
                max_matches=session.max_matches,
                protocol=PROTOCOL,
                max_message_bytes=ref.settings.max_message_bytes,
                max_note_chars=280,
                ping_interval=duration(ref.settings.ping_interval),
            )
        )
        reader = asyncio.create_task(self._read(session, iterator))
        pinger = asyncio.create_task(self._ping(session))
        ref.on_session_ready()
        try:
            while True:
                msg = await session.outbox.get()
                if msg is None:
                    break
                yield msg
        finally:
            reader.cancel()
            pinger.cancel()
            ref.close_session(session)
            log.info("bot %s session %s closed", identity.bot_id, session.link_id)

    async def _ping(self, session: BotSession) -> None:
        while not session.closed:
            session.ping()
            await asyncio.sleep(self.referee.settings.ping_interval)

    async def _read(self, session: BotSession, iterator: AsyncIterator[bytes]) -> None:
        try:
            async for raw in iterator:
                now = loop_time()
                try:
                    msg = bot_pb2.ConnectRequest.FromString(raw)
                except DecodeError as exc:
                    self._malformed(session, f"cannot parse a ConnectRequest from {len(raw)} bytes: {exc}")
                    continue
                kind = msg.WhichOneof("message")
                if kind == "answer":
                    self.referee.route_answer(session, msg.answer, now)
                elif kind == "pong":
                    session.pong(msg.pong.ping_id, now)
                elif kind == "hello":
                    session.send(
                        bot_pb2.ConnectResponse(
                            error=bot_pb2.Error(
                                code=bot_pb2.ERROR_CODE_OUT_OF_ORDER, message="Hello was already received"
                            )
                        )
                    )
                else:
                    self._malformed(session, "the message sets no field of ConnectRequest.message")
        except (grpc.aio.AioRpcError, asyncio.CancelledError):
            pass
        except Exception:
            log.exception("session %s: reader failed", session.link_id)
        finally:
            session.close()

    @staticmethod
    def _malformed(session: BotSession, detail: str) -> None:
        session.send(bot_pb2.ConnectResponse(error=bot_pb2.Error(code=bot_pb2.ERROR_CODE_MALFORMED, message=detail)))

    def handler(self) -> grpc.GenericRpcHandler:
        """Returns the generic handler; requests reach :meth:`connect` as raw bytes."""
        method = grpc.stream_stream_rpc_method_handler(
            self.connect, request_deserializer=None, response_serializer=bot_pb2.ConnectResponse.SerializeToString
        )
        return grpc.method_handlers_generic_handler(BOT_SERVICE, {"Connect": method})


def _seat_spec(seat: referee_pb2.Seat) -> SeatSpec:
    which = seat.WhichOneof("player")
    if which == "bot_id":
        return SeatSpec(bot_id=BotId(seat.bot_id), name=seat.display_name)
    if which == "house_bot":
        return SeatSpec(house_bot=seat.house_bot, name=seat.display_name)
    return SeatSpec(name=seat.display_name)


class RefereeServicer(referee_pb2_grpc.RefereeServiceServicer):
    """``brawl.referee.v1.RefereeService``: the workers' API and spectating."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    async def StartMatch(
        self, request: referee_pb2.StartMatchRequest, context: grpc.aio.ServicerContext
    ) -> referee_pb2.StartMatchResponse:
        """Starts a match (idempotent on request_id)."""
        if not request.seats:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "a match needs seats")
        try:
            runner = self.referee.start_match(
                game=request.game,
                seats=[_seat_spec(s) for s in request.seats],
                # Struct numbers are doubles: struct_data gives integral ones back as int (round_cap: 15).
                config=codec.struct_data(request.config),
                seed=request.seed,
                time_control=request.time_control if request.HasField("time_control") else None,
                match_id=request.match_id,
                request_id=request.request_id,
                join_timeout=request.join_timeout_seconds,
                labels=dict(request.labels),
            )
        except AlreadyExistsError as exc:
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, str(exc))
        except StartError as exc:
            code = grpc.StatusCode.UNAVAILABLE if not self.referee.accepting else grpc.StatusCode.INVALID_ARGUMENT
            await context.abort(code, str(exc))
        return referee_pb2.StartMatchResponse(match=runner.to_proto())

    async def GetMatch(
        self, request: referee_pb2.GetMatchRequest, context: grpc.aio.ServicerContext
    ) -> referee_pb2.GetMatchResponse:
        """Returns one match."""
        runner = self.referee.get(request.match_id)
        if runner is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
        assert runner is not None
        return referee_pb2.GetMatchResponse(match=runner.to_proto())

    async def CancelMatch(
        self, request: referee_pb2.CancelMatchRequest, context: grpc.aio.ServicerContext
    ) -> referee_pb2.CancelMatchResponse:
        """Cancels a match and waits (briefly) for it to stop."""
        runner = self.referee.cancel(request.match_id, request.reason)
        if runner is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
        assert runner is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(runner.done.wait(), 5.0)
        return referee_pb2.CancelMatchResponse(match=runner.to_proto())

    async def ListMatches(
        self, request: referee_pb2.ListMatchesRequest, context: grpc.aio.ServicerContext
    ) -> referee_pb2.ListMatchesResponse:
        """Lists matches, newest first, paged by offset tokens."""
        size = min(500, request.page_size or 50)
        try:
            start = int(request.page_token or "0")
        except ValueError:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"bad page_token {request.page_token!r}")
        state = next((s for s, p in STATE_PROTO.items() if p == request.state), None) if request.state else None
        runners = self.referee.list(state)
        page = runners[start : start + size]
        nxt = str(start + size) if start + size < len(runners) else ""
        return referee_pb2.ListMatchesResponse(matches=[r.to_proto() for r in page], next_page_token=nxt)

    async def WatchMatch(
        self, request: referee_pb2.WatchMatchRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[referee_pb2.WatchMatchResponse]:
        """Streams the public view of a match."""
        runner = self.referee.get(request.match_id)
        if runner is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
        assert runner is not None
        async for msg in runner.watch():
            yield msg

    async def ListBots(
        self, request: referee_pb2.ListBotsRequest, context: grpc.aio.ServicerContext
    ) -> referee_pb2.ListBotsResponse:
        """Lists the connected bot sessions and their load (the ladder scheduler's presence)."""
        ref = self.referee
        bots = []
        for session in ref.sessions.values():
            games = session.games or session.identity.games
            plays = not request.game or (
                session.identity.may_play(request.game) and (not session.games or request.game in session.games)
            )
            if session.closed or not plays:
                continue
            bots.append(
                referee_pb2.ConnectedBot(
                    bot_id=session.identity.bot_id,
                    version_id=session.identity.version_id,
                    bot_name=session.identity.name,
                    games=sorted(games),
                    max_matches=session.max_matches,
                    active_matches=len(session.seats),
                    session_id=session.link_id,
                )
            )
        return referee_pb2.ListBotsResponse(bots=bots, accepting=ref.accepting)


@dataclass
class RefereeServer:
    """A built (not yet started) referee server."""

    server: grpc.aio.Server
    referee: Referee
    health: health.aio.HealthServicer
    address: str
    port: int = 0

    async def start(self) -> int:
        """Starts serving; returns the bound port."""
        await self.server.start()
        if self.referee.relay is not None:
            await self.referee.relay.start()
        for name in ("", BOT_SERVICE, REFEREE_SERVICE):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        return self.port

    async def stop(self, grace: float = 5.0) -> None:
        """Stops gracefully: NOT_SERVING, no new matches, running ones get ``grace`` seconds."""
        for name in ("", BOT_SERVICE, REFEREE_SERVICE):
            await self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.referee.shutdown(grace)
        for session in list(self.referee.sessions.values()):
            session.close()
        await self.server.stop(1.0)
        if self.referee.relay is not None:
            await self.referee.relay.stop()


def server_options(settings: RefereeSettings) -> list[tuple[str, Any]]:
    """The channel options of the referee server."""
    return [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        # Keepalive finds dead connections (a crashed bot's host) within ~20 s at worst.
        ("grpc.keepalive_time_ms", 10_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
        ("grpc.keepalive_permit_without_calls", 1),
    ]


def create_server(
    address: str,
    *,
    tokens: TokenStore,
    sink: ResultSink,
    settings: RefereeSettings | None = None,
    relay_url: str | None = None,
    relay_prefix: str = "brawl",
) -> RefereeServer:
    """Builds a referee server bound to ``address`` (``"127.0.0.1:0"`` picks a free port).

    With ``relay_url`` (a Redis URL) the referee publishes its bots' presence and plays seats
    whose bots are connected to other referees (see :mod:`referee.server.relay`).

    Raises:
        RuntimeError: the address cannot be bound.
    """
    settings = settings or RefereeSettings()
    referee = Referee(tokens=tokens, sink=sink, settings=settings)
    if relay_url:
        from referee.server.relay import RedisRelay

        referee.relay = RedisRelay(referee, relay_url, prefix=relay_prefix)
    server = grpc.aio.server(options=server_options(settings))
    server.add_generic_rpc_handlers((BotServicer(referee).handler(),))
    generated: Any = referee_pb2_grpc  # generated code carries no annotations
    generated.add_RefereeServiceServicer_to_server(RefereeServicer(referee), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (BOT_SERVICE, REFEREE_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise RuntimeError(f"cannot bind {address!r}")
    return RefereeServer(server, referee, health_servicer, address, port)


def tune_gc() -> None:
    """Makes garbage-collection pauses rare and short for a long-running referee.

    With a hundred live matches the default thresholds run full collections often enough to stall
    the event loop for over a second (measured with ``bench/bench_referee.py --game scrumbrawl``:
    1.7 s worst step, 93 ms after tuning). Objects alive at start-up are frozen out of the
    collector, and young collections run every 50,000 allocations instead of 700.
    """
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


async def serve(
    address: str,
    *,
    tokens: TokenStore,
    sink: ResultSink,
    settings: RefereeSettings | None = None,
    grace: float = 30.0,
    relay_url: str | None = None,
) -> None:
    """Runs a referee until SIGINT or SIGTERM, then stops gracefully."""
    rs = create_server(address, tokens=tokens, sink=sink, settings=settings, relay_url=relay_url)
    tune_gc()
    port = await rs.start()
    log.info("referee listening on %s (port %d)", address, port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("stopping: running matches get %g s", grace)
    await rs.stop(grace)


def match_state(value: int) -> MatchState | None:
    """Returns the python state of a ``Match.State`` value (``None`` for unspecified)."""
    return next((s for s, p in STATE_PROTO.items() if p == value), None)
