"""``/metrics``: the web process's Prometheus view of the deployment, and the task-event store behind it.

Every scrape reads, fresh:

- the depth of the Celery queues ``scheduling`` and ``recording`` from the broker: with
  ``REDIS_URL``, ``LLEN`` of the Redis list named after the queue (the workers' broker settings
  turn kombu's priority sub-lists off, ``priority_steps=[0]``, so a queue is exactly that one
  list and nothing here knows kombu's internal key names); else the message files of the
  embedded broker (``common.broker``: ``<ms>_<uuid>.<queue>.msg`` in ``$BRAWL_VAR_DIR/broker/queue``);
- the number of matches in each status, from the database;
- the task failures and retries the workers counted (``workers.taskmetrics`` calls
  :func:`record_task_event` from Celery's ``task_failure``/``task_retry`` signals): a Redis hash
  when ``REDIS_URL`` is set, else one line per event appended to
  ``$BRAWL_VAR_DIR/metrics/task-events.log``. Both survive worker restarts and are shared by every
  worker and web process of a deployment, so the counters are cluster-wide totals.

Access: staff users, and clients connecting directly (no ``X-Forwarded-For`` header: not through
the reverse proxy) from an address in ``BRAWL_METRICS_ALLOW`` (comma-separated addresses or
networks; default loopback only). Anyone else gets 403. The metrics are listed in
``docs/deploy.md`` ("Metrics").

This module is not the referee's metrics (``referee.server.metrics``, served by each referee) and
keeps no state of its own: a scrape costs one ``GROUP BY`` and a few Redis reads (or a directory
listing and one small file read).
"""

from __future__ import annotations

import ipaddress
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import cast

from django.conf import settings
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.exposition import choose_encoder
from prometheus_client.registry import Collector

QUEUES = ("scheduling", "recording", "followups")
"""The Celery queues (``common.brokerconf``: ``SCHEDULING``, ``RECORDING``, ``FOLLOWUPS``)."""
TASK_EVENTS_KEY = "brawl:metrics:task_events"
"""Redis hash of task events: field ``<task name>|<kind>``, value the count."""
TASK_EVENTS_FILE = Path("metrics") / "task-events.log"
"""Under ``BRAWL_VAR_DIR`` without Redis: one ``<task name> <kind>`` line per event."""
TASK_EVENT_KINDS = ("failure", "retry")
DEFAULT_ALLOW = "127.0.0.1,::1"


# ----- the task-event store (written by the workers, read here) ---------------------------


def record_task_event(task: str, kind: str, *, redis_url: str | None, var_dir: Path) -> None:
    """Counts one ``kind`` event (``failure`` or ``retry``) of the Celery task named ``task``.

    Raises:
        ValueError: ``kind`` is not a known kind.
        redis.RedisError, OSError: the store is unreachable (the caller decides whether that matters).
    """
    if kind not in TASK_EVENT_KINDS:
        raise ValueError(f"task event kind must be one of {TASK_EVENT_KINDS}, got {kind!r}")
    if redis_url:
        import redis

        client = redis.Redis.from_url(redis_url)
        try:
            client.hincrby(TASK_EVENTS_KEY, f"{task}|{kind}", 1)
        finally:
            client.close()
        return
    path = var_dir / TASK_EVENTS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    # One short write in append mode: lines from concurrent workers never interleave.
    with path.open("a", encoding="utf-8") as f:
        f.write(f"{task} {kind}\n")


def read_task_events(*, redis_url: str | None, var_dir: Path) -> dict[tuple[str, str], int]:
    """Returns the task-event counts by (task name, kind).

    Raises:
        redis.RedisError, OSError: the store is unreachable.
    """
    counts: dict[tuple[str, str], int] = {}
    if redis_url:
        import redis

        client = redis.Redis.from_url(redis_url)
        try:
            raw = cast(dict[bytes, bytes], client.hgetall(TASK_EVENTS_KEY))  # a synchronous client, bytes out
        finally:
            client.close()
        for field, value in raw.items():
            task, _, kind = field.decode().rpartition("|")
            counts[(task, kind)] = int(value)
        return counts
    path = var_dir / TASK_EVENTS_FILE
    if not path.exists():
        return counts
    tally: Counter[tuple[str, str]] = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        task, _, kind = line.rpartition(" ")
        if task:
            tally[(task, kind)] += 1
    return dict(tally)


