"""Regressions of issue 12 (findings 2-4): the matchmaker never stalls and keeps its rematch limit.

Each test sets up the exact case the issue measured: the 1,074-meeting underflow, two versions of
one bot plus one other bot (duels) or plus three others (pods) over 1,440 calls, the greedy seating
that forced an over-the-limit pair, and mirrored sets counted as one meeting.
"""

import math
import random
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from ladder.errors import InvalidResultError
from ladder.ids import BotId, BotVersionId
from ladder.matchmaking import Candidate, MatchmakingConfig, RecentMatch, make_matches

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
PODS = (4, 3)


def cand(name: str, rating: float = 1500.0, *, bot: str = "", waited: timedelta = timedelta(0)) -> Candidate:
    return Candidate(BotVersionId(name), BotId(bot or name), rating, 50.0, 200, 1, NOW - waited)


def meetings(seats: tuple[str, ...], times: int, at: datetime = NOW - timedelta(hours=1)) -> list[RecentMatch]:
    """``times`` separate (unmirrored) matches of ``seats``, each with its own seed."""
    return [RecentMatch(tuple(BotVersionId(s) for s in seats), at, seed) for seed in range(times)]


def test_weights_never_underflow_after_1074_meetings() -> None:
    # Issue 12, finding 2: 0.5**repeats is exactly 0.0 once a pair has met about 1,074 times, and every
    # round then failed with "Total of weights must be greater than zero". Four bots, 4-seat pods.
    assert 0.5**1075 == 0.0  # why the old weight could not work
    recent = meetings(("a", "b", "c", "d"), 1_100)
    # Every pair is far over the limit; all have waited past the patience, so the limit gives way.
    pool = [cand(x, waited=timedelta(minutes=30)) for x in "abcd"]
    config = MatchmakingConfig(table_sizes=PODS, explore=0.0)
    for seed in range(5):
        (match,) = make_matches(pool, recent, NOW, random.Random(seed), config)
        assert sorted(match.seats) == ["a", "b", "c", "d"]
    # The same at a rating distance whose Gaussian closeness alone underflows (exp(-0.5 * 60**2) == 0).
    far = [cand("a", 1000.0, waited=timedelta(hours=1)), cand("b", 1000.0 + 60 * 300.0, waited=timedelta(hours=1))]
    assert math.exp(-0.5 * 60.0**2) == 0.0
    (match,) = make_matches(far, meetings(("a", "b"), 2_000), NOW, random.Random(1), MatchmakingConfig(explore=0.0))
    assert sorted(match.seats) == ["a", "b"]


def run_calls(pool: list[Candidate], config: MatchmakingConfig, calls: int = 1_440) -> list[tuple[str, ...]]:
    """One call a minute for a day; matches end within the minute, so everyone is free each call."""
    waiting = {c.version: c.waiting_since for c in pool}
    recent: list[RecentMatch] = []
    played: list[tuple[str, ...]] = []
    rng = random.Random(12)
    now = NOW
    for _ in range(calls):
        now += timedelta(minutes=1)
        current = [Candidate(c.version, c.bot, c.rating, c.deviation, c.games, 1, waiting[c.version]) for c in pool]
        for m in make_matches(current, recent, now, rng, config):
            played.append(m.seats)
            recent.append(RecentMatch(m.seats, now, m.seed))
            for v in m.seats:
                waiting[v] = now
        recent = [r for r in recent if now - r.played_at <= config.rematch_window]
    return played


UNLIMITED = 10**9


def test_two_versions_of_one_bot_and_one_other_bot_play_every_call() -> None:
    # Issue 12, finding 3: "two versions of one bot plus one other bot get 0 matches in 1,440 scheduling
    # calls": the two versions were both seated before the same-bot rule was applied.
    pool = [cand("a1", bot="a"), cand("a2", bot="a"), cand("b")]
    played = run_calls(pool, MatchmakingConfig(max_rematches=UNLIMITED, rematch_window=timedelta(hours=1)))
    assert len(played) == 1_440
    assert all("b" in seats and len(set(seats)) == 2 for seats in played)
    versions = Counter(v for seats in played for v in seats if v != "b")
    assert min(versions["a1"], versions["a2"]) >= 700  # the waiting version goes next
    # With the documented limit (4 meetings a day per pair, patience 10 minutes) they still play all day.
    limited = run_calls(pool, MatchmakingConfig())
    assert Counter(v for seats in limited for v in seats)["b"] == len(limited) >= 1_440 // 11


def test_two_versions_of_one_bot_and_three_others_fill_a_pod_every_call() -> None:
    # Issue 12, finding 3: "a pod game with two versions of one bot plus 3 others also gets 0".
    pool = [cand("a1", bot="a"), cand("a2", bot="a"), cand("b"), cand("c"), cand("d")]
    played = run_calls(
        pool, MatchmakingConfig(table_sizes=PODS, max_rematches=UNLIMITED, rematch_window=timedelta(hours=1))
    )
    assert len(played) == 1_440
    for seats in played:
        assert len(seats) == 4 and {"b", "c", "d"} <= set(seats) and len({s[0] for s in seats}) == 4


