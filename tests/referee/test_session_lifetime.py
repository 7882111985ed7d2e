"""No session outlives its stream, whatever moment the stream ends at (issue 11, finding 3).

The race of the finding (a client cancelling while the Welcome is being written) is too narrow to
hit on demand over a real connection (the hostile suite tries it 30 times), so these tests drive
the servicer's stream handler directly at the two moments that leaked: gRPC closing the handler's
generator while it waits on the Welcome's write, and gRPC abandoning the generator there and only
running the call's done-callbacks. The gRPC ServicerContext is the one stand-in: it is the edge of
gRPC's own code.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest
from brawl.bot.v1 import bot_pb2

from referee.core.ids import BotId
from referee.server.auth import BotIdentity, MemoryTokenStore
from referee.server.hub import Referee, RefereeSettings
from referee.server.service import BotServicer
from referee.server.sinks import MemoryResultSink


class Aborted(Exception):
    """What the stand-in context raises on abort, as gRPC does."""


class Context:
    """The parts of ``grpc.aio.ServicerContext`` the bot stream handler uses."""

    def __init__(self, token: str) -> None:
        self.metadata = (("authorization", f"Bearer {token}"),)
        self.callbacks: list[Callable[[Any], None]] = []

    def invocation_metadata(self) -> Any:
        return self.metadata

    def add_done_callback(self, callback: Callable[[Any], None]) -> None:
        self.callbacks.append(callback)

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise Aborted(f"{code.name}: {details}")

    def finish(self) -> None:
        """What gRPC does when the call ends: run the done-callbacks."""
        for callback in self.callbacks:
            callback(self)


async def requests() -> AsyncIterator[bytes]:
    yield bot_pb2.ConnectRequest(hello=bot_pb2.Hello(games=["tinygame"])).SerializeToString()
    await asyncio.Event().wait()  # the client sends nothing more


def start() -> tuple[Referee, BotServicer, Context]:
    store = MemoryTokenStore()
    token = store.issue(BotIdentity(BotId("b"), "B", games=frozenset({"tinygame"})))
    referee = Referee(tokens=store, sink=MemoryResultSink(), settings=RefereeSettings())
    return referee, BotServicer(referee), Context(token)


@pytest.mark.parametrize("ending", ["generator closed at the Welcome", "generator abandoned, call done"])
def test_a_stream_ending_while_its_welcome_is_written_leaves_no_session(ending: str) -> None:
    async def scenario() -> None:
        referee, servicer, context = start()
        stream = servicer.connect(requests(), context)  # type: ignore[arg-type]
        first = await stream.__anext__()
        assert first.WhichOneof("message") == "welcome"
        assert len(referee.sessions) == 1, "registered while the Welcome is being written"
        if ending.startswith("generator closed"):
            await stream.aclose()
        else:
            context.finish()
        assert referee.sessions == {}
        # The done-callback after a closed generator (gRPC runs both) changes nothing.
        context.finish()
        assert referee.sessions == {}
        if not ending.startswith("generator closed"):
            await stream.aclose()

    asyncio.run(scenario())
