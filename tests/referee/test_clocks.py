"""The clock arithmetic of a match (referee.server.clocks), number by number."""

from __future__ import annotations

import pytest
from brawl.bot.v1 import bot_pb2

from referee.protocol.timecontrol import TimeSettings
from referee.server import clocks

TC = TimeSettings(decision_time=1.0, bank_time=30.0, max_overrun=5.0, max_rtt_credit=0.5)


def test_an_answer_within_the_free_time_draws_nothing_and_the_round_trip_is_credited() -> None:
    c = clocks.answered(TC, sent_at=10.0, received=10.8, credit=0.3)
    assert (c.elapsed, c.credit, c.charged, c.drawn) == (pytest.approx(0.8), 0.3, pytest.approx(0.5), 0.0)


def test_an_answer_past_the_free_time_draws_the_rest_from_the_bank() -> None:
    c = clocks.answered(TC, sent_at=0.0, received=3.25, credit=0.25)
    assert (c.charged, c.drawn) == (3.0, 2.0)


def test_a_credit_larger_than_the_time_taken_charges_nothing() -> None:
    c = clocks.answered(TC, sent_at=5.0, received=5.1, credit=0.5)
    assert (c.charged, c.drawn) == (0.0, 0.0)


def test_the_overrun_is_capped_by_the_bank_and_sets_the_deadline() -> None:
    assert clocks.allowed_overrun(TC, bank=30.0) == 5.0
    assert clocks.allowed_overrun(TC, bank=1.5) == 1.5
    assert clocks.hard_deadline(TC, sent_at=100.0, overrun=1.5, credit=0.25) == 102.75


def test_a_timeout_charges_the_free_time_and_the_whole_overrun() -> None:
    c = clocks.timed_out(TC, elapsed=6.2, overrun=5.0, credit=0.1)
    assert (c.charged, c.drawn, c.credit) == (6.0, 5.0, 0.1)


def test_a_charge_fills_the_answer_timing_in_place() -> None:
    timing = bot_pb2.AnswerTiming()
    clocks.Charge(elapsed=1.5, credit=0.25, charged=1.25, drawn=0.25).fill(timing)
    assert (timing.elapsed.seconds, timing.elapsed.nanos) == (1, 500_000_000)
    assert (timing.charged.seconds, timing.charged.nanos) == (1, 250_000_000)
    assert (timing.rtt_credit.seconds, timing.rtt_credit.nanos) == (0, 250_000_000)
    assert (timing.bank_drawn.seconds, timing.bank_drawn.nanos) == (0, 250_000_000)
    clocks.Charge(elapsed=-1.0, credit=0.0, charged=0.0, drawn=0.0).fill(timing)
    assert (timing.elapsed.seconds, timing.elapsed.nanos) == (0, 0)
    assert clocks.ms(1.2346) == 1235
