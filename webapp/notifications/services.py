"""The only write path for author notifications: events, webhooks, delivery outcomes.

A recorded result's events are written by :func:`notify_finished`, once the result has committed
(``webapp.results.after_commit``: a ``followups`` task with workers), so they read the new ratings;
it is safe to run twice. :func:`on_match_failed` and :func:`on_match_queued` run inside the
transactions of the match services that call them. Each writes one event per bot concerned
and one pending delivery per webhook that wants it; the workers send the deliveries
(``workers/webhooks.py``) and record each attempt with :func:`record_attempt`.

A delivery is a POST of the event as JSON with these headers:

- ``X-Brawl-Event``: the kind (``match.finished``...), ``X-Brawl-Delivery``: the delivery id;
- ``X-Brawl-Signature``: ``sha256=`` and the hex HMAC-SHA256 of the exact body bytes under the
  webhook's secret (check it with :func:`verify` or ``hmac.compare_digest``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from webapp.api import InvalidInput
from webapp.notifications import targets
from webapp.notifications.models import BotEvent, Delivery, DeliveryStatus, EventKind, Webhook

MAX_WEBHOOKS_PER_BOT = 5
"""Receivers one bot may have."""
MAX_ATTEMPTS = 8
"""Attempts before a delivery is given up (about 21 minutes of backoff in all)."""
BACKOFF_BASE_S = 5
"""First retry delay; each later one doubles it."""
BACKOFF_MAX_S = 600
"""Longest delay between two attempts."""
LAST_DECISIONS = 5
"""Decisions of the errored bot quoted in a ``match.errored`` event."""


def backoff(attempts: int) -> timedelta:
    """Delay before the next attempt after ``attempts`` failed ones: 5, 10, 20... s, at most 10 min."""
    return timedelta(seconds=min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** max(0, attempts - 1)))


def body_of(delivery: Delivery) -> bytes:
    """The exact bytes POSTed (and signed) for a delivery."""
    event = delivery.event
    doc = {
        "id": event.pk,
        "kind": event.kind,
        "bot": event.bot_id,
        "created": event.created.isoformat(),
        "delivery": delivery.pk,
        "data": event.payload,
    }
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()


def sign(secret: str, body: bytes) -> str:
    """The ``X-Brawl-Signature`` header value of ``body``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str) -> bool:
    """Whether ``header`` is the signature of ``body`` under ``secret`` (constant-time)."""
    return hmac.compare_digest(sign(secret, body), header or "")


@transaction.atomic
def do_create_webhook(bot: Any, url: str, events: list[str] | None = None) -> Webhook:
    """Adds a receiver for ``bot``'s events with a fresh secret.

    The URL is stored in its canonical form (``webapp.notifications.targets``), which is what the
    workers send to; a URL that parsers could read two ways is refused, not repaired.

    Raises:
        InvalidInput: the URL is not in the accepted form, an event kind is unknown, or the bot has
            too many receivers already.
    """
    try:
        canonical = targets.parse(url).url()
    except targets.BadWebhookUrl as exc:
        raise InvalidInput(str(exc)) from exc
    unknown = [e for e in events or [] if e not in EventKind.values]
    if unknown:
        raise InvalidInput(f"unknown event kinds {unknown}; known: {', '.join(EventKind.values)}")
    if Webhook.objects.filter(bot=bot).count() >= MAX_WEBHOOKS_PER_BOT:
        raise InvalidInput(f"a bot has at most {MAX_WEBHOOKS_PER_BOT} webhooks")
    return Webhook.objects.create(bot=bot, url=canonical, secret=secrets.token_hex(32), events=list(events or []))


def do_delete_webhook(webhook: Webhook) -> None:
    """Removes a receiver and its delivery log."""
    webhook.delete()


def emit(bot_id: int, kind: str, payload: dict[str, Any]) -> BotEvent:
    """Writes an event of ``bot_id`` and a pending delivery for each webhook that wants it.

    Called inside the caller's transaction; the workers' sweep sends the deliveries once committed.
    """
    event = BotEvent.objects.create(bot_id=bot_id, kind=kind, payload=payload)
    now = timezone.now()
    hooks = [w for w in Webhook.objects.filter(bot_id=bot_id, active=True) if w.wants(kind)]
    if hooks:
        Delivery.objects.bulk_create([Delivery(webhook=w, event=event, next_attempt_at=now) for w in hooks])
        from webapp.notifications.dispatch import send_after_commit

        send_after_commit()
    return event


