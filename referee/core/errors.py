"""The engine's error hierarchy.

Errors are for misuse: asking for something the rules do not allow, or handing over malformed data.
The expected end of a match is a value (:class:`referee.core.contract.Outcome`), never an exception.
What to do about an error (reject and let the bot retry, record a strike, forfeit) is the
referee's policy, not the engine's.
"""


class EngineError(Exception):
    """Base of every error a rules engine raises on purpose."""


class ConfigError(EngineError, ValueError):
    """A match config failed validation; the message names the field and the offending value."""


class ContentError(EngineError, ValueError):
    """A content data file (cards, creatures, maps) failed validation at load."""


class IllegalOptionError(EngineError, ValueError):
    """An option id that is not among the legal options of the pending decision."""


class MatchOverError(EngineError):
    """A decision was applied to a match that has already ended."""


class ChanceExhaustedError(EngineError):
    """A scripted chance source was asked for more outcomes than the test scripted."""