# ----- queue depth -------------------------------------------------------------------------


def queue_depths(*, redis_url: str | None, var_dir: Path) -> dict[str, int]:
    """Returns the messages waiting in each Celery queue, read from the broker.

    Raises:
        redis.RedisError, OSError: the broker is unreachable.
    """
    if redis_url:
        import redis

        client = redis.Redis.from_url(redis_url)
        try:
            pipe = client.pipeline()
            for queue in QUEUES:
                pipe.llen(queue)  # one list per queue: ``workers.celery`` sets ``priority_steps=[0]``
            sizes = pipe.execute()
        finally:
            client.close()
        return {queue: int(n) for queue, n in zip(QUEUES, sizes, strict=True)}
    folder = var_dir / "broker" / "queue"
    depths = dict.fromkeys(QUEUES, 0)
    if folder.is_dir():
        # The embedded broker (``common.broker``) names a message file ``<ms>_<uuid>.<queue>.msg``.
        for name in os.listdir(folder):
            queue = name.partition(".")[2].removesuffix(".msg")
            if queue in depths:
                depths[queue] += 1
    return depths


# ----- the collector and the view ----------------------------------------------------------


class WebCollector(Collector):
    """Reads queue depths, match counts and task events at each scrape."""

    def __init__(self, redis_url: str | None, var_dir: Path) -> None:
        self.redis_url = redis_url
        self.var_dir = var_dir

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        from webapp.matches.models import Match, MatchStatus

        depth = GaugeMetricFamily(
            "brawl_queue_depth", "Messages waiting in a Celery queue, read from the broker.", labels=["queue"]
        )
        for queue, n in queue_depths(redis_url=self.redis_url, var_dir=self.var_dir).items():
            depth.add_metric([queue], n)
        yield depth

        rows = Match.objects.values_list("status").annotate(n=Count("pk")).order_by()
        by_status = dict.fromkeys(MatchStatus.values, 0)
        by_status.update({status: n for status, n in rows})
        matches = GaugeMetricFamily("brawl_matches", "Matches in the database, by status.", labels=["status"])
        for status, n in sorted(by_status.items()):
            matches.add_metric([status], n)
        yield matches

        events = read_task_events(redis_url=self.redis_url, var_dir=self.var_dir)
        for kind, name, doc in (
            ("failure", "brawl_task_failures", "Celery tasks that failed (raised, retries exhausted), by task name."),
            ("retry", "brawl_task_retries", "Celery task retries scheduled, by task name."),
        ):
            family = CounterMetricFamily(name, doc, labels=["task"])
            for (task, k), n in sorted(events.items()):
                if k == kind:
                    family.add_metric([task], n)
            yield family


def allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """Parses ``settings.BRAWL_METRICS_ALLOW``.

    Raises:
        ValueError: an entry is not an address or network.
    """
    raw = getattr(settings, "BRAWL_METRICS_ALLOW", DEFAULT_ALLOW)
    return [ipaddress.ip_network(part.strip(), strict=False) for part in raw.split(",") if part.strip()]


def may_scrape(request: HttpRequest) -> bool:
    """Whether ``request`` comes from a staff user, or straight (not through a proxy) from an allowed address."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.is_staff:
        return True
    if "HTTP_X_FORWARDED_FOR" in request.META:
        # Came through the reverse proxy (Caddy and ingress-nginx always add the header): the
        # address is the proxy's, which may sit inside an allowed network. Only staff, then.
        return False
    try:
        client = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(client in net for net in allowed_networks())


@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    """Serves the metrics in the format the scraper accepts (Prometheus text by default); 403 to anyone not allowed."""
    if not may_scrape(request):
        return HttpResponse("forbidden", status=403, content_type="text/plain")
    registry = CollectorRegistry(auto_describe=False)
    registry.register(WebCollector(settings.REDIS_URL, Path(settings.VAR_DIR)))
    encoder, content_type = choose_encoder(request.headers.get("Accept", ""))
    return HttpResponse(encoder(registry), content_type=content_type)
