"""The settings of every Brawl Ladder process, read from the environment in one typed place.

Every process (referee, workers, beat, web tier, ``brawl run``) reads its deploy-specific values
here and nowhere else: :func:`env` coerces the text of one variable to a type and fails with a
:class:`ConfigurationError` naming the variable when it is malformed, and :func:`current` returns
the :class:`Settings` the environment describes now. The Django settings (``webapp.settings``)
build on this module; so do the workers and the referee. It imports nothing but the standard
library, so the referee and the bot SDK may use it without Django or Celery.

Values are read when asked for, not cached at import, so a test or ``brawl run`` that sets a
variable before starting a piece sees it applied. The variables are listed in ``docs/deploy.md``.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from pathlib import Path
from typing import Literal, TypeVar, overload

T = TypeVar("T")


class ConfigurationError(RuntimeError, ValueError):
    """A required setting is missing or an environment variable cannot be parsed.

    A ``ValueError`` too, so a command line that reports bad values as such reports these alike.
    """


class Environment(StrEnum):
    """Which deployment this process serves (``BRAWL_ENV``)."""

    DEVELOPMENT = "development"
    """A developer's machine: insecure defaults allowed."""
    TEST = "test"
    """The test suite."""
    PRODUCTION = "production"
    """A real deployment: every secret must come from the environment."""


def parse_environment(text: str) -> Environment:
    """Returns the deployment ``text`` names, in any case and with spaces around it.

    Raises:
        ValueError: it names none of :class:`Environment`.
    """
    try:
        return Environment(text.strip().lower())
    except ValueError:
        raise ValueError(f"must be one of {', '.join(e.value for e in Environment)}") from None


def parse_bool(text: str) -> bool:
    """Returns the boolean written as ``1/0``, ``true/false``, ``yes/no`` or ``on/off``.

    Raises:
        ValueError: the text is none of those.
    """
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"not a boolean: {text!r}")


def parse_list(text: str) -> list[str]:
    """Returns the non-empty comma-separated items of ``text``, stripped."""
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_seconds(text: str) -> float:
    """Returns a positive, finite number of seconds.

    Raises:
        ValueError: the text is not a number, or is zero, negative, infinite or NaN.
    """
    seconds = float(text)
    if not seconds > 0 or math.isinf(seconds):
        raise ValueError("must be a positive number of seconds")
    return seconds


def parse_duration(text: str) -> timedelta:
    """Returns :func:`parse_seconds` as a ``timedelta``."""
    return timedelta(seconds=parse_seconds(text))


def parse_positive_int(text: str) -> int:
    """Returns a whole number of at least 1.

    Raises:
        ValueError: the text is not a whole number, or is below 1.
    """
    value = int(text)
    if value < 1:
        raise ValueError("must be a positive whole number")
    return value


def parse_count(text: str) -> int:
    """Returns a whole number of at least 0 (where 0 means none: no challenges, nothing inline).

    Raises:
        ValueError: the text is not a whole number, or is negative.
    """
    value = int(text)
    if value < 0:
        raise ValueError("must be a whole number of 0 or more")
    return value


@overload
def env(name: str, coerce: Callable[[str], T], default: T, *, environ: Mapping[str, str] | None = None) -> T: ...
@overload
def env(
    name: str, coerce: Callable[[str], T], *, required: Literal[True], environ: Mapping[str, str] | None = None
) -> T: ...
@overload
def env(
    name: str,
    coerce: Callable[[str], T],
    default: None = None,
    *,
    required: bool = False,
    environ: Mapping[str, str] | None = None,
) -> T | None: ...
def env(
    name: str,
    coerce: Callable[[str], T],
    default: T | None = None,
    *,
    required: bool = False,
    environ: Mapping[str, str] | None = None,
) -> T | None:
    """Returns environment variable ``name`` coerced with ``coerce``, or ``default`` when unset or empty.

    Args:
        environ: The environment to read (``os.environ`` by default).

    Raises:
        ConfigurationError: the variable is required and unset, or ``coerce`` rejects it.
    """
    raw = (os.environ if environ is None else environ).get(name)
    if raw is None or raw == "":
        if required:
            raise ConfigurationError(f"environment variable {name} is required")
        return default
    try:
        return coerce(raw)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"environment variable {name}={raw!r} is malformed: {exc}") from exc


def environment(environ: Mapping[str, str] | None = None) -> Environment:
    """Returns ``BRAWL_ENV``, the deployment this process serves (``development`` when unset).

    Raises:
        ConfigurationError: the variable names no :class:`Environment`.
    """
    return env("BRAWL_ENV", parse_environment, Environment.DEVELOPMENT, environ=environ)


