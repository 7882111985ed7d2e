"""The clock arithmetic of a match: deadlines, what an answer is charged, and the timestamps sent.

A decision gives its seat ``decision_time`` free; beyond it the answer draws on the seat's bank,
at most ``max_overrun`` per decision (less when the bank holds less). The measured round trip of
the seat's link, capped at ``max_rtt_credit``, is credited back, so a distant bot is not charged
for the network. Pure functions of numbers (the caller reads the loop's clock), so the policy in
:mod:`referee.server.match` and the tests share one definition.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from brawl.bot.v1 import bot_pb2
from google.protobuf.timestamp_pb2 import Timestamp

from referee.protocol.timecontrol import TimeSettings


@dataclass(frozen=True, slots=True)
class Charge:
    """What one decision cost its seat, in seconds."""

    elapsed: float
    """From the request going out to the answer arriving (or the deadline passing)."""
    credit: float
    """Round-trip time credited back."""
    charged: float
    """Think time counted against the seat."""
    drawn: float
    """Taken from the bank (the charge beyond the free decision time)."""

    def fill(self, target: bot_pb2.AnswerTiming) -> None:
        """Writes the charge into ``target`` (a request's ``previous``), in place."""
        set_duration(target.elapsed, self.elapsed)
        set_duration(target.rtt_credit, self.credit)
        set_duration(target.charged, self.charged)
        set_duration(target.bank_drawn, self.drawn)


def allowed_overrun(time: TimeSettings, bank: float) -> float:
    """Most bank time one decision may draw: ``max_overrun``, or less if the bank holds less."""
    return min(bank, time.max_overrun)


def hard_deadline(time: TimeSettings, sent_at: float, overrun: float, credit: float) -> float:
    """Loop time after which an answer sent at ``sent_at`` is late."""
    return sent_at + time.decision_time + overrun + credit


def answered(time: TimeSettings, sent_at: float, received: float, credit: float) -> Charge:
    """The charge of an answer received at ``received`` for a request sent at ``sent_at``."""
    elapsed = max(0.0, received - sent_at)
    charged = max(0.0, elapsed - credit)
    return Charge(elapsed, credit, charged, max(0.0, charged - time.decision_time))


def timed_out(time: TimeSettings, elapsed: float, overrun: float, credit: float) -> Charge:
    """The charge of a decision nobody answered in time: all its free time and its whole overrun."""
    return Charge(elapsed, credit, time.decision_time + overrun, overrun)


def set_duration(target: object, secs: float) -> None:
    """Sets a ``Duration`` message in place (0 for a negative time)."""
    whole = int(secs) if secs > 0 else 0
    nanos = int((secs - whole) * 1e9) if secs > 0 else 0
    target.seconds = whole  # type: ignore[attr-defined]
    target.nanos = nanos  # type: ignore[attr-defined]


loop_time: Callable[[], float] = time.monotonic
"""The event loop's monotonic clock, in seconds.

asyncio's default loop reads ``time.monotonic`` for ``loop.time()``; reading it directly spares
``asyncio.get_running_loop()``, which costs a ``getpid`` system call in CPython 3.11 (3.8 % of a
referee's CPU at 10 ScrumBrawl matches, five reads per decision). Timers are set with
``call_later`` (relative), so they stay right on a loop with another clock."""


def time_now() -> float:
    """Wall-clock time, in seconds since the epoch."""
    return time.time()


def timestamp(secs: float) -> Timestamp:
    """Returns wall-clock seconds as a Timestamp."""
    whole = int(secs)
    return Timestamp(seconds=whole, nanos=int((secs - whole) * 1e9))


def set_timestamp(target: Timestamp, secs: float) -> None:
    """Sets a ``Timestamp`` message to wall-clock seconds, in place."""
    whole = int(secs)
    target.seconds = whole
    target.nanos = int((secs - whole) * 1e9)


def ms(secs: float) -> int:
    """Seconds as whole milliseconds (the replay's ``think_ms``)."""
    return round(secs * 1000)
