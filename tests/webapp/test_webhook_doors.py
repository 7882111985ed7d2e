"""One author's webhook never stops another's (issue 24, finding 3).

A webhook URL is accepted only in one form that ``urllib.parse`` and ``http.client`` read alike
(``webapp.notifications.targets``); what is sent is its re-serialization, to the address checked;
and whatever one delivery does, the sweep goes on to the next. Deliveries go over real HTTP to a
receiver on loopback, sent by the workers' own sweep.
"""

from __future__ import annotations

import http.client
import json
import socket
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.webapp.test_webhooks import Receiver
from webapp.notifications import services as notify
from webapp.notifications import targets
from webapp.notifications.models import Delivery, DeliveryStatus, EventKind, Webhook
from workers.webhooks import deliver_due, post

POISONED = "http://127.0.0.1:56810\\@1.1.1.1/x"
"""The finding's URL: host 1.1.1.1 to urllib.parse, an invalid port to http.client."""

DISAGREEING = [
    POISONED,
    "http://127.0.0.1\\@1.1.1.1/",
    "http://1.1.1.1\\.127.0.0.1/",
    "http://user:pass@example.org/hook",
    "http://example.org@127.0.0.1/",
    "http://127.0.0.1:80@example.org/",
    "http://example.org#@127.0.0.1/",
    "http://example.org?@127.0.0.1/",
    "http://example.org/#x",
    "http://exa\tmple.org/",
    "http://example.org/\nX-Injected: 1",
    "http://example.org\r\n/",
    " http://example.org/",
    "http://example.org/ ",
    "http://[fe80::1%25eth0]/",
    "http://[fe80::1%eth0]/",
    "http://2130706433/",
    "http://0177.0.0.1/",
    "http://0x7f.0.0.1/",
    "http://0x7f000001/",
    "http://127.1/",
    "http://017700000001/",
    "http://example.org./",
    "http://bücher.example/",
    "http://例え.jp/",
    "http:///hook",
    "http://:8080/",
    "http://%31%32%37.0.0.1/",
    "http://example.org:0/",
    "http://example.org:65536/",
    "http://example.org:99999999999/",
    "http://example.org:+80/",
    "http://example.org:/",
    "http://example.org:8080:9090/",
    "http://[::1]junk/",
    "http://example.org/%zz",
    "http:example.org/",
    "http:/example.org/",
    "http://" + "a" * 64 + ".example/",
    "http://example.org/" + "a" * 500,
]


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    monkeypatch.setenv("BRAWL_WEBHOOK_ALLOW_PRIVATE", "1")
    r = Receiver()
    yield r
    r.close()


@pytest.mark.django_db
@pytest.mark.parametrize("url", DISAGREEING)
def test_a_url_that_parsers_could_read_two_ways_is_refused_at_registration(
    author_client: Any, author: User, make_bot: Any, url: str
) -> None:
    bot = make_bot(author, "urls")
    r = author_client.post(f"/api/v1/bots/{bot.pk}/webhooks/", {"url": url}, format="json")
    assert r.status_code == 400, r.content
    body = r.json()
    if len(url) > targets.MAX_URL_LENGTH:  # the model's column refuses it first, naming the limit
        assert "500 characters" in json.dumps(body), body
    else:
        assert body["code"] == "invalid_input" and "a webhook URL is http:// or https://" in body["detail"]
    assert not Webhook.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "stored"),
    [
        ("HTTPS://Hooks.Example.ORG/in?a=1&b=%2F", "https://hooks.example.org/in?a=1&b=%2F"),
        ("http://example.org", "http://example.org/"),
        ("http://example.org:80/x", "http://example.org/x"),
        ("http://[2001:DB8:0::1]:8080/x", "http://[2001:db8::1]:8080/x"),
        ("https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/"),
    ],
)
def test_a_webhook_is_stored_and_sent_in_its_canonical_form(
    author_client: Any, author: User, make_bot: Any, url: str, stored: str
) -> None:
    bot = make_bot(author, "canon")
    r = author_client.post(f"/api/v1/bots/{bot.pk}/webhooks/", {"url": url}, format="json")
    assert r.status_code == 201 and r.json()["url"] == stored
    assert targets.parse(stored).url() == stored


_URLISH = (
    st.lists(
        st.sampled_from([*"ab1079xX.-:/@\\#?%[]_ \t\nü", "http://", "https://", "0x", "%2e", "::"]),
        max_size=40,
    )
    .map(lambda parts: "".join(parts))
    .map(lambda s: s if s.startswith("http") else "http://" + s)
)