def internal_token(environ: Mapping[str, str] | None = None) -> str:
    """Returns ``BRAWL_INTERNAL_TOKEN`` without surrounding spaces; ``""`` when unset.

    Read alone (not through :func:`current`), so the referee's credential check does not depend on
    every other variable being well formed.
    """
    return env("BRAWL_INTERNAL_TOKEN", str, "", environ=environ).strip()


def redis_url(environ: Mapping[str, str] | None = None) -> str | None:
    """Returns ``REDIS_URL``, or ``None`` when it is unset or empty."""
    return env("REDIS_URL", str, environ=environ)


def var_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Returns ``BRAWL_VAR_DIR``: where SQLite, the embedded broker, replays, logs and metrics live.

    The one default: ``./var`` under the process's working directory.
    """
    return env("BRAWL_VAR_DIR", Path, Path.cwd() / "var", environ=environ)


@dataclass(frozen=True)
class ReaperLimits:
    """The reaper's deadlines (``workers.recording.reap``); ``BRAWL_REAPER_<NAME>`` (seconds) sets each."""

    start_grace: timedelta = timedelta(seconds=30)
    """How long a match marked running may be unknown to its referee (the start call may be in flight)."""
    result_grace: timedelta = timedelta(seconds=30)
    """How long after a referee says a match ended its result may take to arrive."""
    silence: timedelta = timedelta(minutes=2)
    """How long a referee may not answer before its running matches are replaced."""
    max_match_time: timedelta = timedelta(hours=2)
    """A match running longer than this is cancelled on its referee and replaced."""
    queue_grace: timedelta = timedelta(seconds=20)
    """How long a queued match may wait before its start is sent again (the first message may be lost)."""


@dataclass(frozen=True)
class LogSettings:
    """How a process logs (``common.logsetup``); read alone by :func:`log_settings` (bots read only these)."""

    format: str = "text"
    """``BRAWL_LOG_FORMAT``: ``text`` or ``json``."""
    level: str = "INFO"
    """``BRAWL_LOG_LEVEL`` (or ``LOG_LEVEL``, the name the deployment files set)."""
    dir: Path | None = None
    """``BRAWL_LOG_DIR``: a folder for rotated log files; none by default."""
    max_bytes: int = 10_000_000
    """``BRAWL_LOG_MAX_BYTES``: a log file's size before it rotates."""
    backups: int = 5
    """``BRAWL_LOG_BACKUPS``: rotated files kept."""


@dataclass(frozen=True)
class Settings:
    """What the environment says to every process; build it with :func:`current`."""

    var_dir: Path
    """``BRAWL_VAR_DIR`` (``./var``)."""
    redis_url: str | None
    """``REDIS_URL``: broker, cache, relay and metrics store; ``None`` for the embedded one-machine setup."""
    referees: list[str] = field(default_factory=list)
    """``BRAWL_REFEREES``: ``host:port`` of each referee's internal API."""
    internal_token: str = ""
    """``BRAWL_INTERNAL_TOKEN``: the secret of the referees' internal API."""
    web_internal_url: str = "http://127.0.0.1:8000"
    """``BRAWL_WEB_INTERNAL_URL``: where a ladder referee reaches the web tier's internal API (token checks)."""
    relay: bool | None = None
    """``BRAWL_RELAY``: whether referees relay seats to each other; ``None`` (unset) means "when Redis is"."""
    ladder_games: list[str] = field(default_factory=list)
    """``BRAWL_LADDER_GAMES``: games the beat schedules ladder rounds for (empty: every registered game)."""
    ladder_interval: float = 3.0
    """``BRAWL_LADDER_INTERVAL``: seconds between ladder rounds per game."""
    tournament_interval: float = 10.0
    """``BRAWL_TOURNAMENT_INTERVAL``: seconds between tournament progress sweeps."""
    reaper_interval: float = 10.0
    """``BRAWL_REAPER_INTERVAL``: seconds between reaper sweeps."""
    webhook_interval: float = 5.0
    """``BRAWL_WEBHOOK_INTERVAL``: seconds between webhook delivery sweeps."""
    broker_visibility_timeout: float = 300.0
    """``BRAWL_BROKER_VISIBILITY_TIMEOUT``: seconds before Redis redelivers an unacknowledged message."""
    rematch_patience: timedelta | None = None
    """``BRAWL_REMATCH_PATIENCE``: how long a bot at its rematch limit waits; ``None``: the ladder's default."""
    webhook_allow_private: bool = False
    """``BRAWL_WEBHOOK_ALLOW_PRIVATE``: let webhooks reach private addresses (tests only)."""
    reaper: ReaperLimits = field(default_factory=ReaperLimits)
    """``BRAWL_REAPER_*``."""
    log: LogSettings = field(default_factory=lambda: LogSettings())
    """``BRAWL_LOG_*``."""

    @property
    def relay_enabled(self) -> bool:
        """Whether seats are relayed between referees: ``BRAWL_RELAY``, else whether Redis is configured."""
        return self.relay if self.relay is not None else bool(self.redis_url)


