"""The broker every Brawl Ladder process shares, its three queues and a publisher's settings, without Celery.

Three kinds of process put tasks on the broker and none of them imports another's code for it: the
workers (``workers.celery`` builds their app from :func:`broker_settings` and :data:`QUEUES`), the web
app (``webapp.tasks_out`` queues a match or a webhook sweep by task name) and a ladder referee
(``service.refhost`` publishes results). The last two build a publish-only Celery app from
:func:`publisher_settings`, so they import no task module, and the referee no Django. ``REDIS_URL``
selects Redis; otherwise the embedded filesystem transport (:mod:`common.broker`).

This module imports no Celery (the referee's contracts forbid it); it returns the settings a Celery
app is configured with.
"""

from __future__ import annotations

from kombu.entity import Exchange, Queue

from common import settings

SCHEDULING = "scheduling"
"""Queue of ladder rounds, match starts, tournament progress and the reaper."""
RECORDING = "recording"
"""Queue of finished matches to record."""
FOLLOWUPS = "followups"
"""Queue of the work a recorded result leaves for later: author notifications, page refresh, viewer frames."""


def broker_settings() -> dict[str, object]:
    """Returns the broker URL and transport options from the environment (``common.settings``)."""
    conf = settings.current()
    redis_url = conf.redis_url
    if redis_url:
        visibility = conf.broker_visibility_timeout
        return {
            "broker_url": redis_url,
            "broker_transport_options": {
                "visibility_timeout": visibility,
                # Look for messages of dead workers every few seconds rather than every 100 s.
                "unacked_restore_interval": max(1, min(10, int(visibility / 2) or 1)),
                "unacked_restore_throttle": 1,
                # One Redis list per queue, named after it: no priority sub-lists (no task uses a
                # priority), so ``/metrics`` reads a queue's depth as ``LLEN <queue>`` (webapp.metrics).
                "priority_steps": [0],
            },
        }
    from common import broker

    broker.register()
    folder = conf.var_dir / "broker"
    for sub in ("queue", "processed", "control", "staging", "unacked", "bad"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    return {
        # A host name, or kombu warns that none was supplied in every process that connects.
        "broker_url": f"{broker.ALIAS}://localhost",
        "broker_transport_options": {
            "data_folder_in": str(folder / "queue"),
            "data_folder_out": str(folder / "queue"),
            "processed_folder": str(folder / "processed"),
            # Broadcast (control) exchanges too, or kombu writes a ./control folder in the cwd.
            "control_folder": str(folder / "control"),
            "staging_folder": str(folder / "staging"),
            "unacked_folder": str(folder / "unacked"),
            "bad_folder": str(folder / "bad"),
            "store_processed": False,
        },
    }


QUEUES = tuple(Queue(q, Exchange(q, type="direct"), routing_key=q) for q in (SCHEDULING, RECORDING, FOLLOWUPS))
"""Each queue with its own exchange and routing key: queues sharing a binding would each get a copy of every message."""


def publisher_settings() -> dict[str, object]:
    """Returns the configuration of a Celery app that only publishes tasks by name (no task modules).

    A task sent without a route goes to :data:`SCHEDULING`, as in the workers' app; a caller that
    publishes to another queue names it (``queue=RECORDING``).
    """
    return {
        **broker_settings(),
        "task_serializer": "json",
        "accept_content": ["json"],
        "task_queues": QUEUES,
        "task_default_queue": SCHEDULING,
        "task_default_exchange": SCHEDULING,
        "task_default_routing_key": SCHEDULING,
        "broker_connection_retry_on_startup": True,
    }
