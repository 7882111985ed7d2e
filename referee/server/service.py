"""The gRPC face of the referee: the bot service, the internal referee API, health and reflection.

Two listeners, two audiences. The **bot port** serves only ``BotService`` and health (and
reflection listing just those): it is what the internet reaches, optionally over TLS. The
**internal listener** (loopback by default) serves ``RefereeService`` to the workers and the web
tier, and every call on it except health needs the service credential
(``authorization: Bearer <secret>``, see :func:`common.credential.internal_token`), checked by
:class:`InternalAuth` in constant time before any handler runs.

Servicers are thin: they authenticate, validate, parse and convert messages, and call the
:class:`~referee.server.hub.Referee`. :func:`create_server` builds the servers without starting
them (tests bind ``127.0.0.1:0``); :func:`serve` runs them until SIGTERM/SIGINT and stops
gracefully: health goes NOT_SERVING, no new match is accepted, running matches get a grace period.

No response of the internal API carries the seed of a match that is not over (:func:`public_match`),
and a ``StartMatch`` without a seed draws one from :func:`referee.core.fairness.new_seed`.

The bot stream's requests are parsed here rather than by gRPC, so a malformed message gets a
clear ``Error`` on the stream instead of killing the call (before the Hello too: garbage gets
``MALFORMED``, an Answer or Pong ``OUT_OF_ORDER``, and the referee goes on waiting for the Hello);
oversized messages are refused by gRPC itself (``RESOURCE_EXHAUSTED``), which ends only that
bot's stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from brawl.bot.v1 import bot_pb2
from brawl.referee.v1 import referee_pb2, referee_pb2_grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from common.credential import credential_matches, internal_token
from common.seeding import SEED_BITS, new_seed
from referee.core import ids
from referee.core.ids import BotId, IdKind
from referee.protocol import codec
from referee.protocol.timecontrol import duration, seconds
from referee.server import collector
from referee.server.auth import TokenServiceError, TokenStore
from referee.server.hub import AlreadyExistsError, BotSession, Referee, RefereeSettings, StartError, commitment_of
from referee.server.match import STATE_PROTO, MatchRunner, MatchState, SeatSpec, loop_time
from referee.server.outgoing import MAX_BATCH, MAX_BATCH_BYTES, Outgoing, as_bytes, batch
from referee.server.sinks import ResultSink

log = logging.getLogger(__name__)

PROTOCOL = "brawl.bot.v1"
BOT_SERVICE = bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name
REFEREE_SERVICE = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"].full_name
HEALTH_PREFIX = f"/{health.SERVICE_NAME}/"

MAX_PRE_HELLO_ERRORS = 8
"""Refused messages a stream may send before its Hello; the next one ends the stream."""


def bearer_token(metadata: Any) -> str | None:
    """Returns the token of an ``authorization: Bearer <token>`` metadata entry, if any."""
    for key, value in metadata or ():
        if key.lower() == "authorization" and isinstance(value, str):
            scheme, _, token = value.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


# ----- validation of the internal API ------------------------------------------------------

TIME_BOUNDS: dict[str, tuple[float, float]] = {
    "decision_time": (0.001, 60.0),
    "bank_time": (0.0, 3600.0),
    "max_overrun": (0.0, 60.0),
    "reconnect_grace": (0.0, 300.0),
    "max_rtt_credit": (0.0, 5.0),
}
"""Seconds each ``TimeControl`` duration may take, inclusive."""
MAX_STRIKES = (1, 100)
"""Bounds of ``TimeControl.max_strikes``."""
ROUND_CAPS: dict[str, int] = {"max_rounds": 100, "round_cap": 100}
"""Highest round cap a match config may ask for, by config key (ScrumBrawl, Super Fantasy Brawl)."""
MAX_JOIN_TIMEOUT = 3600.0
"""Longest ``join_timeout_seconds``."""
MAX_LABELS, MAX_LABEL_KEY, MAX_LABEL_VALUE, MAX_NAME = 32, 64, 256, 64
"""Bounds of labels (count, key and value length) and of seat display names."""
MAX_SEATS = 8
"""Most seats a match may have."""


class InvalidRequest(ValueError):
    """A request breaks a bound; the message names the field and the value."""


def check_id(field_name: str, value: str, *, required: bool = False, kind: IdKind = IdKind.MATCH) -> None:
    """Checks a match, request or bot id against the one rule, :func:`referee.core.ids.id_problem`.

    Raises:
        InvalidRequest: the id is empty when required, or breaks the rule (the message names the field).
    """
    if not value and not required:
        return
    try:
        ids.check_id(kind, value, field_name)
    except ids.InvalidIdError as exc:
        raise InvalidRequest(str(exc)) from exc


def check_time_control(tc: bot_pb2.TimeControl) -> None:
    """Checks each set field of a ``TimeControl`` against :data:`TIME_BOUNDS` and :data:`MAX_STRIKES`.

    Raises:
        InvalidRequest: a field is out of bounds.
    """
    for name, (low, high) in TIME_BOUNDS.items():
        if tc.HasField(name):
            value = seconds(getattr(tc, name))
            if not (math.isfinite(value) and low <= value <= high):
                raise InvalidRequest(f"time_control.{name} is {value:g} s; it must be {low:g} to {high:g} s")
    if tc.max_strikes and not MAX_STRIKES[0] <= tc.max_strikes <= MAX_STRIKES[1]:
        raise InvalidRequest(
            f"time_control.max_strikes is {tc.max_strikes}; it must be {MAX_STRIKES[0]} to {MAX_STRIKES[1]}"
        )


def check_start(request: referee_pb2.StartMatchRequest) -> None:
    """Checks every bounded field of a ``StartMatchRequest`` (the game's own config rules come later).

    Raises:
        InvalidRequest: the first field out of bounds, named with its value.
    """
    check_id("match_id", request.match_id)
    check_id("request_id", request.request_id, kind=IdKind.REQUEST)
    if not request.seats:
        raise InvalidRequest("a match needs seats")
    if len(request.seats) > MAX_SEATS:
        raise InvalidRequest(f"{len(request.seats)} seats; a match has at most {MAX_SEATS}")
    for i, seat in enumerate(request.seats):
        if len(seat.display_name) > MAX_NAME or not seat.display_name.isprintable():
            raise InvalidRequest(
                f"seats[{i}].display_name {seat.display_name[:80]!r} is not printable text of at most {MAX_NAME}"
            )
        check_id(f"seats[{i}].bot_id", seat.bot_id, kind=IdKind.BOT)
        player = seat.bot_id or seat.house_bot
        if len(player) > MAX_NAME or not player.isprintable():
            raise InvalidRequest(f"seats[{i}] names the player {player[:80]!r}; at most {MAX_NAME} printable")
    if request.HasField("seed") and not 0 <= request.seed < 2**SEED_BITS:
        raise InvalidRequest(f"seed {request.seed} is not below 2**{SEED_BITS}")
    if request.HasField("time_control"):
        check_time_control(request.time_control)
    join = request.join_timeout_seconds
    if not (math.isfinite(join) and 0 <= join <= MAX_JOIN_TIMEOUT):
        raise InvalidRequest(f"join_timeout_seconds is {join!r}; it must be 0 to {MAX_JOIN_TIMEOUT:g}")
    if len(request.labels) > MAX_LABELS:
        raise InvalidRequest(f"{len(request.labels)} labels; at most {MAX_LABELS}")
    for key, value in request.labels.items():
        if len(key) > MAX_LABEL_KEY or len(value) > MAX_LABEL_VALUE:
            raise InvalidRequest(
                f"label {key[:80]!r} is too long (keys up to {MAX_LABEL_KEY}, values up to {MAX_LABEL_VALUE})"
            )
    config = codec.struct_data(request.config)
    for key, high in ROUND_CAPS.items():
        cap = config.get(key)
        if isinstance(cap, (int, float)) and not isinstance(cap, bool) and cap > high:
            raise InvalidRequest(f"config.{key} is {cap!r}; at most {high}")


def public_match(runner: MatchRunner) -> referee_pb2.Match:
    """Returns the ``Match`` of ``runner`` as the API may show it: without the seed until it is over.

    The engines are deterministic from config, seed and decisions, so anyone holding the seed of
    a running match knows every hidden card; the replay reveals it once the match has ended
    (:meth:`MatchRunner.seed_revealed`: its final state set here, never for a match handed over).
    """
    msg = runner.to_proto()
    if not runner.seed_revealed():
        msg.ClearField("seed")
    msg.seed_commitment = commitment_of(runner.match_id, runner.seed)
    return msg


# ----- the bot port -------------------------------------------------------------------------


class BotServicer:
    """``brawl.bot.v1.BotService``: one stream per bot process."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    @staticmethod
    def _before_hello(raw: bytes) -> tuple[bot_pb2.Hello | None, bot_pb2.ConnectResponse | None]:
        """Reads one message sent before the Hello: the Hello, or the Error it is refused with.

        A message that is not a ConnectRequest (or sets no field) gets ``MALFORMED``, one of another
        kind ``OUT_OF_ORDER``; the stream stays open for the Hello.
        """
        try:
            msg = bot_pb2.ConnectRequest.FromString(raw)
        except DecodeError as exc:
            return None, _error(
                bot_pb2.ERROR_CODE_MALFORMED,
                f"cannot parse a ConnectRequest from {len(raw)} bytes before the Hello: {exc}",
            )
        kind = msg.WhichOneof("message")
        if kind == "hello":
            return msg.hello, None
        if kind is None:
            return None, _error(bot_pb2.ERROR_CODE_MALFORMED, "the message sets no field of ConnectRequest.message")
        return None, _error(
            bot_pb2.ERROR_CODE_OUT_OF_ORDER, f"{kind!r} before the Hello; the first message must be a Hello"
        )

    async def connect(
        self, request_iterator: AsyncIterator[bytes], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[Outgoing | bytes]:
        """Runs one bot session until the bot or the referee closes it."""
        ref = self.referee
        token = bearer_token(context.invocation_metadata())
        if token is None:
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED, "missing token: send metadata 'authorization: Bearer <token>'"
            )
        try:
            identity = await ref.tokens.authenticate(token or "")
        except TokenServiceError as exc:
            log.warning("token check unavailable: %s", exc)
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the token check is unavailable; retry shortly")
        if identity is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown or revoked token")
        assert identity is not None and token is not None
        iterator = request_iterator.__aiter__()
        deadline = loop_time() + ref.settings.hello_timeout
        hello: bot_pb2.Hello | None = None
        refusals = 0
        while hello is None and refusals < MAX_PRE_HELLO_ERRORS:
            try:
                raw = await asyncio.wait_for(iterator.__anext__(), max(0.0, deadline - loop_time()))
            except (TimeoutError, StopAsyncIteration):
                break
            hello, refusal = self._before_hello(raw)
            if refusal is not None:
                refusals += 1
                yield refusal
        if hello is None:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "the first message must be a Hello")
        assert hello is not None
        try:
            session = ref.open_session(identity, hello, token=token)
        except StartError as exc:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        # From here on the session is registered: it must be forgotten whatever moment the stream
        # ends at, including while the Welcome is being written (a client that cancels right
        # after its Hello). The done-callback covers a generator that is abandoned, not closed.
        context.add_done_callback(lambda _ctx: ref.close_session(session))
        reader: asyncio.Task[None] | None = None
        pinger: asyncio.Task[None] | None = None
        try:
            log.info("bot %r connected as %r", identity.bot_id, session.link_id)
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
                    max_batch=MAX_BATCH,
                )
            )
            reader = asyncio.create_task(self._read(session, iterator))
            pinger = asyncio.create_task(self._ping(session))
            ref.on_session_ready()
            outbox = session.outbox
            while True:
                msg = await outbox.get()
                if msg is None:
                    break
                if session.batching and outbox.qsize():
                    # Whatever else waits goes with it, as one ResponseBatch: nothing is held back.
                    parts = outbox.take_batch(as_bytes(msg), MAX_BATCH, MAX_BATCH_BYTES)
                    if len(parts) > 1:
                        yield batch(parts)
                        continue
                yield msg
            if session.revoked:
                await context.abort(grpc.StatusCode.UNAUTHENTICATED, "the token was revoked; the session is closed")
        finally:
            if reader is not None:
                reader.cancel()
            if pinger is not None:
                pinger.cancel()
            ref.close_session(session)
            log.info("bot %r session %r closed", identity.bot_id, session.link_id)

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
                    session.send(
                        _error(
                            bot_pb2.ERROR_CODE_MALFORMED, f"cannot parse a ConnectRequest from {len(raw)} bytes: {exc}"
                        )
                    )
                    continue
                self._handle(session, msg, now)
        except (grpc.aio.AioRpcError, asyncio.CancelledError):
            pass
        except Exception:
            log.exception("session %r: reader failed", session.link_id)
        finally:
            session.close()

    def _handle(self, session: BotSession, msg: bot_pb2.ConnectRequest, now: float, in_batch: bool = False) -> None:
        """Acts on one bot message after the Hello (each element of a batch in turn)."""
        kind = msg.WhichOneof("message")
        if kind == "answer":
            self.referee.route_answer(session, msg.answer, now)
        elif kind == "resign":
            self.referee.route_resign(session, msg.resign.match_id)
        elif kind == "pong":
            session.pong(msg.pong.ping_id, now)
        elif kind == "batch" and not in_batch:
            items = msg.batch.messages
            if len(items) > MAX_BATCH:
                session.send(
                    _error(
                        bot_pb2.ERROR_CODE_MALFORMED,
                        f"a RequestBatch of {len(items)} messages; at most {MAX_BATCH} (Welcome.max_batch), "
                        "none of them handled",
                    )
                )
                return
            for item in items:
                self._handle(session, item, now, in_batch=True)
        elif kind == "batch":
            session.send(_error(bot_pb2.ERROR_CODE_MALFORMED, "a RequestBatch inside a RequestBatch"))
        elif kind == "hello":
            session.send(_error(bot_pb2.ERROR_CODE_OUT_OF_ORDER, "Hello was already received"))
        else:
            session.send(_error(bot_pb2.ERROR_CODE_MALFORMED, "the message sets no field of ConnectRequest.message"))

    def handler(self) -> grpc.GenericRpcHandler:
        """Returns the generic handler; requests reach :meth:`connect` as raw bytes."""
        method = grpc.stream_stream_rpc_method_handler(
            self.connect, request_deserializer=None, response_serializer=as_bytes
        )
        return grpc.method_handlers_generic_handler(BOT_SERVICE, {"Connect": method})


