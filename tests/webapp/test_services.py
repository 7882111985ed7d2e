"""Service-layer tests: results recorded exactly once, idempotent starts, tokens, the token store.

Partitions: match rated or unrated; reported once or twice; request id new or reused; token valid,
revoked or unknown; bot active or not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from django.db import IntegrityError, transaction

from referee.core.replay import Replay, verify
from tests.webapp.conftest import GAME, forced_replay
from webapp import results
from webapp.bots import services as bot_services
from webapp.bots.models import Bot, BotToken
from webapp.bots.token_store import DjangoTokenStore
from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchStatus
from webapp.rankings.models import Rating, RatingHistory

pytestmark = pytest.mark.django_db(transaction=True)


def test_finishing_stores_a_replay_that_verifies(rated_match: Match) -> None:
    assert rated_match.status == MatchStatus.FINISHED
    replay = Replay.loads(rated_match.replay_bytes() or b"")
    verify(replay)
    assert [s.rank for s in rated_match.seats.order_by("seat")] == list(replay.outcome.ranks)  # type: ignore[union-attr]


def test_rated_match_updates_ratings_once(rated_match: Match) -> None:
    history = list(RatingHistory.objects.filter(match=rated_match))
    assert len(history) == 2
    with pytest.raises(match_services.MatchAlreadyFinal):
        results.do_finish_match(rated_match.pk, Replay.loads(rated_match.replay_bytes() or b""))
    assert RatingHistory.objects.filter(match=rated_match).count() == 2
    ratings = Rating.objects.filter(bot_version_id__in=[h.bot_version_id for h in history])
    assert sorted(r.games for r in ratings) == [1, 1]


def test_database_refuses_a_second_history_row(rated_match: Match) -> None:
    h = RatingHistory.objects.filter(match=rated_match).first()
    assert h is not None
    with pytest.raises(IntegrityError), transaction.atomic():
        RatingHistory.objects.create(
            match=rated_match,
            bot_version_id=h.bot_version_id,
            game=GAME,
            elo_before=1,
            elo_after=2,
            glicko_before=1,
            glicko_after=2,
            rd_before=1,
            rd_after=1,
            rank=1,
        )


def test_win_and_loss_move_elo_in_opposite_directions(make_bot: Callable[..., Bot], author, other) -> None:
    a, b = make_bot(author, "winner"), make_bot(other, "loser")
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=True)
    results.do_finish_match(m.pk, forced_replay(m, (1, 2)))
    ra = Rating.objects.get(bot_version=a.latest_version)
    rb = Rating.objects.get(bot_version=b.latest_version)
    assert ra.elo > 1500 > rb.elo
    assert (ra.wins, ra.losses, rb.wins, rb.losses) == (1, 0, 0, 1)
    assert ra.peak_elo == ra.elo and rb.peak_elo == 1500


def test_unrated_match_leaves_ratings_alone(make_bot, author, other, finish) -> None:
    a, b = make_bot(author, "a1"), make_bot(other, "b1")
    m = finish(match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False))
    assert not RatingHistory.objects.filter(match=m).exists()


def test_request_id_makes_queueing_idempotent(make_bot, author, other) -> None:
    a, b = make_bot(author, "a2"), make_bot(other, "b2")
    one = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=True, request_id="req-1")
    two = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=True, request_id="req-1")
    assert one.pk == two.pk and Match.objects.count() == 1


def test_referee_record_lands_on_seats(make_bot, author, other, finish) -> None:
    a, b = make_bot(author, "a3"), make_bot(other, "b3")
    m = finish(match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False), incidents=True)
    seats = list(m.seats.order_by("seat"))
    assert sum(s.timeouts for s in seats) == 1
    assert all(s.mean_latency_ms is not None for s in seats)
    assert m.incidents and m.incidents[0]["kind"] == "timeout"
    first = seats[0].latency_summary()
    assert first["max_ms"] >= first["p95_ms"] >= 0 and first["max_ms"] >= first["mean_ms"]
    assert first["decisions"] == seats[0].timed_decisions > 0


def test_token_is_hashed_and_authenticates_until_revoked(make_bot, author) -> None:
    bot = make_bot(author, "tok")
    issued = bot_services.do_issue_token(bot, revoke_others=True)
    row = BotToken.objects.get(pk=issued.record.pk)
    assert issued.token not in (row.token_hash, row.prefix) and row.token_hash == bot_services.hash_token(issued.token)
    store = DjangoTokenStore()
    identity = asyncio.run(store.authenticate(issued.token))
    assert identity is not None and identity.bot_id == str(bot.pk) and identity.may_play(GAME)
    assert asyncio.run(store.authenticate(issued.token + "x")) is None
    assert asyncio.run(store.authenticate("")) is None
    bot_services.do_revoke_token(row)
    assert asyncio.run(store.authenticate(issued.token)) is None


def test_rotation_revokes_earlier_tokens(make_bot, author) -> None:
    bot = make_bot(author, "rot")
    first = bot_services.do_issue_token(bot)
    bot_services.do_issue_token(bot, revoke_others=True)
    assert asyncio.run(DjangoTokenStore().authenticate(first.token)) is None


def test_inactive_bot_cannot_authenticate(make_bot, author) -> None:
    bot = make_bot(author, "sleepy")
    issued = bot_services.do_issue_token(bot)
    bot_services.do_update_bot(bot, active=False)
    assert asyncio.run(DjangoTokenStore().authenticate(issued.token)) is None


def test_versions_are_numbered_consecutively(make_bot, author) -> None:
    bot = make_bot(author, "ver")
    v2 = bot_services.do_create_version(bot, "two")
    bot.refresh_from_db()
    assert v2.number == 2 and bot.latest_version_id == v2.pk
    assert Rating.objects.filter(bot_version=v2, game=GAME).exists()


def test_staged_replay_is_kept_once_and_recorded_later(make_bot, author, other) -> None:
    from tests.webapp.conftest import play_replay

    a, b = make_bot(author, "st1"), make_bot(other, "st2")
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=True)
    match_services.do_start_match(m.pk, "ref-1")
    replay = play_replay(m)
    assert match_services.do_stage_result(m.pk, replay.encode()) is True
    assert match_services.do_stage_result(m.pk, replay.encode()) is False
    staged = Match.objects.get(pk=m.pk)
    assert staged.status == MatchStatus.RUNNING and Replay.loads(staged.replay_bytes() or b"").seed == m.seed
    results.do_finish_match(m.pk, replay)
    assert match_services.do_stage_result(m.pk, replay.encode()) is False
    assert RatingHistory.objects.filter(match=m).count() == 2


def test_advance_tournament_replays_failed_games_a_bounded_number_of_times(organizer, make_bot) -> None:
    from django.contrib.auth.models import User

    from webapp.tournaments import services as t
    from webapp.tournaments.models import Tournament

    tour = t.do_create_tournament(organizer, name="adv", game=GAME, format="single_elim")
    t.do_open_registration(tour)
    for i in range(2):
        bot = make_bot(User.objects.create_user(f"adv{i}"), f"advbot{i}")
        t.do_approve_entrant(t.do_register_entrant(tour, bot.latest_version), True, seed=i + 1)
    t.do_start_tournament(tour)
    for attempt in range(5):
        live = Match.objects.get(tournament=tour, status=MatchStatus.QUEUED)
        match_services.do_fail_match(live.pk, f"referee lost it ({attempt})")
        queued = t.do_advance_tournament(tour.pk, max_replays=3)
        if attempt < 3:
            assert len(queued) == 1 and queued[0].replaces_id == live.pk
        else:
            assert queued == []
            break
    assert Tournament.objects.get(pk=tour.pk).status == "running"
