"""Moved to :mod:`referee.protocol.timecontrol` (the protocol layer server and SDK share); kept for old imports."""

from referee.protocol.timecontrol import TimeSettings, defaults_for, duration, seconds

__all__ = ["TimeSettings", "defaults_for", "duration", "seconds"]