def _error(code: bot_pb2.ErrorCode, message: str) -> bot_pb2.ConnectResponse:
    return bot_pb2.ConnectResponse(error=bot_pb2.Error(code=code, message=message))


# ----- the internal listener ----------------------------------------------------------------


class InternalAuth(grpc.aio.ServerInterceptor):  # type: ignore[misc]  # grpc.aio ships no stubs
    """Refuses every call on the internal listener without the service credential (health excepted).

    An interceptor rather than a check in each method, so a method added later (or reflection)
    cannot forget it.

    Args:
        secret: The shared secret; compared in constant time.
    """

    def __init__(self, secret: str) -> None:
        self._secret = secret

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        """Passes authorised calls on; answers the others with UNAUTHENTICATED."""
        handler = await continuation(handler_call_details)
        method = handler_call_details.method or ""
        if handler is None or method.startswith(HEALTH_PREFIX):
            return handler
        presented = bearer_token(handler_call_details.invocation_metadata)
        if credential_matches(presented, self._secret):
            return handler
        detail = (
            "missing service credential: send metadata 'authorization: Bearer <BRAWL_INTERNAL_TOKEN>'"
            if presented is None
            else "wrong service credential"
        )
        log.warning(
            "internal API: refused %r (%s)", method, "no credential" if presented is None else "wrong credential"
        )

        async def deny(_request: Any, context: grpc.aio.ServicerContext) -> Any:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, detail)

        kinds = {
            (False, False): grpc.unary_unary_rpc_method_handler,
            (False, True): grpc.unary_stream_rpc_method_handler,
            (True, False): grpc.stream_unary_rpc_method_handler,
            (True, True): grpc.stream_stream_rpc_method_handler,
        }
        make = kinds[(bool(handler.request_streaming), bool(handler.response_streaming))]
        return make(
            deny, request_deserializer=handler.request_deserializer, response_serializer=handler.response_serializer
        )


