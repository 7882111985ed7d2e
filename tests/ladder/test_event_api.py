"""The event API the worker uses: JSON state, idempotent recording, conflicts, seats, seeding.

Partitions: every format through a JSON round trip mid-event; a report recorded twice; a conflicting
report; a report for an unknown, unpublished or decided pairing; malformed reports; seat rotation.
"""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.errors import ConflictError, InvalidEventError, InvalidResultError
from ladder.ids import EntrantId, EventId, MatchId, PairingKey
from ladder.tournaments import (
    EventConfig,
    EventState,
    Format,
    Report,
    is_finished,
    new_event,
    next_pairings,
    record_result,
    report_from_seats,
    schedule,
    seats_for_game,
    seed_by_rating,
    seed_manual,
    standings,
    withdraw,
)
from tests.ladder.tournament_helpers import event, random_decider


@pytest.mark.parametrize("fmt", list(Format))
def test_state_survives_json_between_every_step(fmt: Format) -> None:
    rng = random.Random(7)
    decide = random_decider(rng)
    state = event(fmt, 7, best_of=1, rounds=3)
    mirror = state
    count = 0
    while pending := next_pairings(state):
        for p in pending:
            count += 1
            report = Report(p.key, MatchId(f"m{count}"), decide(p, 0))
            state = record_result(state, report)
            mirror = EventState.from_json(json.loads(json.dumps(record_result(mirror, report).to_json())))
            assert mirror == state
    assert is_finished(mirror)
    assert standings(mirror) == standings(state)


def test_recording_twice_counts_once_and_conflicts_are_refused() -> None:
    state = event(Format.SINGLE_ELIMINATION, 4, best_of=3)
    pairing = next_pairings(state)[0]
    report = Report(pairing.key, MatchId("g1"), (1, 2))
    once = record_result(state, report)
    assert record_result(once, report) is once
    assert next_pairings(once)[0].games_played == 1
    with pytest.raises(ConflictError, match="already recorded"):
        record_result(once, Report(pairing.key, MatchId("g1"), (2, 1)))
    decided = record_result(once, Report(pairing.key, MatchId("g2"), (1, 2)))
    with pytest.raises(ConflictError, match="already decided"):
        record_result(decided, Report(pairing.key, MatchId("g3"), (1, 2)))


@pytest.mark.parametrize(
    ("report", "error", "message"),
    [
        (Report(PairingKey("W9-9"), MatchId("x"), (1, 2)), InvalidResultError, "not published"),
        (Report(PairingKey("W2-1"), MatchId("x"), (1, 2)), InvalidResultError, "not published"),
        (Report(PairingKey("W1-1"), MatchId("x"), (1, 2, 3)), InvalidResultError, "do not fit"),
        (Report(PairingKey("W1-1"), MatchId("x"), (1, 2), (EntrantId("p9"),)), InvalidResultError, "did not play"),
        (Report(PairingKey("W1-1"), MatchId("x"), (1, 2), (EntrantId("p1"),)), InvalidResultError, "rank below"),
    ],
)
def test_bad_reports(report: Report, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        record_result(event(Format.SINGLE_ELIMINATION, 4), report)


def test_seats_rotate_and_reports_map_back() -> None:
    state = event(Format.POD_SWISS, 4, rounds=1)
    (pod,) = next_pairings(state)
    assert seats_for_game(pod, 1) == pod.participants[1:] + pod.participants[:1]
    # The engine says seat 0 came 2nd, seat 1 1st, ...; the report follows participant order.
    report = report_from_seats(pod, 1, MatchId("m"), (2, 1, 4, 3))
    by_entrant = dict(zip(seats_for_game(pod, 1), (2, 1, 4, 3), strict=True))
    assert report.ranks == tuple(by_entrant[e] for e in pod.participants)
    with pytest.raises(InvalidResultError):
        report_from_seats(pod, 0, MatchId("m"), (1, 2))


def test_seeding() -> None:
    ratings = {EntrantId("a"): 1500.0, EntrantId("b"): 1700.0, EntrantId("c"): 1500.0}
    assert [(e.id, e.seed) for e in seed_by_rating(ratings)] == [("b", 1), ("a", 2), ("c", 3)]
    assert [e.seed for e in seed_manual([EntrantId("z"), EntrantId("y")])] == [1, 2]
    with pytest.raises(InvalidEventError):
        seed_manual([EntrantId("z"), EntrantId("z")])


def test_bad_events() -> None:
    with pytest.raises(InvalidEventError):
        new_event(EventId("e"), EventConfig(Format.SWISS), seed_manual([EntrantId("a")]))
    with pytest.raises(InvalidEventError):
        EventConfig(Format.SINGLE_ELIMINATION, best_of=2)
    with pytest.raises(InvalidEventError):
        EventState.from_json({"event": "e"})


def test_schedule_lists_decided_and_pending() -> None:
    state = event(Format.ROUND_ROBIN, 4)
    p = next_pairings(state)[0]
    state = record_result(state, Report(p.key, MatchId("m"), (1, 2)))
    views = schedule(state).pairings
    assert [v.outcome is not None for v in views] == [True, False]


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(list(Format)), st.integers(3, 14), st.integers(0, 2**32))
def test_published_pairings_and_decided_outcomes_never_change(fmt: Format, n: int, seed: int) -> None:
    # The worker relies on this: whatever happens later (results, forfeits, withdrawals), a pairing
    # once published keeps its entrants, and an outcome once decided stays decided and the same.
    rng = random.Random(seed)
    decide = random_decider(rng, draw_chance=0.1)
    state = event(fmt, n, best_of=1, rounds=4)
    seen: dict[str, tuple[object, object]] = {}
    for step in range(2000):
        pending = next_pairings(state)
        if not pending:
            break
        p = pending[rng.randrange(len(pending))]
        roll = rng.random()
        if roll < 0.05 and len(state.withdrawals) < n - 2:
            state = withdraw(state, p.participants[rng.randrange(len(p.participants))])
        elif roll < 0.1:
            absent = p.participants[-1]
            ranks = tuple(len(p.participants) if e == absent else 1 for e in p.participants)
            state = record_result(state, Report(p.key, MatchId(f"s{step}"), ranks, (absent,)))
        else:
            state = record_result(state, Report(p.key, MatchId(f"s{step}"), decide(p, p.games_played)))
        for view in schedule(state).pairings:
            key = view.pairing.key
            if key in seen:
                participants, outcome = seen[key]
                assert view.pairing.participants == participants
                if outcome is not None:
                    assert view.outcome == outcome
            seen[key] = (view.pairing.participants, view.outcome)
    assert is_finished(state)
