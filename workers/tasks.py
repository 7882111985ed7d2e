"""The Celery tasks of the ladder: thin wrappers that take ids, refetch rows and are safe to run twice.

| task | queue | does |
| --- | --- | --- |
| ``schedule_ladder_round(game)`` | scheduling | pairs online bots and queues ladder matches (``workers.scheduling``) |
| ``start_match(match_id)`` | scheduling | starts a queued match on a referee holding its bots |
| ``record_result(match_id, replay)`` | recording | a referee's result, staged and recorded once (``recording``) |
| ``record_match(match_id)`` | recording | records a staged result once (the reaper's path) |
| ``advance_tournament(tournament_id)`` | scheduling | replays failed games, queues ready ones |
| ``advance_tournaments()`` | scheduling | the beat's sweep: ``advance_tournament`` per running tournament |
| ``reap_stuck_matches()`` | scheduling | the beat's safety net over unfinished matches |
| ``notify_result(match_id)`` | followups | a committed result's author notifications, once (``webapp.results``) |
| ``store_frames(match_id)`` | followups | a committed result's viewer frames, once (``webapp.matches.framestore``) |
| ``refresh_pages(game, bot_ids)`` | followups | after results, their pages' cached pieces (``webapp.pages.refresh``) |

Every task retries only transient failures (database connection, a referee not answering) with
exponential backoff and jitter; anything else is a bug and fails loudly. Tasks enqueue other
tasks (after the transaction commits, through ``webapp.matches.dispatch`` or directly once
their own writes are committed) and never wait on another task's result. Log records carry their
fields as ``extra=`` (``common.logsetup``): a task about a match binds ``match_id`` (a tournament
task ``tournament_id``, a ladder round ``game``), so every record logged while it runs, by any
module, carries it; the task id and name are added to every record too.
"""

from __future__ import annotations

import base64
from typing import Any, TypedDict

from celery.utils.log import get_task_logger
from django.db import InterfaceError, OperationalError

from common.logsetup import bind
from referee.client import RefereeUnavailable
from workers.celery import RECORDING, SCHEDULING, app

log = get_task_logger(__name__)

TRANSIENT: tuple[type[BaseException], ...] = (OperationalError, InterfaceError, RefereeUnavailable)
"""Failures worth retrying: the database or a referee is briefly unreachable."""


class RetryOptions(TypedDict):
    """The retry options every task takes (Celery's ``task`` keywords of the same names)."""

    autoretry_for: tuple[type[BaseException], ...]
    retry_backoff: int
    retry_backoff_max: int
    retry_jitter: bool
    max_retries: int


RETRY: RetryOptions = {
    "autoretry_for": TRANSIENT,
    "retry_backoff": 1,
    "retry_backoff_max": 30,
    "retry_jitter": True,
    "max_retries": 8,
}
"""Declarative retries with exponential backoff (1, 2, 4... up to 30 s, jittered)."""


@app.task(name="workers.tasks.schedule_ladder_round", bind=True, **RETRY)
def schedule_ladder_round(self: Any, game: str) -> list[int]:
    """Queues the next ladder matches of ``game`` among the bots online with free capacity."""
    from workers.scheduling import schedule_round

    with bind(game=game):
        report = schedule_round(game, self.request.id or "manual")
        if report.queued or report.silent_referees:
            log.info(
                "ladder round",
                extra={
                    "online": report.online,
                    "candidates": report.candidates,
                    "queued": len(report.queued),
                    "match_ids": ",".join(map(str, report.queued)) or "-",
                    "silent_referees": ",".join(report.silent_referees) or "-",
                },
            )
    return report.queued


@app.task(name="workers.tasks.start_match", bind=True, **RETRY)
def start_match(self: Any, match_id: int) -> str:
    """Starts match ``match_id`` on a referee (no-op when it is final or already started there)."""
    from workers.scheduling import NoRefereeYet, start_queued

    with bind(match_id=match_id):
        try:
            report = start_queued(match_id)
        except NoRefereeYet as exc:
            # The bots are not online together yet: look again soon; the start cancels itself
            # after ``OFFLINE_LIMIT`` and the reaper re-sends a start that ran out of retries.
            raise self.retry(exc=exc, countdown=min(30, 2 ** min(self.request.retries, 5)), max_retries=20) from exc
        fields = {"action": report.action, "referee": report.referee or "-", "bot_ids": ",".join(report.bot_ids) or "-"}
        if report.detail and report.action != "started":
            fields["detail"] = report.detail
        log.info("start", extra=fields)
    return report.action


