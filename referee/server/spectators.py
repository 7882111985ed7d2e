"""The spectators of one match: the public view (``WatchMatch``) at every public moment.

A *public moment* is the start of play, the asking of a decision whose kind is not one of the
game's ``private_decisions``, and the end. Each one sends every spectator the public observation,
the public events since the previous moment and the public decision count; the last message carries
the outcome. Nothing goes out while a private decision (Super Fantasy Brawl's reaction) is pending:
its asking, its answer and what it caused reach spectators with the next public moment, in one
message with whatever else happened since the previous one, exactly as if no seat had been asked. A
spectator who joins gets the view of the last public moment, not of the state in between.

Spectators' events are numbered densely from 0 over the public events, and the decision count is
the public decisions', so neither shows a gap where a private event or decision was (see
docs/bot-protocol.md, "Numbering"). Nothing here can see a seat's hidden information: the view is
the engine's ``observe(None)`` and ``events(since, None)``.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from brawl.bot.v1 import bot_pb2
from brawl.referee.v1 import referee_pb2

from referee.core.contract import Event
from referee.core.replay import Recorder, initial_match
from referee.protocol import codec
from referee.server.state import STATE_PROTO, MatchState


@dataclass(frozen=True, slots=True)
class Moment:
    """The public view at the last public moment."""

    events: int = 0
    """The length of the full event log then."""
    numbered: int = 0
    """The public events among them (the number of the next public event)."""
    decisions: int = 0
    """The public decisions taken by then."""
    observation: Any = None
    """The public observation then; kept only for a game with private decisions (in any other game
    the match is at its last public moment whenever a spectator can join)."""


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
        self._queues: list[asyncio.Queue[referee_pb2.WatchMatchResponse | None]] = []
        """Each spectator's queue; every one has been sent the view up to :attr:`moment`."""
        self._keep = bool(recorder.game.info.private_decisions)
        self.moment = Moment()
        """The last public moment."""

    def __bool__(self) -> bool:
        return bool(self._queues)

    def publish(self, final: bool = False) -> None:
        """A public moment: sends every spectator the view now (``final``: and closes their streams)."""
        rec, last = self.recorder, self.moment
        match = rec.match
        total = self._event_total()
        new = match.events(last.events, None) if total > last.events else []
        observation = match.observe(None) if (self._queues or self._keep) else None
        if self._queues:
            msg = self._message(observation, new, last.numbered, rec.public_decisions)
            for q in self._queues:
                q.put_nowait(msg)
                if final:
                    q.put_nowait(None)
        self.moment = Moment(total, last.numbered + len(new), rec.public_decisions, observation if self._keep else None)

    def shed(self) -> None:
        """Drops the kept observation of a match that is over (its last public moment is its end, the
        view :meth:`first_message` then reads from the match itself)."""
        self.moment = dataclasses.replace(self.moment, observation=None)

    def close(self) -> None:
        """Ends every spectator's stream with nothing more sent (the match is left to another referee
        while a private decision is pending: the state since the last public moment stays unsent)."""
        for q in self._queues:
            q.put_nowait(None)

    def restore_moment(self) -> None:
        """Rebuilds :attr:`moment` after a takeover that found a private decision pending: the view
        before the last public decision recorded, re-simulated from the decision log."""
        rec = self.recorder
        at = rec.last_public
        match = initial_match(rec.replay, rec.game)
        for d in rec.replay.decisions[: at or 0]:
            match.apply(d.option_id)
        log = match.events(0)
        self.moment = Moment(
            len(log),
            sum(1 for e in log if e.visible(None)),
            0 if at is None else rec.public_decisions - 1,
            match.observe(None),
        )

    def _message(
        self, observation: Any, events: Sequence[Event], first: int, decisions: int
    ) -> referee_pb2.WatchMatchResponse:
        state, over = self._status()
        msg = referee_pb2.WatchMatchResponse(
            match_id=self.match_id,
            state=STATE_PROTO[state],
            decision_count=decisions,
            observation=codec.observation(self.game, observation),
            events=numbered(codec.events(self.game, events), first),
        )
        final = self.recorder.outcome()
        if over and final is not None:
            msg.outcome.CopyFrom(codec.outcome(final))
        return msg

    def first_message(self) -> referee_pb2.WatchMatchResponse:
        """The view of the last public moment with every public event up to it, for a new spectator."""
        last = self.moment
        match = self.recorder.match
        observation = last.observation if last.observation is not None else match.observe(None)
        events = [e for e in match.events(0, None) if e.index < last.events]
        return self._message(observation, events, 0, last.decisions)

    async def watch(self, done: asyncio.Event) -> AsyncIterator[referee_pb2.WatchMatchResponse]:
        """Yields the view of the last public moment, then one message per public moment, the last with
        the outcome."""
        first = self.first_message()
        if done.is_set():
            yield first
            return
        q: asyncio.Queue[referee_pb2.WatchMatchResponse | None] = asyncio.Queue()
        self._queues.append(q)
        try:
            yield first
            while True:
                msg = await q.get()
                if msg is None:
                    return
                yield msg
        finally:
            self._queues.remove(q)


def numbered(events: list[bot_pb2.GameEvent], first: int) -> list[bot_pb2.GameEvent]:
    """Numbers ``events`` (a viewer's, in order) ``first``, ``first + 1``...: the viewer's own sequence."""
    for n, msg in enumerate(events, first):
        msg.index = n
    return events
