"""The shared step interpreter (referee/core/steps.py) on a toy game: both kinds of entry, the verbs, copies.

The toy: ``count`` pushes two ``ask`` steps (each waits for a seat's "a"/"b"), then a standing ``vote``
window asks seats 0..2 (seat 1 has no option and is skipped); ``done`` ends the match.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from referee.core.chance import SeededChance
from referee.core.contract import GameInfo, JSONDict, Match, Option, Outcome, Termination
from referee.core.errors import IllegalOptionError, MatchOverError
from referee.core.steps import Frame, Pending, Rules, StepMatch

RULES = Rules("toy")


class Toy(StepMatch):
    info = GameInfo("toy", "Toy", "1", seat_counts=frozenset({3}), table_sizes=(3,))
    rules = RULES

    def __init__(self) -> None:
        self.start_steps()
        self.chance = SeededChance(1)
        self.said: list[str] = []
        self.push_all(
            [Frame("ask", {"seat": 0}), Frame("ask", {"seat": 1}), Frame("vote", {"queue": [0, 1, 2], "wid": "w1"})]
        )
        self.stack.insert(0, Frame("done"))
        self.run()

    def observe(self, viewer: Any) -> JSONDict:
        return {"said": list(self.said)}

    def determinize(self, viewer: Any, chance: Any) -> Toy:
        return copy.deepcopy(self)


@RULES.step("ask")
def _ask(m: Toy, f: Frame, choice: str | None) -> Pending | None:
    if choice is None:
        options = [Option("a", "say", "say a"), Option("b", "say", "say b")]
        return Pending(f["seat"], "ask", "a or b?", options, "a", f)
    m.said.append(f"{f['seat']}:{choice}")
    m.emit("said", {"seat": f["seat"], "word": choice})
    return None


def _vote_options(m: Toy, f: Frame) -> list[Option]:
    return [] if f["queue"][0] == 1 else [Option("yes", "vote", "yes"), Option("pass", "pass", "pass")]


@RULES.decision("vote", "vote", _vote_options, default="pass", window=True)
def _vote(m: Toy, f: Frame, option: Option) -> None:
    m.said.append(f"{f['queue'][0]}:{option.id}")
    if len(f["queue"]) > 1:
        f["queue"].pop(0)
    else:
        m.stack.pop()


@RULES.action("done")
def _done(m: Toy, f: Frame) -> None:
    m.end(Outcome((1, 1, 1), Termination.VICTORY, "done"))


def test_frames_run_in_order_and_the_verbs_follow_the_stack() -> None:
    m = Toy()
    d = m.to_move()
    assert d is not None and (d.seat, d.kind, d.default_option_id, d.window) == (0, "ask", "a", None)
    m.apply("b")
    m.apply("a")
    d = m.to_move()
    assert d is not None and (d.seat, d.kind, d.window) == (0, "vote", "w1")
    assert [(x.seat, x.kind) for x, _ in m.window_decisions()] == [(0, "vote"), (2, "vote")]
    m.apply("yes")
    assert m.to_move().seat == 2  # type: ignore[union-attr]  # seat 1 has no option: skipped
    m.apply("pass")
    assert m.said == ["0:b", "1:a", "0:yes", "2:pass"]
    assert m.outcome() is not None and m.to_move() is None and m.legal_options() == ()
    assert [e.data["word"] for e in m.events()] == ["b", "a"]
    with pytest.raises(MatchOverError):
        m.apply("a")


def test_an_illegal_option_names_the_legal_ones_and_changes_nothing() -> None:
    m = Toy()
    with pytest.raises(IllegalOptionError, match=r"'c' is not a legal option for seat 0 \(ask\).*'a', 'b'"):
        m.apply("c")
    assert m.said == [] and m.to_move() is not None


def test_the_window_followers_read_from_the_queue_equal_the_contracts_walk() -> None:
    m = Toy()
    m.apply("a")
    m.apply("a")
    first = m.to_move()
    assert first is not None
    cheap = [(d.to_json(), [o.id for o in opts]) for d, opts in m.window_followers(first)]
    walked = [(d.to_json(), [o.id for o in opts]) for d, opts in Match.window_followers(m, first)]
    assert cheap == walked and len(cheap) == 1


def test_a_deep_copy_is_independent_and_shares_the_frozen_events() -> None:
    m = Toy()
    m.apply("a")
    other = copy.deepcopy(m)
    other.apply("b")
    assert m.said == ["0:a"] and other.said == ["0:a", "1:b"]
    assert other.events()[0] is m.events()[0]
    assert other.stack is not m.stack and other.pending is not m.pending


def test_a_name_registered_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        RULES.action("done")(_done)
