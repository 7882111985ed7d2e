"""One logging set-up for every process (``common.logsetup``).

The issue: records passed ``extra={"match_id": ...}`` lost the id under the default formatter, and
the console carried every Celery task and beat tick at INFO. These tests log through the real
``logging`` module into a stream or a file and read what came out.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from common import logsetup
from common.settings import ConfigurationError


@pytest.fixture(autouse=True)
def _restore_root() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    levels = {name: logging.getLogger(name).level for name in logsetup.QUIET_AT_INFO}
    yield
    for handler in list(root.handlers):
        if getattr(handler, "_brawl", False):
            root.removeHandler(handler)
            handler.close()
    for handler in handlers:
        if handler not in root.handlers:
            root.addHandler(handler)
    root.setLevel(level)
    for name, old in levels.items():
        logging.getLogger(name).setLevel(old)


def _ours(stream: io.StringIO) -> list[str]:
    return [line for line in stream.getvalue().splitlines() if line]


def test_text_lines_keep_the_extra_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(logsetup.FORMAT_ENV, raising=False)
    stream = io.StringIO()
    logsetup.configure("test", stream=stream, log_dir="")
    logging.getLogger("workers.recording").info("match recorded", extra={"match_id": 42, "bot_id": "b 7"})
    (line,) = _ours(stream)
    assert line.endswith(' INFO workers.recording match recorded bot_id="b 7" match_id=42'), line


def test_json_lines_carry_level_logger_message_fields_and_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(logsetup.FORMAT_ENV, "json")
    stream = io.StringIO()
    logsetup.configure("test", stream=stream, log_dir="")
    try:
        raise RuntimeError("seat 2 vanished")
    except RuntimeError:
        logging.getLogger("referee.server.match").warning(
            "match %s aborted", "m-1", exc_info=True, extra={"match_id": 9}
        )
    (line,) = _ours(stream)
    record = json.loads(line)
    assert record["level"] == "WARNING" and record["logger"] == "referee.server.match"
    assert record["msg"] == "match m-1 aborted" and record["match_id"] == 9
    assert record["ts"].endswith("Z") and "RuntimeError: seat 2 vanished" in record["exc"]


def test_a_bad_format_or_level_is_refused_with_the_setting_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(logsetup.FORMAT_ENV, "xml")
    with pytest.raises(ConfigurationError, match="BRAWL_LOG_FORMAT='xml' is malformed: must be 'text' or 'json'"):
        logsetup.configure("test", stream=io.StringIO())
    monkeypatch.setenv(logsetup.FORMAT_ENV, "text")
    monkeypatch.setenv(logsetup.LEVEL_ENV, "LOUD")
    with pytest.raises(ValueError, match="BRAWL_LOG_LEVEL='LOUD' is malformed: must be a level name"):
        logsetup.configure("test", stream=io.StringIO())
    monkeypatch.setenv(logsetup.LEVEL_ENV, "INFO")
    monkeypatch.setenv("BRAWL_LOG_MAX_BYTES", "10MB")
    with pytest.raises(ConfigurationError, match="BRAWL_LOG_MAX_BYTES='10MB' is malformed"):
        logsetup.configure("test", stream=io.StringIO(), log_dir="/nonexistent/never-made")


def test_celery_task_chatter_is_quiet_at_info_and_shown_at_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(logsetup.LEVEL_ENV, raising=False)
    monkeypatch.delenv("LOG_LEVEL", raising=False)
    stream = io.StringIO()
    logsetup.configure("test", stream=stream, log_dir="")
    logging.getLogger("celery.app.trace").info("Task x succeeded in 0.01s")
    logging.getLogger("celery.app.trace").error("Task x raised")
    assert [line.split(" ", 3)[3] for line in _ours(stream)] == ["celery.app.trace Task x raised"]
    stream = io.StringIO()
    logsetup.configure("test", stream=stream, verbose=True, log_dir="")
    logging.getLogger("celery.app.trace").info("Task x succeeded in 0.01s")
    assert len(_ours(stream)) == 1


def test_the_log_file_is_rotated_so_its_size_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAWL_LOG_MAX_BYTES", "2000")
    monkeypatch.setenv("BRAWL_LOG_BACKUPS", "2")
    logsetup.configure("referee", stream=io.StringIO(), log_dir=tmp_path)
    log = logging.getLogger("referee.server.match")
    for i in range(500):
        log.warning("line %d of a long run", i, extra={"match_id": i})
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["referee.log", "referee.log.1", "referee.log.2"]
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) <= 3 * 2000
    assert "line 499 of a long run match_id=499" in (tmp_path / "referee.log").read_text()


def test_records_inside_a_celery_task_carry_its_id(monkeypatch: pytest.MonkeyPatch) -> None:
    from celery import Celery

    monkeypatch.delenv(logsetup.FORMAT_ENV, raising=False)
    app = Celery("logtest", set_as_current=False)
    app.conf.task_always_eager = True

    @app.task(name="logtest.say")
    def say() -> None:
        logging.getLogger("workers.scheduling").info("ladder round")

    stream = io.StringIO()
    logsetup.configure("worker", stream=stream, log_dir="")
    result = say.apply(task_id="t-123")
    assert result.successful()
    (line,) = [line for line in _ours(stream) if "ladder round" in line]
    assert line.endswith("ladder round task_id=t-123 task_name=logtest.say"), line


def test_django_hands_its_loggers_to_the_process_set_up(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Django's hook keeps the entry point's set-up (a worker stays "worker") and routes ``django`` to it."""
    monkeypatch.delenv(logsetup.FORMAT_ENV, raising=False)
    stream = io.StringIO()
    logsetup.configure("worker", stream=stream, log_dir=tmp_path)
    django_logger = logging.getLogger("django.request")
    logging.getLogger("django").addHandler(logging.NullHandler())  # as Django's defaults do
    logsetup.django_setup({"service": "web"})
    django_logger.error("Internal Server Error: /x", extra={"status_code": 500})
    assert [p.name for p in tmp_path.iterdir()] == ["worker.log"]
    (line,) = _ours(stream)
    assert line.endswith("ERROR django.request Internal Server Error: /x status_code=500"), line
    assert logging.getLogger("django").handlers == []


