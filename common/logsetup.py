"""Logging for every Brawl Ladder process: referee, workers, web site and bots.

One call, :func:`configure`, at each process's entry point sets the root logger up the same way:

- **Format**: ``BRAWL_LOG_FORMAT=text`` (default) prints ``time level logger message key=value ...``;
  ``json`` prints one JSON object per line (``ts``, ``level``, ``logger``, ``msg``, then the fields)
  for a log collector. Either way every field a caller passed in ``extra=`` (``match_id``,
  ``bot_id``, ``task_id``...) is shown; Python's default formatter drops them.
- **Level**: ``BRAWL_LOG_LEVEL`` (or ``LOG_LEVEL``; ``INFO`` by default; ``-v`` on a command means ``DEBUG``). At INFO a
  ladder shows one line per match start and end and a warning per fault; per-decision detail and the
  per-task chatter of Celery and gRPC are at DEBUG.
- **Files**: with ``BRAWL_LOG_DIR`` set, records also go to ``<dir>/<service>.log``, rotated at
  ``BRAWL_LOG_MAX_BYTES`` (10 MB) with ``BRAWL_LOG_BACKUPS`` (5) old files kept, so disk use is bounded.
- **Ids on every record**: inside a Celery task, records carry ``task_id`` and ``task_name``; inside
  :func:`bind` (``with bind(match_id=..., bot_ids=...)``) every record carries those fields too,
  whoever logs it (the services, Django, the referee client), without each call passing them.
  Fields are passed as ``extra=`` (never formatted into the message), so the JSON format has them
  as keys: one style for every process.
- **Settings**: the variables above are read through ``common.settings`` (``log_settings``), the
  one typed settings module; a malformed one is a ``ConfigurationError`` naming it.

Standard library only, so the bot SDK can use it without the server's dependencies.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import logging.handlers
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from common import settings

FORMAT_ENV = "BRAWL_LOG_FORMAT"
LEVEL_ENV = "BRAWL_LOG_LEVEL"
DIR_ENV = "BRAWL_LOG_DIR"

# Attributes every LogRecord has; anything else on a record came from ``extra=`` or a filter.
_STANDARD = set(vars(logging.LogRecord("n", logging.INFO, "p", 1, "m", None, None))) | {"message", "asctime"}

QUIET_AT_INFO: Mapping[str, int] = {
    # One line per task received and per task succeeded, and one per beat tick: at a 3 s ladder
    # interval that alone was hundreds of lines a minute. Failures still show (WARNING and up).
    "celery.worker.strategy": logging.WARNING,
    "celery.app.trace": logging.WARNING,
    "celery.beat": logging.WARNING,
    # "Discarding revoked task": a beat tick that expired while the worker was busy, by design.
    "celery.worker.request": logging.WARNING,
    # Django's dev server logs every request (the viewer polls); errors still show.
    "django.server": logging.WARNING,
    "kombu": logging.WARNING,
    "grpc": logging.WARNING,
    "asyncio": logging.WARNING,
}
"""Loggers raised to WARNING unless the level is DEBUG: chatter per task or request, not per fault."""


def fields(record: logging.LogRecord) -> dict[str, Any]:
    """Returns the fields a record carries beyond the standard ones (``extra=``), in a stable order."""
    found = {k: v for k, v in sorted(vars(record).items()) if k not in _STANDARD and not k.startswith("_")}
    if record.name.startswith("celery.") and isinstance(found.get("data"), dict):
        # Celery passes its message's arguments as ``data``; they repeat the message and traceback.
        del found["data"]
    return found


def _text_value(value: Any) -> str:
    text = str(value)
    return json.dumps(text) if (not text or any(c.isspace() or c in '"=' for c in text)) else text


class TextFormatter(logging.Formatter):
    """``time level logger message key=value ...``: the default format with the ``extra`` fields kept."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        """Formats the record, then appends each extra field as ``key=value``."""
        line = super().format(record)
        extra = fields(record)
        if not extra:
            return line
        head, sep, tail = line.partition("\n")  # fields stay on the message's line, before a traceback
        return head + "".join(f" {k}={_text_value(v)}" for k, v in extra.items()) + sep + tail


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts`` (UTC, ISO 8601), ``level``, ``logger``, ``msg``, the fields, ``exc``."""

    def format(self, record: logging.LogRecord) -> str:
        """Formats the record as one line of JSON."""
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in fields(record).items():
            out[key] = value if isinstance(value, (str, int, float, bool)) or value is None else str(value)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


_NONE: Mapping[str, Any] = MappingProxyType({})
_BOUND: contextvars.ContextVar[Mapping[str, Any]] = contextvars.ContextVar("brawl_log_fields", default=_NONE)


