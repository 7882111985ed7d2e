"""The spectators of one match: the public view (``WatchMatch``) after every decision.

Each spectator gets the public observation and the events since its last message; the last
message carries the outcome. Nothing here can see a seat's hidden information: the view is the
engine's ``observe(None)`` and ``events(since, None)``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from brawl.referee.v1 import referee_pb2

from referee.core.replay import Recorder
from referee.protocol import codec
from referee.server.state import STATE_PROTO, MatchState


class Spectators:
    """The spectators' queues of one match.

    Args:
        match_id: The match.
        game: The game's name.
        recorder: The match's recorder (read only).
        status: Returns the match's state and whether it is over.
        event_total: Returns the length of the full event log.
    """

    def __init__(
        self,
        match_id: str,
        game: str,
        recorder: Recorder,
        status: Callable[[], tuple[MatchState, bool]],
        event_total: Callable[[], int],
    ) -> None:
        self.match_id = match_id
        self.game = game
        self.recorder = recorder
        self._status = status
        self._event_total = event_total
        self._queues: dict[asyncio.Queue[referee_pb2.WatchMatchResponse | None], int] = {}
        """Each spectator's queue, with the event index it has been sent up to."""

    def __bool__(self) -> bool:
        return bool(self._queues)

    def publish(self, final: bool = False) -> None:
        """Sends every spectator the view now (``final``: and closes their streams)."""
        full = self._event_total()
        for q, sent in list(self._queues.items()):
            q.put_nowait(self.message(sent))
            self._queues[q] = full
            if final:
                q.put_nowait(None)

    def message(self, since: int) -> referee_pb2.WatchMatchResponse:
        """The public view now, with the events from index ``since``."""
        match = self.recorder.match
        state, over = self._status()
        msg = referee_pb2.WatchMatchResponse(
            match_id=self.match_id,
            state=STATE_PROTO[state],
            decision_count=self.recorder.decision_count,
            observation=codec.observation(self.game, match.observe(None)),
            events=codec.events(self.game, match.events(since, None)),
        )
        final = self.recorder.outcome()
        if over and final is not None:
            msg.outcome.CopyFrom(codec.outcome(final))
        return msg

    async def watch(self, done: asyncio.Event) -> AsyncIterator[referee_pb2.WatchMatchResponse]:
        """Yields the public view now, then after every decision, the last with the outcome."""
        first = self.message(0)
        if done.is_set():
            yield first
            return
        q: asyncio.Queue[referee_pb2.WatchMatchResponse | None] = asyncio.Queue()
        # Later messages start from the events already in ``first``.
        self._queues[q] = self._event_total()
        try:
            yield first
            while True:
                msg = await q.get()
                if msg is None:
                    return
                yield msg
        finally:
            self._queues.pop(q, None)
