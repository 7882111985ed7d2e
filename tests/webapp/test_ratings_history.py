"""The stored ratings are exactly ``ladder.history``'s: replay, ``brawl ratings verify`` and ``recompute``.

Matches are queued and finished through ``matches.services`` with real replays; only the clock
(Django's ``timezone.now``) is set by the test, so that matches are played at chosen times and an
idle gap can be made. The expected values come from ``ladder.history.replay`` over results the
test writes down itself, not from the service under test.

Partitions: duel win, duel draw, 4-player free-for-all with a tie, 2v2 teams; a version's first
game with a parent (prior) or without; a game after an idle gap; verify on a clean store, after a
history row or a rating row is tampered with, and after recompute; the same match recorded twice;
a seeded ladder.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from ladder.history import rate_game, replay
from ladder.ids import BotVersionId, GameName, MatchId
from ladder.results import GameResult
from referee.core.contract import Outcome, Termination
from referee.core.ids import Seat
from referee.core.registry import get_game
from referee.core.replay import Recorder, Replay
from tests.conformance.tinygame import TinyGame
from webapp import results
from webapp.bots import services as bot_services
from webapp.bots.models import Bot, BotVersion
from webapp.matches import services as match_services
from webapp.matches.models import Match
from webapp.rankings import cli, mapping
from webapp.rankings import services as rankings
from webapp.rankings.models import Rating, RatingHistory

from .conftest import GAME

T0 = datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)


class Clock:
    """The time ``timezone.now`` returns while a test plays matches."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    c = Clock()
    monkeypatch.setattr(timezone, "now", c)
    yield c


def vid(version: BotVersion) -> BotVersionId:
    return BotVersionId(str(version.pk))