def _seats(match: Any) -> list[dict[str, Any]]:
    return [
        {
            "seat": s.seat,
            "bot": s.bot_version.bot_id,
            "name": s.bot_version.bot.name,
            "version": s.bot_version.number,
            "rank": s.rank,
            "score": s.score,
        }
        for s in match.seats.select_related("bot_version__bot").order_by("seat")
    ]


@transaction.atomic
def notify_finished(match_id: int) -> bool:
    """Writes the events of recorded match ``match_id`` once; returns whether it wrote them now.

    Holds the match row's lock, and writes nothing for a match that is not finished or whose
    ``match.finished`` events exist already, so a repeated or late task adds nothing.
    """
    from webapp.matches.models import Match, MatchStatus

    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None or match.status != MatchStatus.FINISHED:
        return False
    if BotEvent.objects.filter(kind=EventKind.MATCH_FINISHED, payload__match=match_id).exists():
        return False
    on_match_finished(match)
    return True


def on_match_finished(match: Any, replay: Any = None) -> None:
    """Events of a finished match: ``match.finished`` for every bot in it, ``match.errored`` (forfeit)
    for the bots that lost by forfeit, ``rating.changed`` for rated ones.

    ``replay``: the match's ``Replay``, read from the row when needed (a forfeit) and not given.
    """
    seats = _seats(match)
    outcome = match.outcome or {}
    base = {
        "match": match.pk,
        "game": match.game,
        "rated": match.rated,
        "tournament": match.tournament_id,
        "termination": outcome.get("termination"),
        "reason": outcome.get("reason", ""),
        "seats": seats,
    }
    forfeit = outcome.get("termination") == "forfeit"
    best = min((s["rank"] for s in seats if s["rank"] is not None), default=None)
    for s in seats:
        emit(s["bot"], EventKind.MATCH_FINISHED, {**base, "your_seat": s["seat"]})
        if forfeit and s["rank"] != best:
            if replay is None:
                from referee.core.replay import Replay

                replay = Replay.decode(match.replay_stored() or b"")
            last = [d.to_json() for d in replay.decisions if int(d.seat) == s["seat"]][-LAST_DECISIONS:]
            emit(
                s["bot"],
                EventKind.MATCH_ERRORED,
                {**base, "your_seat": s["seat"], "error": "forfeit", "last_decisions": last},
            )
    if match.rated:
        from webapp.rankings.models import RatingHistory

        for h in RatingHistory.objects.filter(match=match).select_related("bot_version"):
            emit(
                h.bot_version.bot_id,
                EventKind.RATING_CHANGED,
                {
                    "match": match.pk,
                    "game": match.game,
                    "version": h.bot_version.number,
                    "elo_before": h.elo_before,
                    "elo_after": h.elo_after,
                },
            )


def on_match_failed(match: Any) -> None:
    """``match.errored`` for every bot of a match that ended without a result."""
    seats = _seats(match)
    for s in seats:
        emit(
            s["bot"],
            EventKind.MATCH_ERRORED,
            {
                "match": match.pk,
                "game": match.game,
                "tournament": match.tournament_id,
                "error": match.status,
                "reason": match.failure,
                "your_seat": s["seat"],
                "seats": seats,
                "last_decisions": [],
            },
        )


def on_match_queued(match: Any) -> None:
    """``tournament.match_scheduled`` for every bot of a tournament match just queued."""
    if match.tournament_id is None:
        return
    seats = _seats(match)
    for s in seats:
        emit(
            s["bot"],
            EventKind.TOURNAMENT_MATCH_SCHEDULED,
            {
                "match": match.pk,
                "game": match.game,
                "tournament": match.tournament_id,
                "round": match.tournament_round,
                "slot": match.tournament_slot,
                "game_in_series": match.game_in_series,
                "your_seat": s["seat"],
                "seats": seats,
            },
        )


def record_attempt(delivery: Delivery, *, status_code: int | None, error: str, now: datetime | None = None) -> Delivery:
    """Records one attempt: delivered on a 2xx, otherwise retried later with backoff, or given up."""
    now = now or timezone.now()
    delivery.attempts += 1
    delivery.last_status_code = status_code
    delivery.last_error = error[:300]
    if status_code is not None and 200 <= status_code < 300:
        delivery.status = DeliveryStatus.DELIVERED
        delivery.delivered_at = now
    elif delivery.attempts >= MAX_ATTEMPTS:
        delivery.status = DeliveryStatus.FAILED
    else:
        delivery.next_attempt_at = now + backoff(delivery.attempts)
    delivery.save(
        update_fields=["attempts", "last_status_code", "last_error", "status", "delivered_at", "next_attempt_at"]
    )
    return delivery