def test_bound_ids_are_on_every_record_of_the_block_whoever_logs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """``bind`` puts the match's ids on the records of any logger inside the block, and only there."""
    monkeypatch.setenv(logsetup.FORMAT_ENV, "json")
    stream = io.StringIO()
    logsetup.configure("worker", stream=stream, log_dir="")
    with logsetup.bind(match_id=7, bot_ids="3,4"):
        logging.getLogger("webapp.matches.services").info("seats written")
        with logsetup.bind(tournament_id=2):
            logging.getLogger("workers.referee_client").warning("referee slow", extra={"match_id": 8})
    logging.getLogger("workers.tasks").info("after")
    first, second, after = (json.loads(line) for line in _ours(stream))
    assert (first["match_id"], first["bot_ids"], first["logger"]) == (7, "3,4", "webapp.matches.services")
    assert (second["match_id"], second["tournament_id"]) == (8, 2)  # an explicit extra wins
    assert "match_id" not in after and "bot_ids" not in after


def test_the_bound_match_id_follows_the_result_hand_off_into_its_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee binds a match's id for its task; the sink's publish runs in a thread and keeps it."""
    import asyncio

    from referee.core.conformance import random_playout
    from referee.server.sinks import HandOffResultSink
    from tests.conformance.tinygame import TinyGame

    monkeypatch.setenv(logsetup.FORMAT_ENV, "json")
    stream = io.StringIO()
    logsetup.configure("referee", stream=stream, log_dir="")
    replay = random_playout(TinyGame(), 2, seed=1).finish()

    def send(match_id: str, data: bytes) -> str:
        logging.getLogger("service.refhost").info("result sent", extra={"replay_bytes": len(data)})
        return f"sent:{match_id}"

    async def finish() -> str:
        with logsetup.bind(match_id="m-42"):
            return await HandOffResultSink(send).record("m-42", replay)  # type: ignore[arg-type]

    assert asyncio.run(finish()) == "sent:m-42"
    (line,) = _ours(stream)
    record = json.loads(line)
    assert record["match_id"] == "m-42" and record["replay_bytes"] == len(replay.encode())
