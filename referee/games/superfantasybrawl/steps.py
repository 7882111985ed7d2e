"""The step machine: the rules as a queue of named steps, each a plain-data dict.

Everything that happens in a match (a phase, a card, a keyword, a trap) is a step ``{"op": name,
...}`` in the match's queue. A step handler is registered by name with :func:`step` and is
called as ``handler(match, step, choice)``: first with ``choice=None``; if it needs a decision it
returns a :class:`Pending`, and is called again with the chosen option id. Handlers push further
steps to the front of the queue. Because steps are plain data, a match deep-copies cleanly (for
``determinize``) and resumes anywhere. This module is only the machinery, not any rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from referee.core.contract import Option

if TYPE_CHECKING:
    from referee.games.superfantasybrawl.match import BrawlMatch

Step = dict[str, Any]
Handler = Callable[["BrawlMatch", Step, "str | None"], "Pending | None"]

STEPS: dict[str, Handler] = {}
"""Every step handler, by name."""


@dataclass
class Pending:
    """A decision a step waits for."""

    seat: int
    kind: str
    prompt: str
    options: list[Option]
    default: str
    step: Step = field(default_factory=dict)


def step(name: str) -> Callable[[Handler], Handler]:
    """Registers a step handler under ``name``."""

    def register(fn: Handler) -> Handler:
        STEPS[name] = fn
        return fn

    return register


def opt(oid: str, kind: str, label: str, **params: Any) -> Option:
    """Builds an option whose params drop empty values (they are proto defaults anyway)."""
    return Option(oid, kind, label, {k: v for k, v in params.items() if v is not None and v != ""})
