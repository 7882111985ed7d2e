"""Super Fantasy Brawl's registry of steps, on the shared step interpreter (:mod:`referee.core.steps`).

Everything that happens in a match (a phase, a card, a keyword, a trap) is a :class:`Frame` on the
match's stack. A step handler is registered by name with :func:`step` and is called as
``handler(match, frame, choice)``: first with ``choice=None``; if it needs a decision it returns a
:class:`Pending`, and is called again with the chosen option id. Handlers schedule further frames
with ``match.push_all``. This module is only the registry and a helper, not any rule.
"""

from __future__ import annotations

from typing import Any

from referee.core.contract import Option
from referee.core.steps import Frame, Pending, Rules, StepHandler

__all__ = ["RULES", "Frame", "Handler", "Pending", "Step", "opt", "step"]

Step = Frame
"""A scheduled step (the shared interpreter's frame)."""
Handler = StepHandler

RULES = Rules("superfantasybrawl")
"""Every step handler, by name; filled by the concept modules on import."""
step = RULES.step
"""Registers ``handler(match, frame, choice)`` as a step by name."""


_MADE: dict[tuple[Any, ...], Option] = {}
"""Options already built, by everything they are built from (each param with its type, so that
``True`` and ``1`` stay apart). Options are immutable and their data comes from the content, so
the set is bounded; an option with a list among its params is built afresh each time."""


def opt(oid: str, kind: str, label: str, **params: Any) -> Option:
    """Returns the option whose params drop empty values (they are proto defaults anyway).

    The same arguments give the same :class:`Option` object from one decision to the next (the
    referee's encoding cache then hits on identity), unless a param is a list.
    """
    try:
        key = (oid, kind, label, *[(k, v, type(v)) for k, v in params.items()])
        made = _MADE.get(key)
    except TypeError:  # a list among the params: unhashable, not kept
        return Option(oid, kind, label, {k: v for k, v in params.items() if v is not None and v != ""})
    if made is None:
        made = _MADE[key] = Option(oid, kind, label, {k: v for k, v in params.items() if v is not None and v != ""})
    return made
