"""Time controls: per-decision time, a per-match bank, strikes and reconnect grace.

Defaults are per game (each game's ``GameInfo.time_control``), overridable per match field by field through the
``TimeControl`` message of ``StartMatch``. The referee's policy for using them lives in
:mod:`referee.server.match`; this module only holds the numbers.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from brawl.bot.v1 import bot_pb2
from google.protobuf.duration_pb2 import Duration

from referee.core.contract import TimeControl
from referee.core.registry import UnknownGameError, get_game


@dataclass(frozen=True, slots=True)
class TimeSettings(TimeControl):
    """A match's time control, in seconds: the game info's :class:`TimeControl` (same fields, same
    defaults, written once in referee.core) with the conversions to and from the wire."""

    def to_proto(self) -> bot_pb2.TimeControl:
        """Returns the settings as a ``TimeControl`` message."""
        return bot_pb2.TimeControl(
            decision_time=duration(self.decision_time),
            bank_time=duration(self.bank_time),
            max_overrun=duration(self.max_overrun),
            max_strikes=self.max_strikes,
            reconnect_grace=duration(self.reconnect_grace),
            max_rtt_credit=duration(self.max_rtt_credit),
        )

    def merged(self, msg: bot_pb2.TimeControl | None) -> TimeSettings:
        """Returns these settings with every field set in ``msg`` taken from it.

        Raises:
            ValueError: a duration is negative or the strike limit below 1.
        """
        if msg is None:
            return self
        changes: dict[str, float | int] = {}
        for name in ("decision_time", "bank_time", "max_overrun", "reconnect_grace", "max_rtt_credit"):
            if msg.HasField(name):
                value = seconds(getattr(msg, name))
                if value < 0:
                    raise ValueError(f"time control {name} must not be negative, got {value!r} s")
                changes[name] = value
        if msg.max_strikes:
            if msg.max_strikes < 1:
                raise ValueError(f"time control max_strikes must be at least 1, got {msg.max_strikes!r}")
            changes["max_strikes"] = msg.max_strikes
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


def defaults_for(game: str) -> TimeSettings:
    """Returns the default time control of ``game``, as its registry info states it (the class defaults if unknown)."""
    try:
        tc = get_game(game).info.time_control
    except UnknownGameError:
        return TimeSettings()
    return TimeSettings(**dataclasses.asdict(tc))


def duration(secs: float) -> Duration:
    """Returns ``secs`` seconds as a Duration."""
    if secs <= 0:
        return Duration()
    whole = int(secs)
    return Duration(seconds=whole, nanos=int((secs - whole) * 1e9))


def seconds(d: Duration) -> float:
    """Returns a Duration in seconds."""
    return float(d.seconds) + d.nanos / 1e9
