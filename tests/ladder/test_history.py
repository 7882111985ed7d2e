"""Ratings as a replay of results: priors, history rows, exact recomputation.

Partitions: first game of a version with and without a parent, 1v1/FFA/2v2 results, idle time between
games, JSON round trips, replay from scratch versus continuing from stored ratings.
"""

import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.errors import InvalidResultError
from ladder.history import HistoryEntry, RatingConfig, VersionRating, prior, rate_game, ratings_from_history, replay
from ladder.ids import BotVersionId, GameName, MatchId
from ladder.results import GameResult

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SFB = GameName("superfantasybrawl")
V = [BotVersionId(f"v{i}") for i in range(8)]


def result(i: int, seats: list[int], ranks: list[int], hours: float = 0.0, teams: tuple[int, ...] = ()) -> GameResult:
    when = T0 + timedelta(hours=hours)
    return GameResult(MatchId(f"m{i}"), SFB, tuple(V[s] for s in seats), tuple(ranks), when, teams)


def test_first_game_of_new_bots() -> None:
    rated = rate_game(result(1, [0, 1], [1, 2]), {})
    winner, loser = rated.entries
    assert (winner.elo_before, winner.k, winner.games_before) == (1500.0, 40.0, 0)
    assert winner.elo_after == pytest.approx(1520.0)
    assert loser.elo_after == pytest.approx(1480.0)
    assert winner.glicko_after.deviation < 350 and winner.glicko_after.rating > 1500
    assert rated.ratings[0].games == 1 and rated.ratings[0].last_played_at == T0


def test_new_version_inherits_parent_with_widened_deviation() -> None:
    config = RatingConfig()
    history = replay([result(i, [0, 1], [1, 2], hours=i) for i in range(30)])
    parent = history.ratings[V[0]]
    assert parent.deviation < config.new_version_deviation
    child = prior(V[2], SFB, history.ratings, {V[2]: V[0]}, config)
    assert child.elo == parent.elo and child.games == 0
    assert child.deviation == config.new_version_deviation
    assert child.inherited_from == V[0]
    # A grandchild whose parent never played inherits through the chain.
    assert prior(V[3], SFB, history.ratings, {V[3]: V[2], V[2]: V[0]}).elo == parent.elo
    # No parent: the default prior.
    assert prior(V[4], SFB, history.ratings, {}).elo == 1500.0
    with pytest.raises(InvalidResultError, match="loops"):
        prior(V[5], SFB, {}, {V[5]: V[6], V[6]: V[5]})


def test_first_history_row_names_the_parent() -> None:
    start = replay([result(1, [0, 1], [1, 2])]).ratings
    rated = rate_game(result(2, [2, 1], [1, 2], hours=1), start, {V[2]: V[0]})
    assert rated.entries[0].inherited_from == V[0]
    assert rated.entries[0].elo_before == start[V[0]].elo


def test_idle_time_widens_the_deviation_before_the_next_game() -> None:
    start = replay([result(1, [0, 1], [1, 2])]).ratings
    soon = rate_game(result(2, [0, 1], [1, 2], hours=1), start).ratings[0]
    late = rate_game(result(2, [0, 1], [1, 2], hours=24 * 60), start).ratings[0]
    assert late.deviation > soon.deviation
    assert start[V[0]].deviation_at(T0 + timedelta(days=60)) > start[V[0]].deviation


def test_team_and_free_for_all_games() -> None:
    team = rate_game(result(1, [0, 1, 2, 3], [1, 2, 1, 2], teams=(0, 1, 0, 1)), {})
    assert [e.score for e in team.entries] == [1.0, 0.0, 1.0, 0.0]
    assert sum(e.elo_change for e in team.entries) == pytest.approx(0.0)
    ffa = rate_game(result(2, [4, 5, 6], [2, 1, 3]), {})
    assert [e.score for e in ffa.entries] == [0.5, 1.0, 0.0]


