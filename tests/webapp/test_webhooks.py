"""Author notifications (issue 15): per-bot webhooks signed with HMAC, retried with backoff, the
delivery log on the bot's page, and the same events as a long-poll feed in the API.

Deliveries go over real HTTP to a receiver in this process (``http.server`` on a free loopback
port), sent by the workers' own sweep (``workers.webhooks.deliver_due``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.utils import timezone

from tests.webapp.conftest import GAME, client_for, forced_replay
from tests.webapp.test_browser_flows import logged_in, shot
from webapp import results
from webapp.matches import services as match_services
from webapp.notifications import services as notify
from webapp.notifications.models import BotEvent, Delivery, DeliveryStatus, EventKind
from webapp.tournaments import services as t_services
from workers.webhooks import deliver_due


class Receiver:
    """A local webhook receiver: records each request; answers the status codes queued in ``answers``."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.answers: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append({"headers": dict(self.headers), "body": body})
                status = receiver.answers.pop(0) if receiver.answers else 200
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", receiver.url + "/moved")
                self.end_headers()

            def do_GET(self) -> None:  # where a followed redirect would land
                receiver.requests.append({"headers": dict(self.headers), "body": b""})
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    # The receiver listens on loopback, which production refuses (see the SSRF tests below).
    monkeypatch.setenv("BRAWL_WEBHOOK_ALLOW_PRIVATE", "1")
    r = Receiver()
    yield r
    r.close()


def signature_ok(secret: str, request: dict[str, Any]) -> bool:
    expected = "sha256=" + hmac.new(secret.encode(), request["body"], hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, request["headers"]["X-Brawl-Signature"])


@pytest.mark.django_db(transaction=True)
def test_author_registers_a_webhook_and_receives_a_signed_delivery(
    live_server,
    browser,
    receiver: Receiver,
    author,
    other,
    make_bot,
) -> None:
    mine, theirs = make_bot(author, "HookBot"), make_bot(other, "Rival")
    errors: list[str] = []
    context, page = logged_in(browser, live_server.url, "alice", errors)
    page.goto(f"{live_server.url}/me/bots/{mine.pk}/")
    page.fill("#add-webhook-form input[name=url]", receiver.url)
    page.check(f"#add-webhook-form input[value='{EventKind.MATCH_FINISHED}']")
    page.click("#add-webhook-form button[type=submit]")
    page.wait_for_selector("#webhook-list code.secret")
    secret = page.inner_text("#webhook-list code.secret").strip()
    assert len(secret) == 64

    # A rated match of the bot finishes; the receiver is down for the first attempt.
    m = match_services.do_queue_match(GAME, [mine.latest_version, theirs.latest_version], rated=True)
    results.do_finish_match(m.pk, forced_replay(m, (1, 2)))
    receiver.answers = [503]
    assert deliver_due() == 1
    delivery = Delivery.objects.get()
    assert delivery.status == DeliveryStatus.PENDING and delivery.attempts == 1 and delivery.last_status_code == 503
    assert delivery.next_attempt_at > timezone.now()  # backed off, not retried at once
    assert deliver_due() == 0
    assert deliver_due(now=delivery.next_attempt_at) == 1
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.DELIVERED and delivery.attempts == 2

    assert len(receiver.requests) == 2
    request = receiver.requests[-1]
    assert signature_ok(secret, request)
    assert not signature_ok("0" * 64, request)
    doc = json.loads(request["body"])
    assert request["headers"]["X-Brawl-Event"] == "match.finished" and doc["kind"] == "match.finished"
    assert doc["data"]["match"] == m.pk and doc["data"]["your_seat"] == 0
    assert [s["rank"] for s in doc["data"]["seats"]] == [1, 2]
    # Only the subscribed kind was sent, though the match also changed the rating.
    assert BotEvent.objects.filter(bot=mine, kind=EventKind.RATING_CHANGED).count() == 1

    page.reload()
    assert page.inner_text("#delivery-log tbody tr .delivery-status") == "delivered"
    shot(page, "webhook-delivery-log.png")
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.mark.django_db
def test_forfeit_and_failure_say_why(author, other, make_bot, django_capture_on_commit_callbacks) -> None:
    mine, theirs = make_bot(author, "Loser"), make_bot(other, "Winner")
    m = match_services.do_queue_match(GAME, [mine.latest_version, theirs.latest_version], rated=False)
    with django_capture_on_commit_callbacks(execute=True):  # a result's events follow its commit
        results.do_finish_match(m.pk, forced_replay(m, (2, 1)))
    errored = BotEvent.objects.get(bot=mine, kind=EventKind.MATCH_ERRORED)
    assert errored.payload["error"] == "forfeit" and errored.payload["reason"]
    assert errored.payload["last_decisions"] == []  # the forced forfeit made no decision
    assert not BotEvent.objects.filter(bot=theirs, kind=EventKind.MATCH_ERRORED).exists()
    assert not BotEvent.objects.filter(kind=EventKind.RATING_CHANGED).exists()  # unrated

    m2 = match_services.do_queue_match(GAME, [mine.latest_version, theirs.latest_version], rated=False)
    match_services.do_fail_match(m2.pk, "no bot joined within 30 s")
    failed = BotEvent.objects.filter(kind=EventKind.MATCH_ERRORED, payload__match=m2.pk)
    assert {e.bot_id for e in failed} == {mine.pk, theirs.pk}
    assert all(e.payload["reason"] == "no bot joined within 30 s" for e in failed)


