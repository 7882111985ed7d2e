"""What the recording tasks do: turn a staged replay into a recorded result, and reap lost matches.

Where results flow. The referee, when a match ends, hands the replay to its result sink
(:class:`workers.refhost.StagingSink`), which stores it on the ``Match`` row in one atomic write
(``do_stage_result``: nothing happens if the match is final or already has a replay) and then
sends ``record_match(match_id)`` to the ``recording`` queue. :func:`record_staged` runs in one
database transaction holding the match row's lock: a final match is left alone, otherwise the
outcome, seats, ratings and tournament progress are written by ``do_finish_match`` together.
The rating history's unique (match, version) constraint backs the final-status check, so a
duplicate delivery, or a worker killed mid-way (its transaction rolls back and the message is
redelivered), counts nothing twice and loses nothing.

:func:`reap` is the safety net, run by the beat: it records staged replays whose message was
lost, re-sends start for queued matches nobody started, and replaces (``do_reschedule_match``)
running matches whose referee no longer knows them, failed to store their result, or has been
silent past a deadline. A replaced match is final, so a late result from a referee thought
dead is staged nowhere and counted never; its replacement counts once.

Before it replaces a match it reads the match's journal (``referee.server.journal``, in the
relay's Redis): a match that another referee took over is followed there (``referee_id`` is
updated to the referee that reports it running), and a match whose referee's lease lapsed less
than the silence deadline ago is left to the takeover. Only a match nobody took over is replaced,
and its journal is then closed for good, so no referee adopts it afterwards (one playing it
meanwhile is refused its next append and records nothing).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from referee.core.contract import Termination
from referee.core.replay import Replay, ReplayError
from referee.server import journal
from webapp.api import DomainError
from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchStatus
from workers import referee_client
from workers.referee_client import RefereeRefused, RefereeUnavailable

log = logging.getLogger(__name__)

START_GRACE = timedelta(seconds=30)
"""How long a match marked running may be unknown to its referee (the start call may be in flight)."""
RESULT_GRACE = timedelta(seconds=30)
"""How long after a referee says a match ended its staged replay may take to appear."""
SILENCE_DEADLINE = timedelta(minutes=2)
"""How long a referee may not answer before its running matches are replaced."""
MAX_MATCH_TIME = timedelta(hours=2)
"""A match running longer than this is cancelled on its referee and replaced."""
QUEUE_GRACE = timedelta(seconds=20)
"""How long a queued match may wait before its start is sent again (the first message may be lost)."""
JOURNAL_PREFIX = "brawl"
"""The referees' Redis key prefix (the relay's default; ``brawl referee`` does not change it)."""


def _seconds(name: str, default: timedelta) -> timedelta:
    """Returns the duration in environment variable ``name`` (seconds), or ``default``."""
    raw = os.environ.get(name, "")
    return timedelta(seconds=float(raw)) if raw else default


def limits() -> dict[str, timedelta]:
    """Returns the reaper's deadlines; ``BRAWL_REAPER_<NAME>`` (seconds) overrides each."""
    return {
        "start_grace": _seconds("BRAWL_REAPER_START_GRACE", START_GRACE),
        "result_grace": _seconds("BRAWL_REAPER_RESULT_GRACE", RESULT_GRACE),
        "silence": _seconds("BRAWL_REAPER_SILENCE", SILENCE_DEADLINE),
        "max_match_time": _seconds("BRAWL_REAPER_MAX_MATCH_TIME", MAX_MATCH_TIME),
        "queue_grace": _seconds("BRAWL_REAPER_QUEUE_GRACE", QUEUE_GRACE),
    }


