"""Celery workers of the Brawl Ladder: ladder rounds, match starts, result recording, tournaments, the reaper.

``workers.celery`` is the app, ``workers.tasks`` the tasks, ``workers.scheduling`` and
``workers.recording`` what they do, ``referee.client`` the referees' internal API,
``workers.cli`` the ``brawl worker`` command (the referee wired to the ladder is ``service.refhost``,
above this package).
See ``docs/workers.md``. Importing this package does nothing: Django is set up by the worker.
"""