def test_a_late_table_is_not_forced_into_an_over_the_limit_pair() -> None:
    # Documented: "a pair with max_rematches (4) meetings inside rematch_window (24 h) is excluded";
    # it gives way only for a candidate that waited rematch_patience. The greedy seating let "a" (most
    # urgent) take "c", its closest, and left "b" and "d" (at the limit) for the last table.
    recent = meetings(("b", "d"), 4)
    pool = [
        cand("a", 1000.0, waited=timedelta(minutes=5)),
        cand("c", 1005.0),
        cand("b", 1010.0),
        cand("d", 1015.0),
    ]
    for seed in range(50):
        tables = {frozenset(m.seats) for m in make_matches(pool, recent, NOW, random.Random(seed))}
        assert len(tables) == 2 and frozenset("bd") not in tables


def test_rematch_limit_in_duels_and_pods() -> None:
    # Duels: a-b met 4 times in the last 24 h. With nobody else, they wait until one has waited the patience.
    recent = meetings(("a", "b"), 4)
    config = MatchmakingConfig(explore=0.0)
    assert make_matches([cand("a"), cand("b")], recent, NOW, random.Random(1), config) == ()
    patient = [cand("a", waited=config.rematch_patience), cand("b")]
    assert len(make_matches(patient, recent, NOW, random.Random(1), config)) == 1
    # Meetings older than the window do not count.
    old = meetings(("a", "b"), 4, NOW - timedelta(hours=25))
    assert len(make_matches([cand("a"), cand("b")], old, NOW, random.Random(1), config)) == 1
    # Pods: a and b met 4 times; with 7 bots (a pod of 4 and one of 3) they never share a pod.
    pods = MatchmakingConfig(table_sizes=PODS)
    pool = [cand(x, 1500.0 + i) for i, x in enumerate("abcdefg")]
    for seed in range(50):
        matches = make_matches(pool, recent, NOW, random.Random(seed), pods)
        assert sorted(len(m.seats) for m in matches) == [3, 4]
        assert not any({"a", "b"} <= set(m.seats) for m in matches)


def test_a_mirrored_set_counts_as_one_meeting() -> None:
    # Issue 12, finding 4: "one mirrored 4-pod uses up the whole limit". Three mirrored duel sets
    # (6 matches) leave a-b under the limit of 4; a fourth set reaches it.
    mirrored = MatchmakingConfig(mirrored=True, explore=0.0)
    pool = [cand("a"), cand("b")]
    three = [
        RecentMatch((BotVersionId(x), BotVersionId(y)), NOW - timedelta(hours=1), s)
        for s in range(3)
        for x, y in ("ab", "ba")
    ]
    assert len(make_matches(pool, three, NOW, random.Random(1), mirrored)) == 2
    four = three + [
        RecentMatch((BotVersionId(x), BotVersionId(y)), NOW - timedelta(hours=1), 9) for x, y in ("ab", "ba")
    ]
    assert make_matches(pool, four, NOW, random.Random(1), mirrored) == ()
    # A mirrored 4-pod (four rotations, one seed) is one meeting for each of its six pairs.
    pods = MatchmakingConfig(table_sizes=PODS, mirrored=True)
    rotations = [("a", "b", "c", "d"), ("b", "c", "d", "a"), ("c", "d", "a", "b"), ("d", "a", "b", "c")]
    one_set = [RecentMatch(tuple(BotVersionId(v) for v in r), NOW - timedelta(hours=1), 77) for r in rotations]
    quad = [cand(x) for x in "abcd"]
    assert len(make_matches(quad, one_set * 3, NOW, random.Random(1), pods)) == 4  # still 1 meeting
    # Without seeds (old rows) every match counts, as before.
    unseeded = [RecentMatch(m.seats, m.played_at) for m in one_set]
    assert make_matches(quad, unseeded, NOW, random.Random(1), pods) == ()


def test_bad_numbers_are_refused_with_the_value() -> None:
    with pytest.raises(InvalidResultError, match="nan"):
        make_matches([cand("a", math.nan), cand("b")], [], NOW, random.Random(1))
    with pytest.raises(InvalidResultError, match="inf"):
        make_matches([cand("a", math.inf), cand("b")], [], NOW, random.Random(1))
    for bad in ({"rating_window": math.nan}, {"explore": math.nan}, {"uncertainty_weight": math.inf}):
        with pytest.raises(InvalidResultError):
            MatchmakingConfig(**bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidResultError, match="rematch_patience"):
        MatchmakingConfig(rematch_patience=timedelta(seconds=-1))


def test_a_pair_meets_once_per_call_however_many_passes() -> None:
    # Passes use spare capacity with other partners: six bots with four free slots each get four
    # rounds of distinct pairs (K6 splits into disjoint perfect matchings), never one pair twice.
    pool = [Candidate(BotVersionId(x), BotId(x), 1500.0 + i, 50.0, 200, 4, NOW) for i, x in enumerate("abcdef")]
    config = MatchmakingConfig(passes=4)
    for seed in range(20):
        tables = [frozenset(m.seats) for m in make_matches(pool, [], NOW, random.Random(seed), config)]
        assert len(tables) == 12 and len(set(tables)) == 12
    # Two bots with four slots: one match this call (the next call may pair them again).
    two = [Candidate(BotVersionId(x), BotId(x), 1500.0, 50.0, 200, 4, NOW) for x in "ab"]
    assert len(make_matches(two, [], NOW, random.Random(1), config)) == 1