@contextlib.contextmanager
def bind(**ids: Any) -> Iterator[None]:
    """Adds ``ids`` (``match_id``, ``bot_ids``, ``tournament_id``...) to every record logged inside the block.

    Nested blocks add to the outer ones; a field a call passes in ``extra=`` wins. Follows the
    context (threads started with ``asyncio.to_thread`` and tasks of one event loop inherit it).
    """
    token = _BOUND.set({**_BOUND.get(), **{k: v for k, v in ids.items() if v is not None}})
    try:
        yield
    finally:
        _BOUND.reset(token)


class ContextFilter(logging.Filter):
    """Adds the :func:`bind` fields, and ``task_id``/``task_name`` inside a Celery task, to each record."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Annotates the record (never drops it)."""
        for key, value in _BOUND.get().items():
            if not hasattr(record, key):
                setattr(record, key, value)
        state = sys.modules.get("celery._state")  # only where Celery is already loaded
        if state is not None and not hasattr(record, "task_id"):
            task = state.get_current_task()
            request = getattr(task, "request", None)
            task_id = getattr(request, "id", None)
            if task_id:
                record.task_id = task_id
                record.task_name = task.name
        return True


TaskIdFilter = ContextFilter
"""The former name of :class:`ContextFilter`."""


def make_formatter(fmt: str | None = None) -> logging.Formatter:
    """Returns the formatter ``fmt`` (or ``BRAWL_LOG_FORMAT``) names.

    Raises:
        ValueError: the format is neither ``text`` nor ``json`` (a ``ConfigurationError`` when
            it came from the environment).
    """
    name = settings.parse_log_format(fmt) if fmt else settings.log_settings().format
    return JsonFormatter() if name == "json" else TextFormatter()


def resolve_level(verbose: bool = False) -> int:
    """Returns DEBUG when ``verbose``, else ``BRAWL_LOG_LEVEL`` (default INFO).

    Raises:
        ConfigurationError: ``BRAWL_LOG_LEVEL`` (or ``LOG_LEVEL``) names no level.
    """
    if verbose:
        return logging.DEBUG
    level = logging.getLevelName(settings.log_settings().level)
    assert isinstance(level, int)  # parse_log_level checked it
    return level


def configure(
    service: str,
    *,
    verbose: bool = False,
    fmt: str | None = None,
    log_dir: str | Path | None = None,
    stream: Any = None,
) -> logging.Logger:
    """Sets up the root logger of this process; returns it. Safe to call more than once.

    Args:
        service: the process's name (``referee``, ``worker``, ``web``, ``bot``...), the log file's name.
        verbose: DEBUG, whatever ``BRAWL_LOG_LEVEL`` says.
        fmt: ``text`` or ``json``; ``BRAWL_LOG_FORMAT`` by default.
        log_dir: folder for the rotated log file; ``BRAWL_LOG_DIR`` by default; none when unset.
        stream: the console stream (stderr by default).

    Raises:
        ValueError: a setting names no format or level (nothing is changed).
    """
    conf = settings.log_settings()
    formatter = make_formatter(fmt)
    level = resolve_level(verbose)
    handlers: list[logging.Handler] = [logging.StreamHandler(stream or sys.stderr)]
    folder = log_dir if log_dir is not None else conf.dir
    if folder:
        max_bytes, backups = conf.max_bytes, conf.backups
        path = Path(folder)
        path.mkdir(parents=True, exist_ok=True)
        handlers.append(
            logging.handlers.RotatingFileHandler(
                path / f"{service}.log", maxBytes=max_bytes, backupCount=backups, encoding="utf-8"
            )
        )
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_brawl", False):
            root.removeHandler(old)
            old.close()
    ids = ContextFilter()
    for handler in handlers:
        handler.setFormatter(formatter)
        handler.addFilter(ids)
        handler._brawl = True  # type: ignore[attr-defined]  # marks ours, so a second call replaces them
        root.addHandler(handler)
    root.setLevel(level)
    for name, quiet in QUIET_AT_INFO.items():
        logging.getLogger(name).setLevel(logging.NOTSET if level <= logging.DEBUG else quiet)
    return root


def django_setup(settings: Mapping[str, Any]) -> None:
    """Django's ``LOGGING_CONFIG`` hook: :func:`configure` for the web tier unless this process did already.

    Django installs its default handlers first; the ``django`` loggers are sent back to the root
    handlers here, so the web tier's lines have the same format (and the same JSON option) as the rest.
    """
    root = logging.getLogger()
    if not any(getattr(h, "_brawl", False) for h in root.handlers):
        # Only when the process's entry point did not set logging up already (a ``brawl``
        # command has; a bare WSGI server has not), so a worker does not become "web".
        configure(str(settings.get("service", "web")))
    for name in ("django", "django.server"):
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.propagate = True