@app.task(name="workers.tasks.run_match", bind=True, **RETRY)
def run_match(self: Any, match_id: int) -> str:
    """The old dispatch name (``BRAWL_RUN_MATCH_TASK`` used to default to it); the same as :func:`start_match`.

    Kept registered so messages sent under that name by older processes are still consumed.
    """
    return str(start_match.run(match_id))


@app.task(name="workers.tasks.record_result", bind=True, **RETRY)
def record_result(self: Any, match_id: str, replay_b64: str) -> str:
    """Stages and records a referee's result once; ``replay_b64`` is ``Replay.encode`` bytes in base64."""
    from workers.recording import record_result as record

    try:
        data = base64.b64decode(replay_b64, validate=True)
    except (ValueError, TypeError):
        data = b""  # not base64: recorded as an unreadable replay, the match fails visibly
    with bind(match_id=match_id):
        action = record(str(match_id), data)
        log.info("record", extra={"action": action})
    return action


@app.task(name="workers.tasks.record_match", bind=True, **RETRY)
def record_match(self: Any, match_id: int) -> str:
    """Records the staged result of ``match_id`` once: replay, seats, ratings, tournament progress."""
    from workers.recording import record_staged

    with bind(match_id=match_id):
        action = record_staged(match_id)
        log.info("record", extra={"action": action})
    return action


@app.task(name="workers.tasks.advance_tournament", bind=True, **RETRY)
def advance_tournament(self: Any, tournament_id: int) -> list[int]:
    """Replays failed games of a running tournament and queues the games that are ready."""
    from webapp.tournaments.services import do_advance_tournament

    with bind(tournament_id=tournament_id):
        queued = [m.pk for m in do_advance_tournament(tournament_id)]
        if queued:
            log.info("tournament", extra={"queued": ",".join(map(str, queued))})
    return queued


@app.task(name="workers.tasks.advance_tournaments", bind=True, **RETRY)
def advance_tournaments(self: Any) -> int:
    """Sends ``advance_tournament`` for every running tournament."""
    from webapp.tournaments.models import Tournament, TournamentStatus

    ids = list(Tournament.objects.filter(status=TournamentStatus.RUNNING).values_list("id", flat=True))
    for tournament_id in ids:
        advance_tournament.apply_async((tournament_id,), queue=SCHEDULING)
    return len(ids)


@app.task(name="workers.tasks.reap_stuck_matches", bind=True, **RETRY)
def reap_stuck_matches(self: Any) -> dict[str, list[int]]:
    """Records lost results, re-sends lost starts and replaces matches their referee lost."""
    from workers.recording import reap

    report = reap(
        lambda mid: record_match.apply_async((mid,), queue=RECORDING),
        lambda mid: start_match.apply_async((mid,), queue=SCHEDULING),
    )
    if report.any():
        log.info(
            "reaper",
            extra={
                "recorded": ",".join(map(str, report.recorded)) or "-",
                "restarted": ",".join(map(str, report.restarted)) or "-",
                "replaced": ",".join(map(str, report.replaced)) or "-",
            },
        )
    return {"recorded": report.recorded, "restarted": report.restarted, "replaced": report.replaced}


@app.task(name="workers.tasks.notify_result", bind=True, **RETRY)
def notify_result(self: Any, match_id: int) -> bool:
    """Writes the author notifications of recorded match ``match_id`` once; returns whether it wrote them."""
    from webapp.notifications.services import notify_finished

    with bind(match_id=match_id):
        return notify_finished(int(match_id))


@app.task(name="workers.tasks.store_frames", bind=True, **RETRY)
def store_frames(self: Any, match_id: int) -> None:
    """Computes and stores the viewer frames of recorded match ``match_id`` (no-op when stored)."""
    from webapp.matches.framestore import store_frames_after_record

    with bind(match_id=match_id):
        store_frames_after_record(int(match_id))


@app.task(name="workers.tasks.refresh_pages", bind=True, **RETRY)
def refresh_pages(self: Any, game: str | None, bot_ids: list[int]) -> dict[str, int]:
    """Recomputes the cached pieces of ``game``'s leaderboard (if given) and of the pages of ``bot_ids``.

    Sent once the results that changed them are committed, with a short countdown so that results
    recorded meanwhile share it (``webapp.pages.refresh``). Safe to run twice or late: each piece is
    computed at the current state and never replaces a newer one.
    """
    from webapp.pages.refresh import refresh

    with bind(game=game or "-"):
        report = refresh(game, [int(b) for b in bot_ids])
        log.debug("pages refreshed", extra={"bot_ids": ",".join(map(str, bot_ids)) or "-", **report})
    return report
