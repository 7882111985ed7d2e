"""The front door: what assembles the service from its parts.

The ``brawl`` command line (:mod:`service.cli`), the supervisor of ``brawl run``
(:mod:`service.supervise`) and the ladder referee's wiring (:mod:`service.refhost`: the web
tier's token store and the broker's result sink, handed to ``referee.server``). It sits above
``workers`` and ``webapp`` and may import any package of the project; nothing imports it.
"""
