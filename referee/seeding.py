"""Where match seeds come from: the operating system's cryptographic generator, and nowhere else.

A seed decides every die, shuffle and draw of a match, so a seed anyone could predict (a constant, a
counter, a generator seeded from a task id) would let a bot know its opponent's hand. This module is
outside ``referee.core`` because the engines and the core may not touch any randomness of their own.
"""

from __future__ import annotations

import secrets

from referee.core.fairness import SEED_BITS


def new_seed() -> int:
    """Returns a fresh match seed, ``0 <= seed < 2**63``, from :mod:`secrets`."""
    return secrets.randbits(SEED_BITS)