def _seat_spec(seat: referee_pb2.Seat) -> SeatSpec:
    which = seat.WhichOneof("player")
    if which == "bot_id":
        return SeatSpec(bot_id=BotId(seat.bot_id), name=seat.display_name)
    if which == "house_bot":
        return SeatSpec(house_bot=seat.house_bot, name=seat.display_name)
    return SeatSpec(name=seat.display_name)


class RefereeServicer(referee_pb2_grpc.RefereeServiceServicer):
    """``brawl.referee.v1.RefereeService``: the workers' API and spectating (internal listener only)."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    async def StartMatch(
        self, request: referee_pb2.StartMatchRequest, context: grpc.aio.ServicerContext
    ) -> referee_pb2.StartMatchResponse:
        """Starts a match (idempotent on request_id)."""
        ref = self.referee
        try:
            check_start(request)
        except InvalidRequest as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        known = ref.get_by_request(request.request_id)
        if known is None:
            pending = ref.pending_count()
            if pending >= ref.settings.max_pending_matches:
                await context.abort(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"this referee has {pending} matches waiting for their bots "
                    f"(max_pending_matches {ref.settings.max_pending_matches}); retry later",
                )
            # Seat no session whose token was revoked since it connected.
            await ref.revalidate({BotId(s.bot_id) for s in request.seats if s.WhichOneof("player") == "bot_id"})
        try:
            runner = ref.start_match(
                game=request.game,
                seats=[_seat_spec(s) for s in request.seats],
                # Struct numbers are doubles: struct_data gives integral ones back as int (round_cap: 15).
                config=codec.struct_data(request.config),
                seed=request.seed if request.HasField("seed") else new_seed(),
                time_control=request.time_control if request.HasField("time_control") else None,
                match_id=request.match_id,
                request_id=request.request_id,
                join_timeout=request.join_timeout_seconds,
                labels=dict(request.labels),
            )
        except AlreadyExistsError as exc:
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, str(exc))
        except StartError as exc:
            code = grpc.StatusCode.UNAVAILABLE if not ref.accepting else grpc.StatusCode.INVALID_ARGUMENT
            await context.abort(code, str(exc))
        return referee_pb2.StartMatchResponse(match=public_match(runner))

    async def _runner(self, match_id: str, context: grpc.aio.ServicerContext) -> MatchRunner:
        try:
            check_id("match_id", match_id, required=True)
        except InvalidRequest as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        runner = self.referee.get(match_id)
        if runner is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r}")
        assert runner is not None
        return runner

    async def GetMatch(
        self, request: referee_pb2.GetMatchRequest, context: grpc.aio.ServicerContext
    ) -> referee_pb2.GetMatchResponse:
        """Returns one match."""
        runner = await self._runner(request.match_id, context)
        return referee_pb2.GetMatchResponse(match=public_match(runner))

    async def CancelMatch(
        self, request: referee_pb2.CancelMatchRequest, context: grpc.aio.ServicerContext
    ) -> referee_pb2.CancelMatchResponse:
        """Cancels a match and waits (briefly) for it to stop."""
        runner = await self._runner(request.match_id, context)
        if len(request.reason) > MAX_LABEL_VALUE or not request.reason.isprintable():
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"reason {request.reason[:80]!r} is not printable text of at most {MAX_LABEL_VALUE} characters",
            )
        self.referee.cancel(request.match_id, request.reason)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(runner.done.wait(), 5.0)
        return referee_pb2.CancelMatchResponse(match=public_match(runner))

    async def ListMatches(
        self, request: referee_pb2.ListMatchesRequest, context: grpc.aio.ServicerContext
    ) -> referee_pb2.ListMatchesResponse:
        """Lists matches, newest first, paged by offset tokens."""
        if request.page_size < 0:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"page_size {request.page_size} is negative")
        size = min(500, request.page_size or 50)
        token = request.page_token or "0"
        if not (token.isdigit() and len(token) <= 9):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"bad page_token {request.page_token[:80]!r}")
        start = int(token)
        state = next((s for s, p in STATE_PROTO.items() if p == request.state), None) if request.state else None
        runners = self.referee.list(state)
        page = runners[start : start + size]
        nxt = str(start + size) if start + size < len(runners) else ""
        return referee_pb2.ListMatchesResponse(matches=[public_match(r) for r in page], next_page_token=nxt)

    async def WatchMatch(
        self, request: referee_pb2.WatchMatchRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[referee_pb2.WatchMatchResponse]:
        """Streams the public view of a match."""
        runner = await self._runner(request.match_id, context)
        async for msg in runner.watch():
            yield msg

    async def ListBots(
        self, request: referee_pb2.ListBotsRequest, context: grpc.aio.ServicerContext
    ) -> referee_pb2.ListBotsResponse:
        """Lists the connected bot sessions and their load (the ladder scheduler's presence).

        Session ids are not listed: they name a bot's stream, which is no business of any caller.
        """
        ref = self.referee
        bots = []
        for session in ref.sessions.values():
            games = session.games or session.identity.games
            plays = not request.game or (
                session.identity.may_play(request.game) and (not session.games or request.game in session.games)
            )
            if session.closed or session.revoked or not plays:
                continue
            bots.append(
                referee_pb2.ConnectedBot(
                    bot_id=session.identity.bot_id,
                    version_id=session.identity.version_id,
                    bot_name=session.identity.name,
                    games=sorted(games),
                    max_matches=session.max_matches,
                    active_matches=len(session.seats),
                )
            )
        return referee_pb2.ListBotsResponse(bots=bots, accepting=ref.accepting)


# ----- servers ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TlsFiles:
    """A PEM certificate chain and its private key: the bot port then serves TLS only."""

    cert: Path
    key: Path

    def credentials(self) -> grpc.ServerCredentials:
        """Returns the server credentials.

        Raises:
            OSError: a file cannot be read.
        """
        return grpc.ssl_server_credentials([(self.key.read_bytes(), self.cert.read_bytes())])


@dataclass
class RefereeServer:
    """A built (not yet started) referee: the bot-port server and the internal-listener server."""

    server: grpc.aio.Server
    """The bot port: BotService, health, reflection of those."""
    referee: Referee
    health: health.aio.HealthServicer
    address: str
    port: int = 0
    """The bound bot port."""
    internal: grpc.aio.Server | None = None
    """The internal listener: RefereeService (credential required), health, reflection."""
    internal_address: str = ""
    internal_port: int = 0
    """The bound internal port."""
    internal_health: health.aio.HealthServicer | None = None
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def internal_target(self) -> str:
        """``host:port`` to reach the internal listener (loopback when bound to every address)."""
        host = self.internal_address.rsplit(":", 1)[0]
        if host in ("0.0.0.0", "[::]", ""):
            host = "127.0.0.1"
        return f"{host}:{self.internal_port}"

    def _healths(self) -> list[tuple[health.aio.HealthServicer, tuple[str, ...]]]:
        out: list[tuple[health.aio.HealthServicer, tuple[str, ...]]] = [(self.health, ("", BOT_SERVICE))]
        if self.internal_health is not None:
            out.append((self.internal_health, ("", REFEREE_SERVICE)))
        return out

    async def start(self) -> int:
        """Starts serving; returns the bound bot port."""
        await self.server.start()
        if self.internal is not None:
            await self.internal.start()
        if self.referee.relay is not None:
            await self.referee.relay.start()
        for servicer, names in self._healths():
            for name in names:
                await servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
        self._tasks.append(asyncio.create_task(self.referee.revalidate_forever(), name="revalidate-tokens"))
        if collector.COLLECTOR.installed:
            self._tasks.append(asyncio.create_task(collector.COLLECTOR.watch(), name="gc-reclaim"))
        return self.port

    async def stop(self, grace: float = 5.0) -> None:
        """Stops gracefully: NOT_SERVING, no new matches, running ones get ``grace`` seconds."""
        for servicer, names in self._healths():
            for name in names:
                await servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        for task in self._tasks:
            task.cancel()
        await self.referee.shutdown(grace)
        for session in list(self.referee.sessions.values()):
            session.close()
        await self.server.stop(1.0)
        if self.internal is not None:
            await self.internal.stop(1.0)
        if self.referee.relay is not None:
            await self.referee.relay.stop()


def server_options(settings: RefereeSettings, reuse_port: bool = False) -> list[tuple[str, Any]]:
    """The channel options of the referee server.

    Args:
        settings: Limits.
        reuse_port: Let other processes bind the same port (``SO_REUSEPORT``): only for the bot
            port of a referee started as one of several on one machine (``--reuse-port``).
    """
    return [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        # Keepalive finds dead connections (a crashed bot's host) within ~20 s at worst.
        ("grpc.keepalive_time_ms", 10_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
        ("grpc.keepalive_permit_without_calls", 1),
        # Two listeners must never silently share a port with another process, unless asked
        # (several referee processes behind one bot port; the kernel spreads the connections).
        ("grpc.so_reuseport", 1 if reuse_port else 0),
    ]


def create_server(
    address: str,
    *,
    tokens: TokenStore,
    sink: ResultSink,
    settings: RefereeSettings | None = None,
    relay_url: str | None = None,
    relay_prefix: str = "brawl",
    internal_address: str = "127.0.0.1:0",
    secret: str | None = None,
    tls: TlsFiles | None = None,
    reuse_port: bool = False,
) -> RefereeServer:
    """Builds a referee: the bot port on ``address`` and the internal API on ``internal_address``.

    ``"127.0.0.1:0"`` picks a free port. With ``relay_url`` (a Redis URL) the referee publishes its
    bots' presence and plays seats whose bots are connected to other referees (see
    :mod:`referee.server.relay`).

    Args:
        address: ``HOST:PORT`` of the bot port.
        tokens: Authenticates bots.
        sink: Records finished matches.
        settings: Limits.
        relay_url: Redis URL of the seat relay, or ``None``.
        relay_prefix: Key prefix of the relay.
        internal_address: ``HOST:PORT`` of the internal listener (loopback by default).
        secret: The internal API's credential; ``None`` reads it with
            :func:`common.credential.internal_token`.
        tls: Serve the bot port over TLS with this certificate and key.
        reuse_port: Share the bot port with other referee processes (``SO_REUSEPORT``; the
            internal listener never is). Bots of one match may then land on different processes:
            the relay (``relay_url``) joins them.

    Raises:
        RuntimeError: an address cannot be bound.
        InternalTokenError: no credential can be found (production without ``BRAWL_INTERNAL_TOKEN``).
    """
    settings = settings or RefereeSettings()
    secret = secret if secret is not None else internal_token()
    referee = Referee(tokens=tokens, sink=sink, settings=settings)
    if relay_url:
        from referee.server.relay import RedisRelay

        referee.relay = RedisRelay(referee, relay_url, prefix=relay_prefix)
    server = grpc.aio.server(options=server_options(settings, reuse_port=reuse_port))
    server.add_generic_rpc_handlers((BotServicer(referee).handler(),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((BOT_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    port = server.add_secure_port(address, tls.credentials()) if tls else server.add_insecure_port(address)
    if port == 0:
        raise RuntimeError(f"cannot bind the bot port {address!r}")

    internal = grpc.aio.server(options=server_options(settings), interceptors=(InternalAuth(secret),))
    generated: Any = referee_pb2_grpc  # generated code carries no annotations
    generated.add_RefereeServiceServicer_to_server(RefereeServicer(referee), internal)
    internal_health = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(internal_health, internal)
    reflection.enable_server_reflection((REFEREE_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME), internal)
    internal_port = internal.add_insecure_port(internal_address)
    if internal_port == 0:
        raise RuntimeError(f"cannot bind the internal listener {internal_address!r}")
    return RefereeServer(
        server,
        referee,
        health_servicer,
        address,
        port,
        internal=internal,
        internal_address=internal_address,
        internal_port=internal_port,
        internal_health=internal_health,
    )


def tune_gc() -> None:
    """Installs the referee's garbage-collection policy (:mod:`referee.server.collector`).

    Short young collections whose survivors are frozen, a full collection only when the heap has
    doubled, and the pauses kept out of the bots' clocks (what the earlier policies cost:
    docs/benchmarks.md, "Figures moved out of the code").
    """
    collector.install()


async def serve(
    address: str,
    *,
    tokens: TokenStore,
    sink: ResultSink,
    settings: RefereeSettings | None = None,
    grace: float = 30.0,
    relay_url: str | None = None,
    internal_address: str = "127.0.0.1:50052",
    tls: TlsFiles | None = None,
    reuse_port: bool = False,
) -> None:
    """Runs a referee until SIGINT or SIGTERM, then stops gracefully (``reuse_port``: see create_server).

    Raises:
        InternalTokenError: no internal credential (production without ``BRAWL_INTERNAL_TOKEN``).
    """
    # The signals are handled before anything listens: a SIGTERM that comes as soon as the port
    # answers stops the referee gracefully instead of killing it.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    tune_gc()
    rs = create_server(
        address,
        tokens=tokens,
        sink=sink,
        settings=settings,
        relay_url=relay_url,
        internal_address=internal_address,
        tls=tls,
        reuse_port=reuse_port,
    )
    port = await rs.start()
    log.info(
        "referee: bots on %s (port %d%s), internal API on %s (port %d)",
        address,
        port,
        ", TLS" if tls else "",
        internal_address,
        rs.internal_port,
    )
    await stop.wait()
    log.info("stopping: running matches get %g s", grace)
    await rs.stop(grace)


def match_state(value: int) -> MatchState | None:
    """Returns the python state of a ``Match.State`` value (``None`` for unspecified)."""
    return next((s for s, p in STATE_PROTO.items() if p == value), None)
