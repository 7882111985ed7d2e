"""Seed commitments: published before a match, checked against the revealed seed after it."""

from __future__ import annotations

import hashlib

import pytest

from common.seeding import SEED_BITS, new_seed
from referee.core.fairness import check_commitment, seed_commitment


def test_commitment_is_the_documented_hash() -> None:
    expected = hashlib.sha256(b"brawl-seed-commitment-v1:m-42:12345").hexdigest()
    assert seed_commitment("m-42", 12345) == expected


def test_commitment_binds_seed_and_match() -> None:
    c = seed_commitment("m-1", 7)
    assert check_commitment("m-1", 7, c)
    assert check_commitment("m-1", 7, c.upper())
    assert not check_commitment("m-1", 8, c)
    assert not check_commitment("m-2", 7, c)


@pytest.mark.parametrize("seed", [-1, 2**SEED_BITS])
def test_out_of_range_seed_is_refused(seed: int) -> None:
    with pytest.raises(ValueError, match="outside"):
        seed_commitment("m", seed)
    assert not check_commitment("m", seed, "0" * 64)


def test_new_seeds_are_in_range_and_vary() -> None:
    seeds = {new_seed() for _ in range(64)}
    assert all(0 <= s < 2**SEED_BITS for s in seeds)
    assert len(seeds) > 60
