"""Where match seeds and house bots' own seeds come from: the operating system's cryptographic generator.

A seed decides every die, shuffle and draw of a match, so a seed anyone could predict (a constant, a
counter, a generator seeded from a task id) would let a bot know its opponent's hand. A bot's own
randomness is the other half: a house bot whose generator were seeded from the match seed would
spell the seed out in its moves, and one seeded from a constant would play moves an opponent can
predict. So neither is derived from anything: both are drawn here. This module is outside
``referee.core`` because the engines and the core may not touch any randomness of their own; the
core reads only :data:`SEED_BITS` from it, to check a seed's range.
"""

from __future__ import annotations

import secrets

SEED_BITS = 63
"""Seeds are non-negative 63-bit integers, so they fit a signed 64-bit database column."""

BOT_SEED_BITS = 64
"""Bits of a house bot's own seed (the bot's :class:`referee.core.chance.SeededChance` takes 64)."""


def new_seed() -> int:
    """Returns a fresh match seed, ``0 <= seed < 2**63``, from :mod:`secrets`."""
    return secrets.randbits(SEED_BITS)


def new_bot_seed() -> int:
    """Returns a fresh seed for one bot instance's own randomness, from :mod:`secrets`.

    Drawn for every house bot the service builds (one per match and seat) unless the caller of a
    local experiment passes its own bot seed; never derived from a match seed.
    """
    return secrets.randbits(BOT_SEED_BITS)
