"""What the matches app announces, so that the apps above it react without the matches app knowing them.

Only a match that ends without a result is announced: its listeners (tournament progress, author
notifications) are independent of each other, so their order does not matter. They run
synchronously, inside the transaction that ends the match. A result is not announced: it is
recorded by ``webapp.results``, which calls each app in the order their writes depend on.
"""

from __future__ import annotations

from django.dispatch import Signal

match_failed = Signal()
"""Sent once when a match ends without a result (failed or cancelled): ``match`` (the row)."""
