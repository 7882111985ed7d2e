"""Recording a finished match: the one path from a referee's replay bytes to every row a result changes.

:func:`record_result` takes the bytes a referee sent (``Replay.encode`` output), decodes them once,
stages them on the match as received (``matches.services.do_stage_result``: never re-encoded), and
records the result with :func:`do_finish_match`, which writes, in one transaction and in this order:

1. the match and its seats (``matches.services.store_result``: the outcome, each seat's rank, score,
   strikes and latency, the replay bytes as staged);
2. the bots' result counts (``matches.stats.add_result``);
3. the ratings, for a rated match (``rankings.services.do_apply_rated_match``);
4. the tournament's progress, for a tournament match (``tournaments.services.on_match_final``);
5. a people's table's end and the people's ratings (``tables.services.on_match_final``).

Each step reads what the one before wrote; a failure in any rolls the whole result back. What a
result leaves for later runs once it has committed (:func:`after_commit`), where a failure can never
undo it: the authors' notifications (``notifications.services.notify_finished``, which reads the new
ratings), the refresh of the pages the result changed (``pages.refresh``) and the viewer's frames
(``matches.framestore``). With ``BRAWL_DISPATCH=celery`` each is a task on the ``followups`` queue
(``workers.tasks``), so the recording queue never waits on them; without workers they run in the
recording process, after the commit.

A result is recorded once: the staging keeps the first replay, and the recording holds the match
row's lock and leaves a final match alone, so a duplicate delivery, or a worker killed mid-way (its
transaction rolls back and the message is redelivered), counts nothing twice and loses nothing.
:func:`record_staged` records a replay already staged (the reaper's path, for a worker that died
between the two steps). This module is not the tasks (``workers.tasks``) nor the reaper
(``workers.recording``).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction

from common.brokerconf import FOLLOWUPS
from referee.core.contract import Termination
from referee.core.replay import Replay, ReplayError
from webapp import tasks_out
from webapp.api import DomainError
from webapp.matches import services as match_services
from webapp.matches import stats
from webapp.matches.models import Match, MatchStatus
from webapp.rankings.services import do_apply_rated_match
from webapp.tables.services import on_match_final as on_table_final
from webapp.tournaments.services import on_match_final

log = logging.getLogger(__name__)

NOTIFY_TASK = "workers.tasks.notify_result"
"""The worker task that emits a recorded result's author notifications."""
FRAMES_TASK = "workers.tasks.store_frames"
"""The worker task that computes and stores a recorded match's viewer frames."""


def record_result(match_id: int, data: bytes) -> str:
    """Stages and records a referee's result (``Replay.encode`` bytes) exactly once; returns what it did.

    Decodes the bytes once and stores them as received. Safe to deliver twice: the staging keeps
    the first replay and the recording happens once.

    Returns:
        ``unreadable`` (the bytes are not a replay: the match is failed), or what
        :func:`record_staged` returns.

    Raises:
        OperationalError: the database failed (nothing half-done; retry).
    """
    try:
        replay = Replay.decode(data)
    except ReplayError as exc:
        with transaction.atomic():
            locked = Match.objects.select_for_update().get(pk=match_id)
            if locked.is_final:
                return "final"
            match_services.do_fail_match(match_id, f"the referee's replay cannot be read: {exc}")
        return "unreadable"
    if not match_services.do_stage_result(match_id, data):
        # Final, or another delivery staged its replay first: that one is the result.
        return record_staged(match_id)
    return _record(match_id, replay)


