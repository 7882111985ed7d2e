"""``/metrics`` of the web process, over real HTTP from pytest-django's live server on loopback.

Partitions, for both brokers (Redis with ``REDIS_URL``, a private database number of the Redis in
``REDIS_URL`` so no worker of the machine consumes the test's message; the filesystem broker
without it): the endpoint answers in the Prometheus text format; queue depth moves when a message
is queued through Celery; matches by status move when a match is queued; task failures and
retries move when a real Celery task fails or retries (the signal handlers of
``workers.taskmetrics``). Access: loopback is allowed by default, but not when the request came
through a proxy (``X-Forwarded-For``); an address outside ``BRAWL_METRICS_ALLOW`` gets 403, unless
the request carries a staff user's session.
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from celery import Celery
from django.contrib.auth.models import User
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from webapp.bots.models import Bot
from webapp.matches import services as match_services
from webapp.metrics import QUEUES, TASK_EVENTS_KEY
from workers import taskmetrics
from workers.celery import app as brawl_app
from workers.celery import broker_settings

GAME = "tinygame"
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def redis_url_for_test() -> str:
    """``REDIS_URL``'s server, database ``BRAWL_SPARE_REDIS_DB`` (14; the machine's workers use another)."""
    base = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    spare = os.environ.get("BRAWL_SPARE_REDIS_DB", "14")
    return base.rsplit("/", 1)[0] + f"/{spare}" if base.count("/") >= 3 else base + f"/{spare}"


@pytest.fixture(params=["redis", "filesystem"])
def broker(request: Any, settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Points the web settings and this process's environment (the workers' view) at one broker."""
    settings.VAR_DIR = tmp_path
    monkeypatch.setenv("BRAWL_VAR_DIR", str(tmp_path))
    if request.param == "redis":
        url = redis_url_for_test()
        settings.REDIS_URL = url
        monkeypatch.setenv("REDIS_URL", url)
        client = redis.Redis.from_url(url)
        client.delete(TASK_EVENTS_KEY, *QUEUES)
        yield request.param
        client.delete(TASK_EVENTS_KEY, *QUEUES)
        client.close()
    else:
        settings.REDIS_URL = None
        monkeypatch.delenv("REDIS_URL", raising=False)
        yield request.param


def fetch(url: str, cookie: str = "", forwarded_for: str = "") -> tuple[int, str, str]:
    """GETs ``url``; returns (status, content type, body)."""
    headers = {"Cookie": cookie} if cookie else {}
    if forwarded_for:
        headers["X-Forwarded-For"] = forwarded_for
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["Content-Type"], err.read().decode()


def scrape(live_server: Any) -> Samples:
    status, content_type, body = fetch(f"{live_server.url}/metrics")
    assert status == 200, body
    assert content_type.startswith("text/plain; version=0.0.4")
    samples: Samples = {}
    for family in text_string_to_metric_families(body):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def celery_app() -> Celery:
    """A Celery client on the broker the environment selects, configured as the workers are."""
    client = Celery("metrics-test")
    client.conf.update(**broker_settings(), task_serializer="json")
    return client


@brawl_app.task(name="tests.webapp.test_metrics.fail_on_purpose")
def fail_on_purpose() -> None:
    raise RuntimeError("this task fails on purpose")


@brawl_app.task(name="tests.webapp.test_metrics.retry_once", bind=True, max_retries=1)
def retry_once(self: Any) -> None:
    if self.request.retries == 0:
        raise self.retry(countdown=0)


@pytest.mark.django_db(transaction=True)
def test_metrics_move_when_a_message_is_queued_a_match_is_queued_and_a_task_fails(
    live_server: Any, broker: str, make_bot: Callable[..., Bot], author: User, other: User
) -> None:
    before = scrape(live_server)
    queues = {dict(k[1]).get("queue") for k in before if k[0] == "brawl_queue_depth"}
    assert {"scheduling", "recording", "followups"} <= queues
    for status in ("queued", "running", "finished", "failed", "cancelled"):
        assert ("brawl_matches", (("status", status),)) in before

    # A message queued through Celery waits in the broker: no worker consumes this broker.
    celery_app().send_task("workers.tasks.record_match", args=[0], queue="recording")
    a, b = make_bot(author, "alpha"), make_bot(other, "beta")
    match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False, seed=3)
    # Real Celery traces (run in this process): the signals fire as in a worker.
    fail_on_purpose.apply()
    retry_once.apply()

    after = scrape(live_server)
    assert (
        value(after, "brawl_queue_depth", queue="recording")
        == value(before, "brawl_queue_depth", queue="recording") + 1
    )
    assert value(after, "brawl_queue_depth", queue="scheduling") == value(
        before, "brawl_queue_depth", queue="scheduling"
    )
    assert value(after, "brawl_matches", status="queued") == value(before, "brawl_matches", status="queued") + 1
    failures = "brawl_task_failures_total"
    assert value(after, failures, task=fail_on_purpose.name) == value(before, failures, task=fail_on_purpose.name) + 1
    retries = "brawl_task_retries_total"
    assert value(after, retries, task=retry_once.name) == value(before, retries, task=retry_once.name) + 1
    assert value(after, failures, task=retry_once.name) == 0  # its retry succeeded


@pytest.mark.django_db(transaction=True)
def test_metrics_refuse_a_client_outside_the_allow_list_unless_staff(
    live_server: Any, settings: Any, broker: str
) -> None:
    url = f"{live_server.url}/metrics"
    assert fetch(url)[0] == 200  # loopback, the default allow-list
    # Through a reverse proxy the address is the proxy's: an allowed one does not count.
    assert fetch(url, forwarded_for="203.0.113.9")[0] == 403
    settings.BRAWL_METRICS_ALLOW = "10.0.0.0/8,192.0.2.7"
    status, _, body = fetch(url)
    assert status == 403 and "brawl_" not in body
    plain = User.objects.create_user("pat", password="correct horse battery")
    client = Client()
    client.force_login(plain)
    assert fetch(url, f"sessionid={client.cookies['sessionid'].value}")[0] == 403
    staff = User.objects.create_user("sam", password="correct horse battery", is_staff=True)
    client.force_login(staff)
    status, _, body = fetch(url, f"sessionid={client.cookies['sessionid'].value}", forwarded_for="203.0.113.9")
    assert status == 200 and "brawl_queue_depth" in body
    settings.BRAWL_METRICS_ALLOW = "127.0.0.0/8"
    assert fetch(url)[0] == 200


def test_task_event_counting_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens on port 1
    taskmetrics.count("some.task", "failure")
