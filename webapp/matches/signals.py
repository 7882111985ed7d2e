"""What the matches app announces, so that the apps above it react without the matches app knowing them.

The matches app is the only write path for matches (``services``); ratings, tournaments and author
notifications sit above it and subscribe to these signals in their ``AppConfig.ready()``. Receivers
run synchronously, inside the transaction that ends the match, so a result is recorded entirely or
not at all (an exception in a receiver rolls the whole result back). They run in the order of
``INSTALLED_APPS``: rankings, then tournaments, then notifications (which reads the new ratings).
"""

from __future__ import annotations

from django.dispatch import Signal

match_finished = Signal()
"""Sent once when a match ends with a result: ``match`` (the row), ``seats`` (its ``MatchSeat`` rows in seat
order, ranks set) and ``replay`` (the ``referee.core.replay.Replay``)."""

match_failed = Signal()
"""Sent once when a match ends without a result (failed or cancelled): ``match`` (the row)."""
