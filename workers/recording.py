"""What the recording tasks do: turn a staged replay into a recorded result, and reap lost matches.

Where results flow. The referee, when a match ends, hands the encoded replay to its result sink
(:func:`service.refhost.ladder_sink`), which only publishes ``record_result(match_id, replay)``
on the broker's ``recording`` queue: referees never write the database. :func:`record_result`
(in a worker) finds the match the referee names and hands the bytes to
``webapp.results.record_result``, the one function that records a result: it decodes them once,
stages them as received, and writes the outcome, seats, counts, ratings and tournament progress
in one transaction holding the match row's lock (a final match is left alone). The rating
history's unique (match, version) constraint backs the final-status check, so a duplicate
delivery, or a worker killed mid-way (its transaction rolls back and the message is
redelivered), counts nothing twice and loses nothing. ``record_match(match_id)`` records a
replay already staged (the reaper sends it for a worker that died between the two steps).

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
import dataclasses
import functools
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from common import settings
from referee import client as referee_client
from referee.client import RefereeRefused, RefereeUnavailable
from referee.server import journal
from webapp import results
from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchStatus

log = logging.getLogger(__name__)

JOURNAL_PREFIX = "brawl"
"""The referees' Redis key prefix (the relay's default; ``brawl referee`` does not change it)."""


def limits() -> dict[str, timedelta]:
    """Returns the reaper's deadlines; ``BRAWL_REAPER_<NAME>`` (seconds) overrides each (``common.settings``)."""
    return dataclasses.asdict(settings.current().reaper)


def find_match(match_id: str) -> Match | None:
    """Returns the match the referee calls ``match_id`` (its primary key, or its ``request_id``), or ``None``."""
    if match_id.isdigit():
        found = Match.objects.filter(pk=int(match_id)).first()
        if found is not None:
            return found
    return Match.objects.filter(request_id=match_id).first()


def record_result(match_id: str, data: bytes) -> str:
    """Records a referee's result (``Replay.encode`` bytes) exactly once (``webapp.results.record_result``).

    Returns:
        ``unknown`` (no such match: nothing done), or what ``webapp.results.record_result`` returned.

    Raises:
        OperationalError: the database failed (nothing half-done; retry).
    """
    match = find_match(match_id)
    if match is None:
        log.warning("result for an unknown match", extra={"match_id": match_id})
        return "unknown"
    return results.record_result(match.pk, data)


def record_staged(match_id: int) -> str:
    """Records the staged result of ``match_id`` exactly once (``webapp.results.record_staged``)."""
    return results.record_staged(match_id)


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
    send_record: Callable[[int], object],
    send_start: Callable[[int], object],
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
                log.warning("match replaced", extra={"match_id": match.pk, "referee": address, "reason": reason})
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
    conf = settings.current()
    url = conf.redis_url
    if not url or not conf.relay_enabled:
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
        log.warning("journal unreadable", extra={"match_id": match.pk, "error": repr(exc)})
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
                    log.warning(
                        "match taken over", extra={"match_id": match.pk, "from": match.referee_id, "to": address}
                    )
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
        log.warning("journal not closed", extra={"match_id": match_id, "error": repr(exc)})


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
