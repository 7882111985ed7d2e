"""Commitments to match seeds: fairness a spectator can check after the match.

A match's seed decides every die, shuffle and draw, so it stays secret while the match can still be
played. What the service publishes when it creates a match is a *commitment*: a SHA-256 of the
match id and the seed. The seed itself is revealed with the replay, and anyone can then check that
the seed the replay was played with is the one committed to before the first decision
(``brawl replay verify`` does).

This module is pure: no clock, no I/O, no randomness. It does not choose seeds:
:func:`common.seeding.new_seed` does, from the operating system's cryptographic generator, the only
place seeds may come from.
"""

from __future__ import annotations

import hashlib
import hmac

from common.seeding import SEED_BITS

_DOMAIN = "brawl-seed-commitment-v1"
"""Separates these hashes from any other SHA-256 the service computes."""


def seed_commitment(match_id: str, seed: int) -> str:
    """Returns the published commitment to ``seed`` for the match ``match_id``.

    Args:
        match_id: The match's id as the service names it (the referee's match id).
        seed: The match seed, ``0 <= seed < 2**63``.

    Returns:
        64 lowercase hex digits: SHA-256 of ``"brawl-seed-commitment-v1:<match_id>:<seed>"``.

    Raises:
        ValueError: the seed is out of range.
    """
    if not 0 <= seed < 2**SEED_BITS:
        raise ValueError(f"seed {seed!r} is outside 0..2**{SEED_BITS}-1")
    return hashlib.sha256(f"{_DOMAIN}:{match_id}:{seed}".encode()).hexdigest()


def check_commitment(match_id: str, seed: int, commitment: str) -> bool:
    """Tells whether ``commitment`` is the commitment to ``seed`` for ``match_id``."""
    try:
        expected = seed_commitment(match_id, seed)
    except ValueError:
        return False
    return hmac.compare_digest(expected, commitment.strip().lower())
