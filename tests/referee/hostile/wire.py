"""A hostile client written from the .proto files: a raw gRPC channel and the generated messages.

It does not use ``referee.sdk`` (which behaves) nor the generated stubs: every call names its
method path as ``proto/brawl/*/v1/*.proto`` declares it and serialises by hand, so it can send
what no well-behaved client would: garbage bytes, an Answer before the Hello, a stream cancelled
the moment it opened, internal calls on the bot port, calls without or with a wrong credential.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from brawl.bot.v1 import bot_pb2
from brawl.referee.v1 import referee_pb2
from google.protobuf.message import Message
from grpc_reflection.v1alpha import reflection_pb2

CONNECT = "/brawl.bot.v1.BotService/Connect"
REFEREE = "/brawl.referee.v1.RefereeService/"
REFLECTION = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"

UNARY: dict[str, tuple[type[Message], type[Message]]] = {
    "StartMatch": (referee_pb2.StartMatchRequest, referee_pb2.StartMatchResponse),
    "GetMatch": (referee_pb2.GetMatchRequest, referee_pb2.GetMatchResponse),
    "CancelMatch": (referee_pb2.CancelMatchRequest, referee_pb2.CancelMatchResponse),
    "ListMatches": (referee_pb2.ListMatchesRequest, referee_pb2.ListMatchesResponse),
    "ListBots": (referee_pb2.ListBotsRequest, referee_pb2.ListBotsResponse),
}
"""The unary methods of ``brawl.referee.v1.RefereeService``, with their request and response types."""


def bearer(secret: str | None) -> tuple[tuple[str, str], ...]:
    """Call metadata with ``authorization: Bearer <secret>``; none for ``None``."""
    return (("authorization", f"Bearer {secret}"),) if secret is not None else ()


async def call(address: str, method: str, request: Message, secret: str | None = None) -> Any:
    """Calls a unary ``RefereeService`` method at ``address``; returns the response.

    Raises:
        grpc.aio.AioRpcError: the status the referee answered with.
    """
    _, response_type = UNARY[method]
    async with grpc.aio.insecure_channel(address) as channel:
        rpc = channel.unary_unary(
            REFEREE + method,
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_type.FromString,
        )
        return await rpc(request, metadata=bearer(secret), timeout=10)


async def status_of(address: str, method: str, request: Message, secret: str | None = None) -> grpc.StatusCode:
    """The status a unary ``RefereeService`` call ends with (``OK`` when it succeeds)."""
    try:
        await call(address, method, request, secret)
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


async def watch_status(address: str, match_id: str, secret: str | None = None) -> grpc.StatusCode:
    """The status a ``WatchMatch`` stream ends with, read to its end."""
    async with grpc.aio.insecure_channel(address) as channel:
        rpc = channel.unary_stream(
            REFEREE + "WatchMatch",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=referee_pb2.WatchMatchResponse.FromString,
        )
        try:
            async for _ in rpc(referee_pb2.WatchMatchRequest(match_id=match_id), metadata=bearer(secret), timeout=10):
                pass
        except grpc.aio.AioRpcError as exc:
            return exc.code()
    return grpc.StatusCode.OK


async def reflected_services(address: str, secret: str | None = None) -> set[str]:
    """The service names reflection lists at ``address``.

    Raises:
        grpc.aio.AioRpcError: reflection refused the call.
    """
    async with grpc.aio.insecure_channel(address) as channel:
        rpc = channel.stream_stream(
            REFLECTION,
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )

        async def ask() -> AsyncIterator[Message]:
            yield reflection_pb2.ServerReflectionRequest(list_services="")

        names: set[str] = set()
        async for resp in rpc(ask(), metadata=bearer(secret), timeout=10):
            names |= {s.name for s in resp.list_services_response.service}
        return names


def hello(games: Sequence[str] = (), max_matches: int = 1) -> bytes:
    """A serialised ``ConnectRequest`` carrying a Hello."""
    return bot_pb2.ConnectRequest(
        hello=bot_pb2.Hello(games=list(games), max_matches=max_matches, client="hostile/1")
    ).SerializeToString()


def answer(match_id: str, decision_id: str, option_id: str) -> bytes:
    """A serialised ``ConnectRequest`` carrying an Answer."""
    return bot_pb2.ConnectRequest(
        answer=bot_pb2.Answer(match_id=match_id, decision_id=decision_id, option_id=option_id)
    ).SerializeToString()


@dataclass
class RawStream:
    """One ``Connect`` stream driven by hand: send raw bytes, read parsed ``ConnectResponse``s."""

    address: str
    token: str | None
    received: list[bot_pb2.ConnectResponse] = field(default_factory=list)
    status: grpc.StatusCode | None = None
    """How the stream ended, once it did."""
    details: str = ""
    _outbox: asyncio.Queue[bytes | None] = field(default_factory=asyncio.Queue)
    _channel: Any = None
    _call: Any = None
    _reader: asyncio.Task[None] | None = None
    _cursor: int = 0
    """How many received messages :meth:`next_of` has looked at."""

    async def open(self) -> RawStream:
        """Opens the stream (sends nothing yet)."""
        self._channel = grpc.aio.insecure_channel(self.address)
        rpc = self._channel.stream_stream(
            CONNECT, request_serializer=lambda b: b, response_deserializer=bot_pb2.ConnectResponse.FromString
        )

        async def requests() -> AsyncIterator[bytes]:
            while True:
                item = await self._outbox.get()
                if item is None:
                    return
                yield item

        self._call = rpc(requests(), metadata=(("authorization", f"Bearer {self.token}"),) if self.token else ())
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        try:
            async for msg in self._call:
                self.received.append(msg)
            self.status = grpc.StatusCode.OK
        except grpc.aio.AioRpcError as exc:
            self.status, self.details = exc.code(), exc.details() or ""
        except asyncio.CancelledError:
            self.status = grpc.StatusCode.CANCELLED

    def send(self, raw: bytes) -> None:
        """Queues raw bytes as one message of the stream."""
        self._outbox.put_nowait(raw)

    async def next_of(self, kind: str, timeout: float = 10.0) -> bot_pb2.ConnectResponse:
        """Waits for the next message of ``kind`` (``welcome``, ``error``, ...) after those already looked at."""

        async def wait() -> bot_pb2.ConnectResponse:
            while True:
                while self._cursor < len(self.received):
                    msg = self.received[self._cursor]
                    self._cursor += 1
                    if msg.WhichOneof("message") == kind:
                        return msg
                if self.status is not None:
                    raise AssertionError(f"stream ended ({self.status}: {self.details}) before a {kind}")
                await asyncio.sleep(0.01)

        return await asyncio.wait_for(wait(), timeout)

    async def ended(self, timeout: float = 10.0) -> grpc.StatusCode:
        """Waits for the stream to end; returns its status."""
        assert self._reader is not None
        await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        assert self.status is not None
        return self.status

    def cancel(self) -> None:
        """Cancels the call from the client side, as a bot process that dies would."""
        if self._call is not None:
            self._call.cancel()

    async def close(self) -> None:
        """Cancels the call if still open and closes the channel."""
        self.cancel()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(self._reader, 5)
        if self._channel is not None:
            await self._channel.close()
