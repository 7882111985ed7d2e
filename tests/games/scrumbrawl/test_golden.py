"""Golden playthroughs: whole seeded ScrumBrawl games, event by event, checked in and diffed.

The cases are in ``golden_cases.py``; any change that moves a trajectory fails here with the first
differing line. If it is intended (a rules fix, a bot change), regenerate, read the printed diff,
and commit the new transcripts with the change::

    .venv/bin/python -m tests.games.golden --regen scrumbrawl
"""

from __future__ import annotations

import json

import pytest

from tests.games.golden import GoldenCase, assert_matches_golden, cases


@pytest.mark.parametrize("case", cases("scrumbrawl"), ids=str)
def test_seeded_playthrough_matches_the_golden_transcript(case: GoldenCase) -> None:
    """The same seed, rules version and decisions give the checked-in transcript, event by event."""
    assert_matches_golden(case)


@pytest.mark.parametrize("case", cases("scrumbrawl"), ids=str)
def test_golden_is_a_whole_game(case: GoldenCase) -> None:
    """A golden is a whole game: the header, event 0 onwards, and the final event; the bots' games end in a
    victory (three chips, one blue), the random one at its round cap."""
    lines = case.path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["game"] == "scrumbrawl" and header["seed"] == case.seed
    events = [json.loads(x) for x in lines[1:]]
    assert [e["i"] for e in events] == list(range(len(events)))
    ending = [e for e in events if e["kind"] == "end"]
    assert len(ending) == 1 and ending[0] is events[-1], "the game ends once, on the last event"
    expected = "reached three chips with a blue" if case.bots != "random" else "round cap"
    assert expected in ending[0]["data"]["detail"]