def record_staged(match_id: int) -> str:
    """Records the staged result of ``match_id`` exactly once, decoding the staged bytes; returns what it did.

    Returns:
        ``recorded``, ``cancelled`` (the referee cancelled it: it counts for nobody),
        ``final`` (already recorded or ended: nothing done), ``not-staged`` (no replay yet),
        ``unreadable`` (the staged replay cannot be parsed or does not fit the match: it is failed).

    Raises:
        OperationalError: the database failed (the transaction rolled back; retry).
    """
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.is_final:
            return "final"
        if not match.has_replay:
            return "not-staged"
        try:
            replay = Replay.decode(match.replay_stored() or b"")
        except ReplayError as exc:  # corrupt bytes: retrying cannot help
            match_services.do_fail_match(match_id, f"the staged replay cannot be read: {exc}")
            return "unreadable"
        return _record(match_id, replay)


def _record(match_id: int, replay: Replay) -> str:
    """Records the staged ``replay`` of ``match_id`` (decoded by the caller) unless the match is final."""
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.is_final:
            return "final"
        if not match.has_replay:
            return "not-staged"
        outcome = replay.outcome
        if outcome is None or outcome.termination is Termination.CANCELLED:
            reason = outcome.reason if outcome is not None else "no outcome"
            match_services.do_fail_match(match_id, f"cancelled by the referee: {reason}", status=MatchStatus.CANCELLED)
            return "cancelled"
        try:  # do_finish_match is atomic: a refused result leaves nothing behind
            do_finish_match(match_id, replay, referee_id=match.referee_id)
        except DomainError as exc:
            # The replay does not fit the match (seats) or the tournament refused it: retrying
            # cannot help, so the match fails instead of blocking the queue.
            match_services.do_fail_match(match_id, f"the result cannot be recorded: {exc}")
            return "unreadable"
        return "recorded"


@transaction.atomic
def do_finish_match(match_id: int, replay: Replay, *, referee_id: str = "") -> Match:
    """Records the result of a match exactly once: the match and seats, counts, ratings, tournament.

    The steps of the module docstring, written out in their order; what follows a result is
    arranged for after the commit (:func:`after_commit`).

    Raises:
        MatchAlreadyFinal: the match is already final (a second report is refused, not re-applied).
        DomainError: the replay has no outcome or does not fit the match's seats, or the ratings or
            the tournament refuse the result (nothing is written).
    """
    match, seats = match_services.store_result(match_id, replay, referee_id=referee_id)
    assert match.finished_at is not None  # store_result sets it
    stats.add_result(match.pk, match.finished_at, [(s.bot_version_id, s.rank) for s in seats if s.rank is not None])
    stats.add_seat_results(len(seats), [(s.bot_version_id, s.seat, s.rank) for s in seats if s.rank is not None])
    if match.rated:
        do_apply_rated_match(match, seats)
    if match.tournament_id is not None:
        on_match_final(match)
    on_table_final(match)  # a people's table: ends it and rates it in the people's pools
    finished = match.pk
    transaction.on_commit(lambda: after_commit(finished))
    return match


def after_commit(match_id: int) -> None:
    """What a committed result leaves to do: notifications, page refresh, frames; never raises.

    With ``BRAWL_DISPATCH=celery`` the notifications and the frames are sent to the workers'
    ``followups`` queue (and the page refresh marks its scopes and queues its task there);
    otherwise they run here, one after the other. A failure of one is logged and does not stop
    the others: the result is committed whatever happens here.
    """
    from webapp.pages.refresh import request_refresh

    celery = getattr(settings, "BRAWL_DISPATCH", "none") == "celery"
    for name, task, run in (
        ("notifications", NOTIFY_TASK, _notify),
        ("frames", FRAMES_TASK, _frames),
    ):
        try:
            if celery:
                tasks_out.send_task(task, args=[match_id], queue=FOLLOWUPS)
            else:
                run(match_id)
        except Exception:
            log.exception("%s of a recorded match not done", name, extra={"match_id": match_id})
    if celery:
        request_refresh(match_id)  # logs its own failures


def _notify(match_id: int) -> None:
    from webapp.notifications.services import notify_finished

    notify_finished(match_id)


def _frames(match_id: int) -> None:
    from webapp.matches.framestore import store_frames_after_record

    store_frames_after_record(match_id)
