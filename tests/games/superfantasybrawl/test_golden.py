"""Golden playthroughs: seeded random games' event transcripts, checked in and diffed.

Any change that alters a trajectory shows up here; if it is intended, bump the rules version
and regenerate with ``.venv/bin/python -m tests.games.golden --regen superfantasybrawl``, which
prints what moved.
"""

from __future__ import annotations

import pytest

from tests.games.golden import GoldenCase, assert_matches_golden, cases


@pytest.mark.parametrize("case", cases("superfantasybrawl"), ids=str)
def test_seeded_playthrough_matches_the_golden_transcript(case: GoldenCase) -> None:
    """Layer 3: the same seed, rules version and random decisions give the checked-in transcript."""
    assert_matches_golden(case)
