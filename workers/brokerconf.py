"""The broker the Brawl Ladder's processes share, and its two queues, without the Celery app.

``workers.celery`` builds the workers' app from these; a ladder referee builds a publish-only app
from them (``workers.refhost``), so it never imports the task modules, the web tier or Django.
``REDIS_URL`` selects Redis; otherwise the embedded filesystem transport (``workers.broker``).

This module is not the Celery app (``workers.celery``) nor the transport (``workers.broker``).
"""

from __future__ import annotations

from kombu import Exchange, Queue

from referee import settings

SCHEDULING = "scheduling"
"""Queue of ladder rounds, match starts, tournament progress and the reaper."""
RECORDING = "recording"
"""Queue of finished matches to record."""


def broker_settings() -> dict[str, object]:
    """Returns the broker URL and transport options from the environment (``referee.settings``)."""
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
    from workers import broker

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


QUEUES = tuple(Queue(q, Exchange(q, type="direct"), routing_key=q) for q in (SCHEDULING, RECORDING))
"""Each queue with its own exchange and routing key: queues sharing a binding would each get a copy of every message."""