@settings(max_examples=3000, deadline=None)
@given(_URLISH)
def test_every_accepted_url_is_read_alike_by_urllib_parse_and_http_client(url: str) -> None:
    """Whatever the validator accepts, urllib.parse and http.client agree on its host and port,
    http.client takes its request target without complaint, and its canonical form is a fixed point."""
    try:
        target = targets.parse(url)
    except targets.BadWebhookUrl:
        return
    canonical = target.url()
    for text in (url, canonical):
        parts = urllib.parse.urlsplit(text)
        assert parts.hostname == target.host
        assert (parts.port or (443 if target.scheme == "https" else 80)) == target.port
        assert not parts.username and not parts.password and not parts.fragment
    assert targets.parse(canonical) == target
    kind = http.client.HTTPSConnection if target.scheme == "https" else http.client.HTTPConnection
    connection = kind(target.authority)
    assert (connection.host, connection.port) == (target.host, target.port)
    connection.putrequest("POST", target.target, skip_host=True)  # raises InvalidURL on a bad target


@pytest.mark.django_db(transaction=True)
def test_a_poisoned_webhook_in_the_database_never_stops_the_others(
    receiver: Receiver, author: User, other: User, make_bot: Any
) -> None:
    """A row written before the check (or around it) fails its own attempts, with backoff; every
    other author's delivery of the same sweep reaches the receiver."""
    third = User.objects.create_user("carol", password="pw")
    poisoned_bot = make_bot(author, "poisoner")
    bots = [make_bot(other, "victim-1"), make_bot(third, "victim-2")]
    # Bypassing the services, as a row from before the check would be.
    poisoned = Webhook.objects.create(bot=poisoned_bot, url=POISONED, secret="0" * 64)
    notify.emit(poisoned_bot.pk, EventKind.MATCH_FINISHED, {"match": 1})
    for bot in bots:
        notify.do_create_webhook(bot, receiver.url)
        notify.emit(bot.pk, EventKind.MATCH_FINISHED, {"match": 2})

    assert deliver_due() == 3
    got = sorted(json.loads(r["body"])["bot"] for r in receiver.requests)
    assert got == sorted(b.pk for b in bots)
    assert set(Delivery.objects.exclude(webhook=poisoned).values_list("status", flat=True)) == {
        DeliveryStatus.DELIVERED
    }
    bad = Delivery.objects.get(webhook=poisoned)
    assert bad.status == DeliveryStatus.PENDING and bad.attempts == 1 and bad.last_status_code is None
    assert "a webhook URL is" in bad.last_error and bad.next_attempt_at > timezone.now()

    # Later sweeps go on the same way: the poisoned row is retried on its own schedule, never first in line forever.
    notify.emit(bots[0].pk, EventKind.MATCH_FINISHED, {"match": 3})
    assert deliver_due(now=bad.next_attempt_at) == 2
    assert len(receiver.requests) == 3


def test_the_connection_goes_to_the_address_that_was_checked(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: the host is resolved once and the worker connects to that address; a name
    that would resolve elsewhere on a second look is not looked up again. (DNS is the edge here:
    a resolver we do not own, answering once.)"""
    real = socket.getaddrinfo
    port = int(receiver.url.rsplit(":", 1)[1].split("/")[0])
    answers = [real("127.0.0.1", port, type=socket.SOCK_STREAM)]

    def once(host: str, *args: Any, **kwargs: Any) -> Any:
        if host == "hooks.example":
            if not answers:
                raise AssertionError("hooks.example resolved a second time")
            return answers.pop()
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", once)
    status, error = post(f"http://hooks.example:{port}/hook", b"{}", {"Content-Type": "application/json"})
    assert (status, error) == (200, "")
    assert receiver.requests[-1]["headers"]["Host"] == f"hooks.example:{port}"


def test_a_receiver_that_breaks_the_protocol_is_its_own_failed_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Garbage for an answer is an error text, never an exception out of the sweep."""
    monkeypatch.setenv("BRAWL_WEBHOOK_ALLOW_PRIVATE", "1")
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    import threading

    def serve() -> None:
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.sendall(b"\x00\xffnot http at all\r\n\r\n")
        conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        status, error = post(f"http://127.0.0.1:{port}/", b"{}", {}, timeout=5.0)
    finally:
        thread.join(10)
        listener.close()
    assert status is None and error