class Ladder:
    """Plays rated matches at chosen times and writes down the results the test expects to be rated."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.results: list[GameResult] = []
        self.parents: dict[BotVersionId, BotVersionId] = {}

    def play(
        self,
        versions: list[BotVersion],
        ranks: tuple[int, ...],
        at: timedelta,
        *,
        game: str = GAME,
        config: dict[str, Any] | None = None,
        teams: tuple[int, ...] = (),
    ) -> Match:
        self.clock.now = T0 + at
        m = match_services.do_queue_match(game, versions, rated=True, config=config)
        engine = TinyGame() if game == GAME else get_game(game)
        rec = Recorder(engine, m.config, m.seed, [f"seat{i}" for i in range(len(versions))])
        rec.forfeit([Seat(i) for i, r in enumerate(ranks) if r != min(ranks)], "test result")
        replay_ = rec.finish()
        replay_.outcome = Outcome(ranks=ranks, termination=Termination.FORFEIT, reason="test result")
        match_services.do_start_match(m.pk, "ref-test")
        finished = results.do_finish_match(m.pk, replay_, referee_id="ref-test")
        self.results.append(
            GameResult(MatchId(str(m.pk)), GameName(game), tuple(vid(v) for v in versions), ranks, T0 + at, teams)
        )
        return finished


def stored_entries(game: str = GAME) -> list[Any]:
    return [mapping.history_entry(r) for r in RatingHistory.objects.filter(game=game).order_by("id")]


def stored_ratings(game: str = GAME) -> dict[BotVersionId, Any]:
    return {
        BotVersionId(str(r.bot_version_id)): mapping.version_rating(r)
        for r in Rating.objects.filter(game=game, games__gt=0)
    }


def run_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="brawl")
    cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["ratings", *argv])
    status: int = args.func(args)
    return status


@pytest.fixture
def season(make_bot: Callable[..., Bot], author: Any, other: Any, clock: Clock) -> Ladder:
    """Duels, a draw, a 4-player free-for-all with a tie, a new version with a prior, an idle gap."""
    a, b = make_bot(author, "anna"), make_bot(other, "bert")
    c, d = make_bot(author, "cleo"), make_bot(other, "dana")
    a1, b1, c1, d1 = (x.latest_version for x in (a, b, c, d))
    ladder = Ladder(clock)
    ladder.play([a1, b1], (1, 2), timedelta(0))
    ladder.play([c1, d1], (1, 1), timedelta(hours=1))
    ladder.play([b1, a1], (2, 1), timedelta(hours=2))
    ladder.play([a1, b1, c1, d1], (2, 1, 3, 3), timedelta(hours=3))
    a2 = bot_services.do_create_version(a, notes="v2")
    ladder.parents[vid(a2)] = vid(a1)
    ladder.play([c1, a2], (2, 1), timedelta(hours=4))
    ladder.play([b1, d1], (2, 1), timedelta(days=40))  # both idle for 40 days
    ladder.play([a2, b1, d1, c1], (1, 2, 3, 4), timedelta(days=40, hours=1))
    ladder.play([d1, a2], (1, 2), timedelta(days=41))
    return ladder


def test_stored_history_and_ratings_equal_the_replay_of_the_results(season: Ladder) -> None:
    expected = replay(season.results, season.parents, rankings.CONFIG)
    assert stored_entries() == expected.entries
    assert stored_ratings() == expected.ratings
    assert len(expected.entries) == 2 + 2 + 2 + 4 + 2 + 2 + 4 + 2


def test_a_new_version_starts_from_its_parents_rating(season: Ladder) -> None:
    a2 = next(iter(season.parents))
    first = RatingHistory.objects.filter(bot_version_id=int(a2)).order_by("id").first()
    assert first is not None
    parent_before = RatingHistory.objects.filter(bot_version_id=int(season.parents[a2]), id__lt=first.pk).last()
    assert parent_before is not None
    assert first.inherited_from_id == int(season.parents[a2]) and first.games_before == 0
    assert first.elo_before == parent_before.elo_after != 1500.0
    assert first.rd_before == max(parent_before.rd_after, rankings.CONFIG.new_version_deviation)
    assert first.k == rankings.CONFIG.k.k(0)
    row = Rating.objects.get(bot_version_id=int(a2))
    assert row.inherited_from_id == int(season.parents[a2])
    assert row.peak_elo == max(
        first.elo_before, *RatingHistory.objects.filter(bot_version=row.bot_version).values_list("elo_after", flat=True)
    )


def test_deviation_grows_over_an_idle_gap(season: Ladder) -> None:
    idle = season.results[5]
    before = replay(season.results[:5], season.parents, rankings.CONFIG).ratings
    played_at_once = rate_game(replace(idle, played_at=season.results[4].played_at), before, season.parents)
    stored = [e for e in stored_entries() if e.match_id == idle.match_id]
    assert [e.glicko_after.deviation for e in stored] == [
        e.glicko_after.deviation for e in rate_game(idle, before).entries
    ]
    assert all(
        s.glicko_after.deviation > quick.glicko_after.deviation
        for s, quick in zip(stored, played_at_once.entries, strict=True)
    )


def test_free_for_all_is_rated_pairwise(season: Ladder) -> None:
    ffa = season.results[3]
    rows = list(RatingHistory.objects.filter(match_id=int(ffa.match_id)).order_by("seat"))
    assert [r.rank for r in rows] == [2, 1, 3, 3]
    assert [r.score for r in rows] == [2 / 3, 1.0, 1 / 6, 1 / 6]
    assert rows[1].elo_after > rows[1].elo_before and rows[2].elo_after < rows[2].elo_before


def test_verify_passes_then_names_a_tampered_row(season: Ladder, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("verify", "--game", GAME) == 0
    assert "ok, 8 rated matches, 20 history rows, 5 rated versions" in capsys.readouterr().out

    row = RatingHistory.objects.order_by("id")[6]
    RatingHistory.objects.filter(pk=row.pk).update(elo_after=row.elo_after + 1e-9)
    assert run_cli("verify", "--game", GAME) == 1
    err = capsys.readouterr().err
    assert f"rating history row 7 (id {row.pk}, match {row.match_id}, version {row.bot_version_id})" in err
    assert "elo_after" in err and "stored but" in err


def test_verify_names_a_tampered_rating_and_recompute_repairs_it(
    season: Ladder, capsys: pytest.CaptureFixture[str]
) -> None:
    rating = Rating.objects.filter(game=GAME, games__gt=0).order_by("bot_version_id").last()
    assert rating is not None
    Rating.objects.filter(pk=rating.pk).update(glicko_volatility=0.07, wins=99)
    assert run_cli("verify", "--game", GAME) == 1
    assert f"rating of version {rating.bot_version_id}: glicko_volatility is 0.07 stored" in capsys.readouterr().err

    assert run_cli("recompute", "--game", GAME) == 0
    out = capsys.readouterr().out
    assert "rewrote 20 history rows and 5 ratings from 8 rated matches" in out and "differed first at" in out
    assert run_cli("verify", "--game", GAME) == 0
    expected = replay(season.results, season.parents, rankings.CONFIG)
    assert stored_entries() == expected.entries and stored_ratings() == expected.ratings
    assert Rating.objects.get(pk=rating.pk).wins == rating.wins


def test_verify_reports_a_rated_match_without_history(season: Ladder, capsys: pytest.CaptureFixture[str]) -> None:
    last = season.results[-1]
    RatingHistory.objects.filter(match_id=int(last.match_id)).delete()
    assert run_cli("verify", "--game", GAME) == 1
    assert f"match {last.match_id} is rated but has no stored history" in capsys.readouterr().err


def test_recording_the_same_match_twice_changes_nothing(season: Ladder) -> None:
    before_history = [mapping.history_entry(r) for r in RatingHistory.objects.order_by("id")]
    before_ratings = list(Rating.objects.order_by("id").values())
    match = Match.objects.get(pk=int(season.results[-1].match_id))
    with pytest.raises(match_services.MatchAlreadyFinal):
        results.do_finish_match(match.pk, Replay.loads(match.replay_bytes() or b""))
    with pytest.raises(rankings.AlreadyRated):
        rankings.do_apply_rated_match(match, list(match.seats.all()))
    assert [mapping.history_entry(r) for r in RatingHistory.objects.order_by("id")] == before_history
    assert list(Rating.objects.order_by("id").values()) == before_ratings


def test_two_versus_two_rates_teams(make_bot: Callable[..., Bot], author: Any, other: Any, clock: Clock) -> None:
    bots = [make_bot(author if i % 2 else other, f"team{i}", game="scrumbrawl") for i in range(4)]
    versions = [b.latest_version for b in bots]
    ladder = Ladder(clock)
    ladder.play(versions, (1, 2, 1, 2), timedelta(0), game="scrumbrawl", config={"teams": True}, teams=(0, 1, 0, 1))
    ladder.play(
        versions, (2, 1, 2, 1), timedelta(hours=5), game="scrumbrawl", config={"teams": True}, teams=(0, 1, 0, 1)
    )
    expected = replay(ladder.results, {}, rankings.CONFIG)
    assert stored_entries("scrumbrawl") == expected.entries
    assert stored_ratings("scrumbrawl") == expected.ratings
    first = list(RatingHistory.objects.filter(match_id=int(ladder.results[0].match_id)).order_by("seat"))
    assert [r.score for r in first] == [1.0, 0.0, 1.0, 0.0]
    assert [Rating.objects.get(bot_version=v).wins for v in versions] == [1, 1, 1, 1]
    assert run_cli("verify", "--game", "scrumbrawl") == 0


def test_a_seeded_ladder_verifies(db: Any, capsys: pytest.CaptureFixture[str]) -> None:
    call_command("seed_ladder", bots=8, matches=60, authors=3, prefix="rh", stdout=None)
    assert run_cli("verify") == 0
    out = capsys.readouterr().out
    assert "scrumbrawl: ok, 30 rated matches" in out and "superfantasybrawl: ok, 30 rated matches" in out


def test_current_ratings_give_a_new_version_its_prior(
    season: Ladder, make_bot: Callable[..., Bot], author: Any
) -> None:
    a2 = next(iter(season.parents))
    a3 = bot_services.do_create_version(BotVersion.objects.get(pk=int(a2)).bot, notes="v3")
    fresh = make_bot(author, "fresh").latest_version
    now = replay(season.results, season.parents, rankings.CONFIG).ratings
    got = rankings.current_ratings(GAME, [int(a2), a3.pk, fresh.pk])
    assert got[int(a2)] == now[a2]
    assert got[a3.pk].elo == now[a2].elo and got[a3.pk].inherited_from == a2 and got[a3.pk].games == 0
    assert got[a3.pk].deviation == max(now[a2].deviation, rankings.CONFIG.new_version_deviation)
    assert (got[fresh.pk].elo, got[fresh.pk].deviation, got[fresh.pk].inherited_from) == (1500.0, 350.0, None)


def test_verify_reads_one_snapshot_while_matches_are_recorded(
    transactional_db: Any, season: Ladder, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``brawl ratings verify`` on a live service: a rated match recorded between its read of the
    matches and its read of the stored history is not reported as corruption (it once was: the
    history then held rows the recomputation had no match for). The match is recorded through the
    services on another connection, committed, in the middle of the check."""
    from django.db import connection as main_connection
    from django.db import connections

    from webapp.rankings import audit

    assert main_connection.vendor == "postgresql", "the snapshot under test is PostgreSQL's"
    versions = [b.latest_version for b in Bot.objects.order_by("pk")[:2]]
    original = audit.recompute
    played: list[Match] = []

    def recompute_then_a_result_lands(game: str) -> Any:
        done = original(game)

        def record() -> None:
            try:
                played.append(season.play(versions, (1, 2), timedelta(days=42)))
            finally:
                connections.close_all()

        worker = threading.Thread(target=record)
        worker.start()
        worker.join(60)
        return done

    monkeypatch.setattr(audit, "recompute", recompute_then_a_result_lands)
    assert run_cli("verify", "--game", GAME) == 0, capsys.readouterr().err
    assert "ok, 8 rated matches" in capsys.readouterr().out  # the snapshot's, without the one recorded during it
    assert played and RatingHistory.objects.filter(match_id=played[0].pk).count() == 2
    monkeypatch.setattr(audit, "recompute", original)
    assert run_cli("verify", "--game", GAME) == 0  # and the next check sees it, consistently
    assert "ok, 9 rated matches" in capsys.readouterr().out
