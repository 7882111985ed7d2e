"""The referee's books on one match: its lifecycle, who plays each seat, and the decisions pending.

Plain data shared by the match policy (:mod:`referee.server.match`), the message builder
(:mod:`referee.server.messages`) and the hub; no behaviour beyond a link's two calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from brawl.referee.v1 import referee_pb2

from referee.core.contract import Decision, Option
from referee.core.ids import BotId, Seat
from referee.server.clocks import Charge
from referee.server.outgoing import Outgoing, Spliced


class SeatLink(Protocol):
    """How the runner reaches whoever plays a seat."""

    link_id: str
    """Unique per link; a reconnecting bot gets a new link."""

    def send(self, message: Outgoing) -> None:
        """Queues ``message`` for the seat; never blocks."""
        ...

    def rtt_credit(self, cap: float) -> float:
        """Returns the round-trip time to credit back per answer, in seconds, at most ``cap``."""
        ...


class MatchState(StrEnum):
    """A match's lifecycle (the ``Match.State`` of the referee API)."""

    PENDING = "pending"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    CANCELLED = "cancelled"
    FAILED = "failed"


STATE_PROTO = {
    MatchState.PENDING: referee_pb2.Match.STATE_PENDING,
    MatchState.RUNNING: referee_pb2.Match.STATE_RUNNING,
    MatchState.SUCCEEDED: referee_pb2.Match.STATE_SUCCEEDED,
    MatchState.CANCELLED: referee_pb2.Match.STATE_CANCELLED,
    MatchState.FAILED: referee_pb2.Match.STATE_FAILED,
}


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who plays a seat: a connected bot by id, or a house bot by name."""

    bot_id: BotId | None = None
    """A remote bot."""
    house_bot: str | None = None
    """A house bot run in-process."""
    name: str = ""
    """Display name."""


@dataclass
class SeatState:
    """The referee's book on one seat."""

    seat: Seat
    spec: SeatSpec
    bank: float
    """Remaining bank, seconds."""
    link: SeatLink | None = None
    ever_linked: bool = False
    strikes: int = 0
    disconnected_at: float | None = None
    """Loop time of the disconnect; ``None`` while connected (or before the first link)."""
    events_sent: int = 0
    """Index in the full event log from which this seat has not been sent events yet."""
    events_numbered: int = 0
    """Events this seat has been sent: the number of the next one in the seat's own sequence (its
    events are numbered densely from 0, never by their place in the full log)."""
    previous: Charge | None = None
    """What the seat's last decision cost it (sent back in its next request's ``previous``)."""
    obs_sent: Any = None
    """The engine observation the seat's link holds (sent in full or reached by patches), the base
    of its next ``observation_patch``; ``None`` before its first ``MatchStart``."""
    auto_pass: frozenset[str] = frozenset()
    """Window decision kinds the referee answers "pass" for when it is the only option
    (``Hello.auto_pass_kinds`` of the seat's last link; kept across a disconnect)."""


@dataclass
class Pending:
    """The decision being waited for."""

    decision_id: str
    decision: Decision
    options: Sequence[Option]
    option_ids: frozenset[str]
    number: int
    """The seat's own decision number: the decisions it has taken in the match before this one."""
    request: Spliced | None = None
    """The request, built once (a re-send after a reconnect is made from it)."""
    sent_at: float = 0.0
    """Loop time the request was (last) sent."""
    credit: float = 0.0
    """Round-trip credit granted for this decision, seconds."""
    allowed_overrun: float = 0.0
    hard_deadline: float = 0.0
    """Loop time after which the answer is late, before the referee's own pauses move it on."""
    paused_at: float = 0.0
    """The process's garbage-collection pauses so far (``COLLECTOR.paused``, :mod:`referee.server.collector`) when
    the request went out: the pauses since are the referee's time, not the seat's."""
    answer: tuple[str, str, float] | None = None
    """(option id, note, loop time received) once a valid answer arrived."""
    auto: bool = False
    """Answered "pass" by the referee for a seat that opted in (no request was sent)."""