@pytest.mark.django_db
def test_tournament_match_scheduled_is_notified(organizer, make_bot, author, other) -> None:
    a, b = make_bot(author, "ta"), make_bot(other, "tb")
    tour = t_services.do_create_tournament(organizer, name="Notify Cup", game=GAME, format="single_elim")
    for bot in (a, b):
        t_services.do_add_entrant(tour, bot.latest_version)
    t_services.do_start_tournament(tour)
    events = BotEvent.objects.filter(kind=EventKind.TOURNAMENT_MATCH_SCHEDULED)
    assert {e.bot_id for e in events} == {a.pk, b.pk}
    assert all(e.payload["tournament"] == tour.pk and e.payload["slot"] for e in events)


def test_backoff_doubles_and_is_capped() -> None:
    delays = [notify.backoff(n).total_seconds() for n in range(1, 10)]
    assert delays[:4] == [5, 10, 20, 40]
    assert max(delays) == notify.BACKOFF_MAX_S


@pytest.mark.django_db
def test_a_delivery_is_given_up_after_the_last_attempt(author, make_bot) -> None:
    bot = make_bot(author, "gives-up")
    hook = notify.do_create_webhook(bot, "http://127.0.0.1:9/never")
    event = notify.emit(bot.pk, EventKind.MATCH_FINISHED, {"match": 1})
    delivery = Delivery.objects.get(webhook=hook, event=event)
    for _ in range(notify.MAX_ATTEMPTS):
        assert delivery.status == DeliveryStatus.PENDING
        notify.record_attempt(delivery, status_code=None, error="ConnectionRefusedError")
    assert delivery.status == DeliveryStatus.FAILED and delivery.attempts == notify.MAX_ATTEMPTS


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["ftp://example.org/x", "javascript:alert(1)", "http://", "not a url"])
def test_a_bad_webhook_url_is_refused_clearly(author_client, author, make_bot, url: str) -> None:
    bot = make_bot(author, "urls")
    r = author_client.post(f"/api/v1/bots/{bot.pk}/webhooks/", {"url": url}, format="json")
    assert r.status_code == 400 and "http" in json.dumps(r.json())
    assert not bot.webhooks.exists()


@pytest.mark.django_db
def test_event_feed_is_the_authors_only(author, other, make_bot, django_capture_on_commit_callbacks) -> None:
    mine, theirs = make_bot(author, "feedme"), make_bot(other, "feedthem")
    m = match_services.do_queue_match(GAME, [mine.latest_version, theirs.latest_version], rated=False)
    with django_capture_on_commit_callbacks(execute=True):  # a result's events follow its commit
        results.do_finish_match(m.pk, forced_replay(m, (1, 2)))
    api = client_for(author)
    r = api.get(f"/api/v1/bots/{mine.pk}/events/", {"after": 0})
    assert r.status_code == 200
    kinds = [e["kind"] for e in r.json()["events"]]
    assert kinds == ["match.finished"]
    last = r.json()["last"]
    # Nothing newer: a short long-poll comes back empty with the same cursor.
    r = api.get(f"/api/v1/bots/{mine.pk}/events/", {"after": last, "wait": 1})
    assert r.json() == {"events": [], "last": last}
    assert client_for(other).get(f"/api/v1/bots/{mine.pk}/events/").status_code == 404
    assert api.get(f"/api/v1/bots/{mine.pk}/events/", {"wait": 99}).status_code == 400
    hook = api.post(f"/api/v1/bots/{mine.pk}/webhooks/", {"url": "https://example.org/h"}, format="json").json()
    assert client_for(other).delete(f"/api/v1/webhooks/{hook['id']}/").status_code == 404
    assert api.delete(f"/api/v1/webhooks/{hook['id']}/").status_code == 204


@pytest.mark.django_db
def test_event_written_in_a_rolled_back_transaction_is_not_sent(author, make_bot) -> None:
    """Events share the transaction of the change they report: a rollback leaves nothing to send."""
    from django.db import transaction

    bot = make_bot(author, "rollback")
    notify.do_create_webhook(bot, "http://127.0.0.1:9/x")
    with pytest.raises(RuntimeError), transaction.atomic():
        notify.emit(bot.pk, EventKind.MATCH_FINISHED, {"match": 1})
        raise RuntimeError("the match's recording failed")
    assert not BotEvent.objects.exists() and not Delivery.objects.exists()
    assert deliver_due(now=timezone.now() + timedelta(hours=1)) == 0


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:6379/",
        "http://localhost:50052/",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]:8000/",
    ],
)
def test_a_webhook_never_reaches_the_services_own_network(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    # An author picks the URL; the workers sit beside Redis, the database and the internal API.
    from workers.webhooks import post

    monkeypatch.delenv("BRAWL_WEBHOOK_ALLOW_PRIVATE", raising=False)
    status, error = post(url, b"{}", {"Content-Type": "application/json"}, timeout=1.0)
    assert status is None
    assert "not a public address" in error


def test_a_redirect_is_not_followed(receiver: Receiver) -> None:
    # A public receiver answering 302 to a private address must not steer the worker there.
    from workers.webhooks import post

    receiver.answers.append(302)
    status, _ = post(receiver.url, b"{}", {"Content-Type": "application/json"}, timeout=2.0)
    assert status == 302
    assert len(receiver.requests) == 1