def record_staged(match_id: int) -> str:
    """Records the staged result of ``match_id`` exactly once; returns what it did.

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
        raw = match.replay_bytes()
        if raw is None:
            return "not-staged"
        try:
            replay = Replay.loads(raw)
        except ReplayError as exc:
            match_services.do_fail_match(match_id, f"the staged replay cannot be read: {exc}")
            return "unreadable"
        outcome = replay.outcome
        if outcome is None or outcome.termination is Termination.CANCELLED:
            reason = outcome.reason if outcome is not None else "no outcome"
            match_services.do_fail_match(match_id, f"cancelled by the referee: {reason}", status=MatchStatus.CANCELLED)
            return "cancelled"
        try:
            match_services.do_finish_match(match_id, replay, referee_id=match.referee_id)
        except DomainError as exc:
            # The replay does not fit the match (seats) or the tournament refused it: retrying
            # cannot help, so the match fails visibly instead of blocking the queue.
            match_services.do_fail_match(match_id, f"the result cannot be recorded: {exc}")
            return "unreadable"
        return "recorded"


def replace_lost(match_id: int, reason: str) -> Match | None:
    """Replaces a running match that will never report, unless it ended meanwhile.

    Holds the row lock while it checks, so a result being recorded at the same moment wins and
    the match is left alone.

    Returns:
        The replacement (queued), or ``None`` when the match was no longer running or has a
        staged result to record instead.
    """
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.status != MatchStatus.RUNNING or match.has_replay:
            return None
        return match_services.do_reschedule_match(match_id, reason)


@dataclass
class ReapReport:
    """What one reaper sweep did (match ids per action)."""

    recorded: list[int] = field(default_factory=list)
    """Staged results sent to ``record_match``."""
    restarted: list[int] = field(default_factory=list)
    """Queued matches whose start was sent again."""
    replaced: list[int] = field(default_factory=list)
    """Running matches replaced by a fresh match."""

    def any(self) -> bool:
        """Whether the sweep did anything."""
        return bool(self.recorded or self.restarted or self.replaced)


def reap(
    send_record: Callable[[int], None],
    send_start: Callable[[int], None],
    *,
    now: datetime | None = None,
) -> ReapReport:
    """One sweep over unfinished matches; see the module docstring.

    Args:
        send_record: Enqueues ``record_match(match_id)``.
        send_start: Enqueues ``start_match(match_id)``.
        now: The current time.

    Raises:
        OperationalError: the database failed.
    """
    now = now or timezone.now()
    deadline = limits()
    report = ReapReport()
    running = list(Match.objects.filter(status=MatchStatus.RUNNING).order_by("id"))
    by_referee: dict[str, list[Match]] = defaultdict(list)
    for match in running:
        if match.has_replay:
            send_record(match.pk)
            report.recorded.append(match.pk)
        elif match.started_at is None or now - match.started_at > deadline["start_grace"]:
            by_referee[match.referee_id].append(match)
    for address, matches in by_referee.items():
        silent: list[str] = []  # once a referee fails to answer, ask it nothing more this sweep
        for match in matches:
            reason = _lost_reason(address, match, now, deadline, silent)
            if reason and _taken_over(match, deadline):
                continue
            if reason and replace_lost(match.pk, reason) is not None:
                log.warning("match replaced match_id=%s referee=%s reason=%s", match.pk, address, reason)
                report.replaced.append(match.pk)
                _close_journal(match.pk)
    for match_id in Match.objects.filter(
        status=MatchStatus.QUEUED, created__lt=now - deadline["queue_grace"]
    ).values_list("id", flat=True):
        send_start(match_id)
        report.restarted.append(match_id)
    return report


@functools.cache
def _journal_redis() -> object | None:
    """Returns a Redis client on the referees' journal (``REDIS_URL``), or ``None`` without the relay."""
    from workers.scheduling import relay_enabled

    url = os.environ.get("REDIS_URL", "")
    if not url or not relay_enabled():
        return None
    import redis

    return redis.Redis.from_url(url, socket_timeout=5)


def _taken_over(match: Match, deadline: dict[str, timedelta]) -> bool:
    """Whether ``match``, which its recorded referee lost, lives on (or is about to) on another referee.

    A referee reporting it running becomes its ``referee_id``. Otherwise a journal written to
    within the silence deadline is a takeover in progress (the dead owner's lease lapses within
    a lease TTL, then a live referee adopts it and writes a takeover entry).
    """
    client = _journal_redis()
    if client is None:
        return False
    try:
        state = journal.read_state(client, JOURNAL_PREFIX, str(match.pk))
    except Exception as exc:  # Redis down: no proof of a takeover, the usual rules apply
        log.warning("journal unreadable match_id=%s error=%r", match.pk, exc)
        return False
    if state is None or state.done:
        return False
    if state.owner_alive:
        for address in referee_client.referee_addresses():
            try:
                remote = referee_client.get_match(address, str(match.pk))
            except (RefereeUnavailable, RefereeRefused):
                continue
            if remote is not None and remote.state not in referee_client.ENDED:
                if address != match.referee_id:
                    # Not a status change, only where to ask next time; the row lock is not needed.
                    Match.objects.filter(pk=match.pk, status=MatchStatus.RUNNING).update(referee_id=address)
                    log.warning("match taken over match_id=%s from=%s to=%s", match.pk, match.referee_id, address)
                return True
    # No referee reports it: its owner died (its lease may not have lapsed yet) or is rebuilding
    # it. A journal written to within the silence deadline is a takeover in progress.
    return state.idle_seconds < deadline["silence"].total_seconds()


def _close_journal(match_id: int) -> None:
    client = _journal_redis()
    if client is None:
        return
    try:
        journal.close_for_good(client, JOURNAL_PREFIX, str(match_id))
    except Exception as exc:
        log.warning("journal not closed match_id=%s error=%r", match_id, exc)


def _lost_reason(address: str, match: Match, now: datetime, deadline: dict[str, timedelta], silent: list[str]) -> str:
    """Returns why ``match`` will never report, or ``""`` when it may still.

    ``silent`` holds the error of a referee that already failed to answer in this sweep.
    """
    if not address:
        return "it has no referee"
    started = match.started_at or match.created
    try:
        if silent:
            raise RefereeUnavailable(silent[0])
        remote = referee_client.get_match(address, str(match.pk))
    except (RefereeUnavailable, RefereeRefused) as exc:
        silent[:1] = [str(exc)]
        if now - started > deadline["silence"]:
            return f"referee {address} has not answered: {exc}"
        return ""
    if remote is None:
        return f"referee {address} does not know the match"
    if remote.state in referee_client.ENDED:
        ended = remote.end_time.ToDatetime(tzinfo=now.tzinfo) if remote.HasField("end_time") else started
        if now - ended > deadline["result_grace"]:
            return f"referee {address} ended the match but its result never arrived"
        return ""
    if now - started > deadline["max_match_time"]:
        with contextlib.suppress(RefereeUnavailable, RefereeRefused):
            referee_client.cancel_match(address, str(match.pk), "ran past the ladder's time limit")
        return f"ran longer than {deadline['max_match_time']}"
    return ""