def test_a_version_cannot_change_game() -> None:
    start = replay([result(1, [0, 1], [1, 2])]).ratings
    other = GameResult(MatchId("m2"), GameName("scrumbrawl"), (V[0], V[1]), (1, 2), T0)
    with pytest.raises(InvalidResultError, match="rated in"):
        rate_game(other, start)


def test_a_match_cannot_be_rated_twice() -> None:
    with pytest.raises(InvalidResultError, match="twice"):
        replay([result(1, [0, 1], [1, 2]), result(1, [0, 1], [2, 1])])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"participants": (V[0],), "ranks": (1,)}, "at least two"),
        ({"participants": (V[0], V[0]), "ranks": (1, 2)}, "twice"),
        ({"participants": (V[0], V[1]), "ranks": (1,)}, "do not match"),
        ({"participants": (V[0], V[1]), "ranks": (0, 1)}, "1 or more"),
        ({"participants": (V[0], V[1], V[2], V[3]), "ranks": (1, 2, 2, 1), "teams": (0, 1, 0, 1)}, "share a rank"),
    ],
)
def test_malformed_results_raise(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidResultError, match=message):
        GameResult(match_id=MatchId("m"), game=SFB, played_at=T0, **kwargs)  # type: ignore[arg-type]


def test_naive_time_raises() -> None:
    with pytest.raises(InvalidResultError, match="timezone"):
        GameResult(MatchId("m"), SFB, (V[0], V[1]), (1, 2), datetime(2026, 1, 1))


@st.composite
def results(draw: st.DrawFn) -> list[GameResult]:
    count = draw(st.integers(1, 40))
    out = []
    hours = 0.0
    for i in range(count):
        n = draw(st.sampled_from([2, 2, 3, 4]))
        seats = draw(st.permutations(range(8)))[:n]
        ranks = draw(st.lists(st.integers(1, n), min_size=n, max_size=n))
        teams: tuple[int, ...] = ()
        if n == 4 and draw(st.booleans()):
            teams = (0, 1, 0, 1)
            ranks = [ranks[0], ranks[1], ranks[0], ranks[1]]
        hours += draw(st.floats(0, 72))
        out.append(result(i, list(seats), ranks, hours, teams))
    return out


parents_strategy = st.dictionaries(st.sampled_from(V[4:]), st.sampled_from(V[:4]), max_size=4)


@settings(max_examples=60, deadline=None)
@given(results(), parents_strategy, st.integers(0, 40))
def test_recompute_from_history_is_exact(
    games: list[GameResult], parents: dict[BotVersionId, BotVersionId], cut: int
) -> None:
    full = replay(games, parents)
    # Twice from scratch: identical to the last bit.
    assert replay(games, parents).entries == full.entries
    # Stored ratings (through JSON, as the web app keeps them) then the rest: identical.
    head = replay(games[:cut], parents)
    stored = {v: VersionRating.from_json(json.loads(json.dumps(r.to_json()))) for v, r in head.ratings.items()}
    tail = replay(games[cut:], parents, start=stored)
    assert head.entries + tail.entries == full.entries
    assert tail.ratings == full.ratings
    # The history rows alone (stored as JSON) give the current ratings, and chain per version.
    stored_rows = [HistoryEntry.from_json(json.loads(json.dumps(e.to_json()))) for e in full.entries]
    assert stored_rows == full.entries
    assert ratings_from_history(stored_rows) == full.ratings
    last: dict[BotVersionId, float] = {}
    for entry in full.entries:
        if entry.version in last:
            assert entry.elo_before == last[entry.version]
        last[entry.version] = entry.elo_after
        if entry.rank == 1 and entry.score == 1.0:
            assert entry.elo_after >= entry.elo_before


def test_result_json_round_trip() -> None:
    r = result(1, [0, 1, 2, 3], [1, 2, 1, 2], 3.5, teams=(0, 1, 0, 1))
    assert GameResult.from_json(json.loads(json.dumps(r.to_json()))) == r
    with pytest.raises(InvalidResultError, match="malformed"):
        GameResult.from_json({"match_id": "m"})
