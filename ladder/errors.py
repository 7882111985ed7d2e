"""The ladder's error types: bad input shows the offending value; expected endings are values."""

import math


class LadderError(Exception):
    """Base class of every error raised by :mod:`ladder`."""


class InvalidResultError(LadderError, ValueError):
    """A result, report or rating input is malformed (wrong lengths, unknown ids, bad ranks)."""


class ConflictError(LadderError):
    """A report contradicts what is already recorded (another result for a decided pairing)."""


class InvalidEventError(LadderError, ValueError):
    """An event's configuration or entrants are unusable (too few entrants, duplicate ids...)."""


def require_number(name: str, value: float, *, minimum: float | None = None, exclusive: bool = False) -> float:
    """Returns ``value`` if it is a finite number (and above ``minimum``); raises otherwise.

    NaN and infinity would spread through every rating they touch (a NaN Elo turns each
    opponent's next rating into NaN), so every number entering the ratings goes through here.

    Args:
        name: what the value is, for the message (``"elo"``, ``"Glicko2Config.tau"``...).
        value: the number.
        minimum: the lowest allowed value, if any.
        exclusive: whether ``minimum`` itself is refused (a value must be above it).

    Raises:
        InvalidResultError: naming the value, if it is not a finite number or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidResultError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise InvalidResultError(f"{name} must be a finite number, got {value!r}")
    if minimum is not None and (value <= minimum if exclusive else value < minimum):
        bound = f"above {minimum!r}" if exclusive else f"at least {minimum!r}"
        raise InvalidResultError(f"{name} must be {bound}, got {value!r}")
    return value
