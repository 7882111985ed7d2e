"""The recording logic and the services it relies on, called directly (no processes): each path of a staged result.

Partitions: staged replay absent, valid, cancelled, not fitting the match; match running, final;
staging once or again; a lost match running without a result, with a staged result, or finished;
a tournament game failed under, at and over the replay limit.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from referee.core.contract import Outcome, Termination
from referee.core.ids import Seat
from referee.core.registry import register
from referee.core.replay import Recorder, Replay
from tests.conformance.tinygame import TinyGame
from webapp.bots import services as bot_services
from webapp.bots.models import BotVersion
from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchStatus
from webapp.rankings.models import Rating, RatingHistory
from webapp.tournaments import services as tournament_services
from workers.recording import record_result, record_staged, replace_lost

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_dispatch")]

GAME = "tinygame"
register(TinyGame())


@pytest.fixture
def no_dispatch(settings):  # type: ignore[no-untyped-def]
    """Queued matches stay in the table: these tests drive every step themselves."""
    settings.BRAWL_DISPATCH = "none"


def versions(n: int = 2) -> list[BotVersion]:
    owner = User.objects.create_user(f"owner{User.objects.count()}")
    out = []
    for i in range(n):
        bot, _ = bot_services.do_create_bot(owner, GAME, f"bot{owner.pk}-{i}")
        bot.refresh_from_db()
        out.append(BotVersion.objects.get(pk=bot.latest_version_id))
    return out


def running_match(rated: bool = True) -> Match:
    match = match_services.do_queue_match(GAME, versions(), rated=rated)
    return match_services.do_start_match(match.pk, "127.0.0.1:1")


def replay_for(match: Match, ranks: tuple[int, ...] = (1, 2), seats: int = 2) -> Replay:
    rec = Recorder(TinyGame(), match.config, match.seed, [f"seat{i}" for i in range(seats)])
    rec.forfeit([Seat(i) for i, r in enumerate(ranks) if r != 1], "test result")
    return rec.finish()


def test_a_staged_result_is_recorded_once_and_only_once() -> None:
    match = running_match()
    assert record_staged(match.pk) == "not-staged"
    assert match_services.do_stage_result(match.pk, replay_for(match).encode()) is True
    assert match_services.do_stage_result(match.pk, replay_for(match, (2, 1)).encode()) is False  # the first one stays
    assert record_staged(match.pk) == "recorded"
    assert record_staged(match.pk) == "final"
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED
    assert [s.rank for s in match.seats.order_by("seat")] == [1, 2]
    assert RatingHistory.objects.filter(match=match).count() == 2
    assert sorted(Rating.objects.values_list("games", flat=True)) == [1, 1]
    assert match_services.do_stage_result(match.pk, replay_for(match).encode()) is False  # final: nothing staged


def test_a_referees_result_is_recorded_once_however_often_it_is_delivered() -> None:
    """``record_result`` is what the referee's broker message runs: staging and recording in one go."""
    match = running_match()
    data = replay_for(match).encode()
    assert record_result(str(match.pk), data) == "recorded"
    assert record_result(str(match.pk), data) == "final"  # a duplicate delivery
    assert record_result(str(match.pk), replay_for(match, (2, 1)).encode()) == "final"  # a different late one
    match.refresh_from_db()
    assert [s.rank for s in match.seats.order_by("seat")] == [1, 2]
    assert RatingHistory.objects.filter(match=match).count() == 2
    assert Replay.decode(match.replay_bytes() or b"").dumps() == Replay.decode(data).dumps()


def test_a_result_is_found_by_request_id_and_unknown_or_unreadable_ones_are_refused() -> None:
    match = running_match()
    Match.objects.filter(pk=match.pk).update(request_id="req-7")
    assert record_result("req-7", replay_for(match).encode()) == "recorded"
    assert record_result("no-such-match", replay_for(match).encode()) == "unknown"
    broken = running_match()
    assert record_result(str(broken.pk), b"\x1f\x8bnot gzip at all") == "unreadable"
    broken.refresh_from_db()
    assert broken.status == MatchStatus.FAILED and "cannot be read" in broken.failure
    assert record_result(str(broken.pk), replay_for(broken).encode()) == "final"  # failed stays failed
    assert not RatingHistory.objects.filter(match=broken).exists()


def test_a_cancelled_outcome_counts_for_nobody() -> None:
    match = running_match()
    replay = replay_for(match, (1, 1))
    replay.outcome = Outcome(ranks=(1, 1), termination=Termination.CANCELLED, reason="no bot connected within 10 s")
    match_services.do_stage_result(match.pk, replay.encode())
    assert record_staged(match.pk) == "cancelled"
    match.refresh_from_db()
    assert match.status == MatchStatus.CANCELLED
    assert "no bot connected" in match.failure
    assert not RatingHistory.objects.exists()


def test_a_replay_that_does_not_fit_the_match_fails_it_visibly() -> None:
    match = running_match()
    three = match_services.do_queue_match(GAME, versions(3), rated=False)
    match_services.do_stage_result(match.pk, replay_for(three, (1, 2, 3), seats=3).encode())
    assert record_staged(match.pk) == "unreadable"
    match.refresh_from_db()
    assert match.status == MatchStatus.FAILED
    assert not RatingHistory.objects.exists()


def test_a_corrupt_staged_replay_fails_the_match_with_the_reason() -> None:
    match = running_match()
    Match.objects.filter(pk=match.pk).update(replay_gz=b"\x1f\x8b" + b"\x00" * 20)
    assert record_staged(match.pk) == "unreadable"
    match.refresh_from_db()
    assert match.status == MatchStatus.FAILED and "corrupt" in match.failure


def test_replacing_a_lost_match_leaves_staged_and_finished_ones_alone() -> None:
    lost = running_match()
    replacement = replace_lost(lost.pk, "referee does not know the match")
    assert replacement is not None and replacement.replaces_id == lost.pk
    assert replacement.status == MatchStatus.QUEUED
    lost.refresh_from_db()
    assert lost.status == MatchStatus.RESCHEDULED
    assert replace_lost(lost.pk, "again") is None  # no longer running
    staged = running_match()
    match_services.do_stage_result(staged.pk, replay_for(staged).encode())
    assert replace_lost(staged.pk, "slow referee") is None  # its result will be recorded instead
    assert record_staged(staged.pk) == "recorded"
    assert replace_lost(staged.pk, "too late") is None


def test_advancing_a_tournament_replays_failed_games_up_to_the_limit() -> None:
    organizer = User.objects.create_user("olga", is_staff=True)
    t = tournament_services.do_create_tournament(organizer, name="Cup", game=GAME, format="single_elim")
    tournament_services.do_open_registration(t)
    for v in versions(2):
        tournament_services.do_approve_entrant(tournament_services.do_register_entrant(t, v))
    tournament_services.do_start_tournament(t)
    assert tournament_services.do_advance_tournament(t.pk) == []  # nothing failed, nothing more is ready
    for attempt in range(1, 5):
        current = t.matches.get(status=MatchStatus.QUEUED)
        match_services.do_fail_match(current.pk, f"referee lost it ({attempt})")
        replayed = tournament_services.do_advance_tournament(t.pk, max_replays=3)
        assert len(replayed) == (1 if attempt <= 3 else 0), attempt
        if not replayed:
            break
        assert replayed[0].replaces_id == current.pk
    assert t.matches.filter(status=MatchStatus.FAILED).count() == 1
    assert t.matches.filter(status=MatchStatus.RESCHEDULED).count() == 3
