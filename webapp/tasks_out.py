"""The web app's way to the workers: tasks sent by name through a publish-only Celery app.

The web app queues work (a match to start, a webhook sweep) but runs none of it, so it imports no
task module and not the workers' Celery app: it builds its own app from the broker settings every
process shares (``common.brokerconf.publisher_settings``) and sends the task's name and arguments.
The app is built on first use and again whenever the broker settings change (a test pointing the
process at another Redis database), so a send never goes to a broker the environment no longer
names. Callers decide when to send (``BRAWL_DISPATCH``, after the transaction commits).

This module is not the dispatch policy (``webapp.matches.dispatch``, ``webapp.notifications.dispatch``).
"""

from __future__ import annotations

import threading
from typing import Any

from common.brokerconf import publisher_settings

_lock = threading.Lock()
_app: Any = None
_key = ""


def publisher() -> Any:
    """Returns the web app's publish-only Celery app for the broker the environment names now."""
    global _app, _key
    conf = publisher_settings()
    key = repr((conf["broker_url"], conf.get("broker_transport_options")))
    with _lock:
        if _app is None or key != _key:
            # Imported here so the site runs, and its tests import, without a broker configured.
            from celery import Celery

            app = Celery("brawl-web", set_as_current=False)
            app.conf.update(**conf)
            if _app is not None:
                _app.close()
            _app, _key = app, key
        return _app


def send_task(
    name: str, args: list[Any] | None = None, *, countdown: float | None = None, queue: str | None = None
) -> None:
    """Puts task ``name`` with ``args`` on the broker, on ``queue`` (default: the ``scheduling`` queue).

    ``countdown``: seconds before a worker may run it (the worker holds the message until then).
    """
    publisher().send_task(name, args=args or [], countdown=countdown, queue=queue)
