"""The ladder's error types: bad input shows the offending value; expected endings are values."""


class LadderError(Exception):
    """Base class of every error raised by :mod:`ladder`."""


class InvalidResultError(LadderError, ValueError):
    """A result, report or rating input is malformed (wrong lengths, unknown ids, bad ranks)."""


class ConflictError(LadderError):
    """A report contradicts what is already recorded (another result for a decided pairing)."""


class InvalidEventError(LadderError, ValueError):
    """An event's configuration or entrants are unusable (too few entrants, duplicate ids...)."""
