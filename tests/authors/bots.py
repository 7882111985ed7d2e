"""Bots for the authors' tools' tests, loaded by ``module:Class`` as an author's would be."""

from __future__ import annotations

import threading
from typing import Any

EVENTS: list[tuple[str, str]] = []
"""(``start`` or ``end``, match id) as the :class:`Logged` bots saw them, in order."""
_LOCK = threading.Lock()


class Logged:
    """Plays the first option and logs when each of its matches starts and ends."""

    def match_started(self, info: Any) -> None:
        with _LOCK:
            EVENTS.append(("start", info.match_id))

    def match_ended(self, result: Any) -> None:
        with _LOCK:
            EVENTS.append(("end", result.match_id))

    def choose(self, decision: Any, observation: Any, options: Any) -> str:
        return str(options[0].id)
