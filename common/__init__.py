"""What every process of the service shares: settings, logging, the embedded broker, seeds.

:mod:`common.settings` reads the environment (the one place that does), :mod:`common.logsetup`
sets logging up, :mod:`common.brokerconf` and :mod:`common.broker` name the Celery queues and the
embedded broker of ``brawl run``, :mod:`common.seeding` draws match and bot seeds,
:mod:`common.credential` finds the internal API's service credential. It is the
bottom layer: it imports nothing of the project, and every other package may import it (the rules
engines only :data:`common.seeding.SEED_BITS`).
"""