def parse_log_format(text: str) -> str:
    """Returns ``text`` or ``json``.

    Raises:
        ValueError: the text is neither.
    """
    name = text.strip().lower()
    if name not in ("text", "json"):
        raise ValueError("must be 'text' or 'json'")
    return name


def parse_log_level(text: str) -> str:
    """Returns a logging level name in capitals (``DEBUG``, ``INFO``, ...).

    Raises:
        ValueError: the text names no level.
    """
    name = text.strip().upper()
    if not isinstance(logging.getLevelName(name), int):
        raise ValueError("must be a level name such as INFO or DEBUG")
    return name


def current(environ: Mapping[str, str] | None = None) -> Settings:
    """Returns the settings the environment describes now.

    Raises:
        ConfigurationError: a variable is malformed (its name and value are in the message).
    """
    e = environ
    defaults = ReaperLimits()
    return Settings(
        var_dir=var_dir(e),
        redis_url=redis_url(e),
        referees=env("BRAWL_REFEREES", parse_list, [], environ=e),
        internal_token=internal_token(e),
        web_internal_url=env("BRAWL_WEB_INTERNAL_URL", str, "http://127.0.0.1:8000", environ=e),
        relay=env("BRAWL_RELAY", parse_bool, environ=e),
        ladder_games=env("BRAWL_LADDER_GAMES", parse_list, [], environ=e),
        ladder_interval=env("BRAWL_LADDER_INTERVAL", parse_seconds, 3.0, environ=e),
        tournament_interval=env("BRAWL_TOURNAMENT_INTERVAL", parse_seconds, 10.0, environ=e),
        reaper_interval=env("BRAWL_REAPER_INTERVAL", parse_seconds, 10.0, environ=e),
        webhook_interval=env("BRAWL_WEBHOOK_INTERVAL", parse_seconds, 5.0, environ=e),
        broker_visibility_timeout=env("BRAWL_BROKER_VISIBILITY_TIMEOUT", parse_seconds, 300.0, environ=e),
        rematch_patience=env("BRAWL_REMATCH_PATIENCE", parse_duration, environ=e),
        webhook_allow_private=env("BRAWL_WEBHOOK_ALLOW_PRIVATE", parse_bool, False, environ=e),
        reaper=ReaperLimits(
            start_grace=env("BRAWL_REAPER_START_GRACE", parse_duration, defaults.start_grace, environ=e),
            result_grace=env("BRAWL_REAPER_RESULT_GRACE", parse_duration, defaults.result_grace, environ=e),
            silence=env("BRAWL_REAPER_SILENCE", parse_duration, defaults.silence, environ=e),
            max_match_time=env("BRAWL_REAPER_MAX_MATCH_TIME", parse_duration, defaults.max_match_time, environ=e),
            queue_grace=env("BRAWL_REAPER_QUEUE_GRACE", parse_duration, defaults.queue_grace, environ=e),
        ),
        log=log_settings(e),
    )


def log_settings(environ: Mapping[str, str] | None = None) -> LogSettings:
    """Returns the logging settings alone (what ``common.logsetup`` needs, in every process and bot).

    Raises:
        ConfigurationError: a ``BRAWL_LOG_*`` variable is malformed.
    """
    e = environ
    return LogSettings(
        format=env("BRAWL_LOG_FORMAT", parse_log_format, "text", environ=e),
        # LOG_LEVEL: the name the deployment files (compose, Kubernetes) already set.
        level=env("BRAWL_LOG_LEVEL", parse_log_level, None, environ=e)
        or env("LOG_LEVEL", parse_log_level, "INFO", environ=e),
        dir=env("BRAWL_LOG_DIR", Path, environ=e),
        max_bytes=env("BRAWL_LOG_MAX_BYTES", parse_positive_int, 10_000_000, environ=e),
        backups=env("BRAWL_LOG_BACKUPS", parse_positive_int, 5, environ=e),
    )
