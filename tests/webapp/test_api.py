"""API tests: every endpoint, with the permission partitions.

Partitions: caller anonymous, author of the object, another author, organizer; object public or
not (unpublished tournament); quota left or spent; valid or invalid input.
"""

from __future__ import annotations

import gzip
import json
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from referee.core.replay import Replay, verify
from tests.webapp.conftest import GAME, client_for
from webapp.bots.models import Bot, BotToken
from webapp.matches import services as match_services
from webapp.matches.models import Match
from webapp.tournaments import services as t_services

pytestmark = pytest.mark.django_db


# Games: anyone reads.
def test_games_list_and_detail(anon: APIClient) -> None:
    listed = anon.get("/api/v1/games/").json()
    assert GAME in [g["name"] for g in listed]
    assert anon.get(f"/api/v1/games/{GAME}/").json()["title"] == "Tiny Game"
    assert anon.get("/api/v1/games/nope/").status_code == 404


# Bots: anonymous reads, authors create, only the owner changes.
def test_anonymous_reads_bots_but_cannot_create(anon, make_bot, author) -> None:
    make_bot(author, "alpha")
    body = anon.get("/api/v1/bots/", {"game": GAME}).json()
    assert body["count"] == 1 and body["results"][0]["owner"] == "alice"
    assert anon.post("/api/v1/bots/", {"game": GAME, "name": "x1"}).status_code in (401, 403)


def test_author_creates_bot_and_sees_token_once(author_client) -> None:
    r = author_client.post("/api/v1/bots/", {"game": GAME, "name": "newbot", "description": "d"})
    assert r.status_code == 201, r.content
    token = r.json()["token"]["token"]
    assert token.startswith("brawl_") and "once" in r.json()["token"]["warning"]
    bot_id = r.json()["bot"]["id"]
    listed = author_client.get(f"/api/v1/bots/{bot_id}/tokens/").json()
    assert len(listed) == 1 and "token" not in listed[0] and token.startswith(listed[0]["prefix"])
    assert token not in json.dumps(author_client.get(f"/api/v1/bots/{bot_id}/").json())


def test_create_bot_rejects_unknown_game_and_duplicate_name(author_client, make_bot, other) -> None:
    make_bot(other, "taken")
    bad_game = author_client.post("/api/v1/bots/", {"game": "chess", "name": "zz"})
    assert bad_game.status_code == 400 and bad_game.json()["code"] == "unknown_game"
    dup = author_client.post("/api/v1/bots/", {"game": GAME, "name": "taken"})
    assert dup.status_code == 409 and dup.json()["code"] == "name_taken"


def test_owner_updates_bot_other_author_cannot(author_client, other_client, make_bot, author) -> None:
    bot = make_bot(author, "mine")
    assert author_client.patch(f"/api/v1/bots/{bot.pk}/", {"description": "new"}).json()["description"] == "new"
    assert other_client.patch(f"/api/v1/bots/{bot.pk}/", {"description": "hack"}).status_code == 403
    assert Bot.objects.get(pk=bot.pk).description == "new"


@pytest.mark.parametrize(
    ("method", "suffix", "data"),
    [
        ("get", "tokens/", None),
        ("post", "rotate-token/", {}),
        ("post", "revoke-token/", {}),
        ("post", "versions/", {"notes": "x"}),
        ("post", "challenge/", {"opponent": 0}),
    ],
)
def test_other_author_cannot_touch_bot(other_client, anon, make_bot, author, method, suffix, data) -> None:
    bot = make_bot(author, "guarded")
    assert getattr(other_client, method)(f"/api/v1/bots/{bot.pk}/{suffix}", data).status_code == 403
    assert getattr(anon, method)(f"/api/v1/bots/{bot.pk}/{suffix}", data).status_code in (401, 403)


def test_rotate_and_revoke_tokens(author_client, make_bot, author) -> None:
    bot = make_bot(author, "rotor")
    r = author_client.post(f"/api/v1/bots/{bot.pk}/rotate-token/")
    assert r.status_code == 201 and r.json()["token"].startswith("brawl_")
    assert BotToken.objects.filter(bot=bot, revoked_at__isnull=True).count() == 1
    tid = BotToken.objects.get(bot=bot, revoked_at__isnull=True).pk
    listed = author_client.post(f"/api/v1/bots/{bot.pk}/revoke-token/", {"token_id": tid}).json()
    assert all(not t["is_active"] for t in listed)


def test_versions_list_and_create(author_client, anon, make_bot, author) -> None:
    bot = make_bot(author, "versioned")
    r = author_client.post(f"/api/v1/bots/{bot.pk}/versions/", {"notes": "faster"})
    assert r.status_code == 201 and r.json()["number"] == 2
    assert [v["number"] for v in anon.get(f"/api/v1/bots/{bot.pk}/versions/").json()] == [2, 1]


# Challenges: any active bot, house bots included; a daily limit that says when it resets.
@override_settings(BRAWL_CHALLENGES_PER_DAY=2)
def test_challenge_limit_says_when_it_resets(author_client, make_bot, author, organizer) -> None:
    mine = make_bot(author, "challenger")
    house = make_bot(organizer, "house1", house=True)
    for _ in range(2):
        r = author_client.post(f"/api/v1/bots/{mine.pk}/challenge/", {"opponent": house.pk})
        assert r.status_code == 201 and r.json()["rated"] is False and r.json()["status"] == "queued"
    assert r["X-Challenges-Remaining"] == "0"
    refused = author_client.post(f"/api/v1/bots/{mine.pk}/challenge/", {"opponent": house.pk})
    assert refused.status_code == 429
    body = refused.json()
    assert body["code"] == "limit_reached" and body["retry_after"] >= 1 and "resets_at" in body
    assert int(refused["Retry-After"]) == body["retry_after"]
    assert "midnight UTC" in body["detail"]


def test_challenge_refuses_other_game_and_self(author_client, make_bot, author, other) -> None:
    mine = make_bot(author, "selfish")
    assert author_client.post(f"/api/v1/bots/{mine.pk}/challenge/", {"opponent": mine.pk}).status_code == 400


def test_me(author_client, anon) -> None:
    assert author_client.get("/api/v1/me/").json()["username"] == "alice"
    assert anon.get("/api/v1/me/").status_code in (401, 403)


# Throttling: machine-readable retry information.
def test_throttled_requests_carry_retry_after(anon) -> None:
    from rest_framework.settings import api_settings
    from rest_framework.throttling import AnonRateThrottle

    rates = {**api_settings.DEFAULT_THROTTLE_RATES, "anon": "3/minute"}
    old = AnonRateThrottle.THROTTLE_RATES
    AnonRateThrottle.THROTTLE_RATES = rates
    try:
        codes = [anon.get("/api/v1/games/").status_code for _ in range(4)]
    finally:
        AnonRateThrottle.THROTTLE_RATES = old
    assert codes == [200, 200, 200, 429]
    r = anon.get("/api/v1/bots/")
    assert r.status_code == 200  # the class attribute is restored, so the limit is lifted


def test_throttle_body_and_header(anon) -> None:
    from rest_framework.throttling import AnonRateThrottle

    old = AnonRateThrottle.THROTTLE_RATES
    AnonRateThrottle.THROTTLE_RATES = {**old, "anon": "1/hour"}
    try:
        anon.get("/api/v1/games/")
        r = anon.get("/api/v1/games/")
    finally:
        AnonRateThrottle.THROTTLE_RATES = old
    assert r.status_code == 429
    assert r.json()["code"] == "throttled" and 0 < r.json()["retry_after"] <= 3600
    assert r["Retry-After"] == str(r.json()["retry_after"])


# Ratings and history.
def test_leaderboard_and_history(anon, rated_match) -> None:
    board = anon.get("/api/v1/ratings/", {"game": GAME}).json()
    assert [row["rank"] for row in board["results"]] == [1, 2]
    assert board["results"][0]["elo"] >= board["results"][1]["elo"]
    bot_id = board["results"][0]["bot_id"]
    history = anon.get("/api/v1/rating-history/", {"bot": bot_id}).json()
    assert history["count"] == 1 and history["results"][0]["match"] == rated_match.pk
    assert anon.get("/api/v1/rating-history/", {"bot": "x"}).status_code == 400


def test_leaderboard_active_filter(anon, rated_match) -> None:
    Bot.objects.filter(name="beta").update(active=False)
    assert [r["bot"] for r in anon.get("/api/v1/ratings/", {"game": GAME}).json()["results"]] == ["alpha"]
    assert [r["bot"] for r in anon.get("/api/v1/ratings/", {"game": GAME, "active": "false"}).json()["results"]] == [
        "beta"
    ]


# Matches, replays, frames.
def test_match_list_detail_filters(anon, rated_match) -> None:
    listed = anon.get("/api/v1/matches/", {"game": GAME, "status": "finished"}).json()
    assert len(listed["results"]) == 1 and listed["results"][0]["has_replay"] is True
    alpha = Bot.objects.get(name="alpha")
    mine = anon.get("/api/v1/matches/", {"bot": alpha.pk}).json()
    assert len(mine["results"]) == 1 and mine["next"] is None  # keyset pages carry no count
    assert anon.get("/api/v1/matches/", {"bot": alpha.pk, "page": 1}).json()["count"] == 1  # the numbered form does
    detail = anon.get(f"/api/v1/matches/{rated_match.pk}/").json()
    assert detail["seed"] == 7 and len(detail["seats"]) == 2 and "incidents" in detail
    # Latency is stored on the seats; the detail's per-seat object is built from them (same names as before).
    seats = {str(s.seat): s for s in Match.objects.get(pk=rated_match.pk).seats.all()}
    assert set(detail["latency"]) == set(seats)
    for seat, figures in detail["latency"].items():
        listed_mean = next(s["mean_latency_ms"] for s in detail["seats"] if str(s["seat"]) == seat)
        if listed_mean is None:
            assert figures == {}
        else:
            assert figures == {
                "mean_ms": round(listed_mean, 1),
                "p95_ms": seats[seat].p95_latency_ms,
                "max_ms": seats[seat].max_latency_ms,
                "decisions": seats[seat].timed_decisions,
            }
    won = len(anon.get("/api/v1/matches/", {"bot": alpha.pk, "result": "win"}).json()["results"])
    lost = len(anon.get("/api/v1/matches/", {"bot": alpha.pk, "result": "loss"}).json()["results"])
    drawn = len(anon.get("/api/v1/matches/", {"bot": alpha.pk, "result": "draw"}).json()["results"])
    assert won + lost + drawn == 1


def test_replay_download_verifies(anon, rated_match) -> None:
    r = anon.get(f"/api/v1/matches/{rated_match.pk}/replay/")
    assert r.status_code == 200 and "attachment" in r["Content-Disposition"]
    verify(Replay.loads(r.content))
    gz = anon.get(f"/api/v1/matches/{rated_match.pk}/replay/", {"gz": "1"})
    assert Replay.loads(gzip.decompress(gz.content)).seed == 7
    # The gzip download is the stored Replay.encode bytes, not a second compression.
    stored = Match.objects.get(pk=rated_match.pk).replay_stored()
    assert gz.content == stored == Replay.loads(r.content).encode()


def test_frames_resimulate_spectator_view(anon, rated_match) -> None:
    replay = Replay.loads(rated_match.replay_bytes() or b"")
    body = anon.get(f"/api/v1/matches/{rated_match.pk}/frames/").json()
    assert body["total"] == len(replay.decisions) + 1 == len(body["frames"])
    assert (
        body["frames"][0]["decision"] is None
        and body["frames"][1]["decision"]["option_id"] == replay.decisions[0].option_id
    )
    # Spectator frames never carry a private event or a hand.
    assert all("to" not in e for f in body["frames"] for e in f["events"])
    assert all(f["observation"]["my_hand"] == [] for f in body["frames"])
    # Together the frames' events are exactly the replay's public event log.
    # Each carries its sentence for the viewer (the test game has none of its own: spelled out).
    assert [{k: v for k, v in e.items() if k != "text"} for f in body["frames"] for e in f["events"]] == replay.events
    assert all(e["text"] for f in body["frames"] for e in f["events"])
    page = anon.get(f"/api/v1/matches/{rated_match.pk}/frames/", {"start": 2, "limit": 3}).json()
    assert [f["index"] for f in page["frames"]] == [2, 3, 4]
    assert page["frames"][0]["events"] == body["frames"][2]["events"]


def test_frames_and_replay_404_without_replay(anon, make_bot, author, other) -> None:
    a, b = make_bot(author, "q1"), make_bot(other, "q2")
    m = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=False)
    assert anon.get(f"/api/v1/matches/{m.pk}/frames/").status_code == 404
    assert anon.get(f"/api/v1/matches/{m.pk}/replay/").status_code == 404


# Tournaments: only organizers run them; anonymous users see published ones only.
def _create(client: APIClient, **extra: object):
    body = {
        "name": "Cup",
        "game": GAME,
        "format": "double_elim",
        "best_of": 3,
        "time_control": {"per_decision_ms": 500},
    }
    body.update(extra)
    return client.post("/api/v1/tournaments/", body, format="json")


def test_only_organizers_create_tournaments(author_client, anon, organizer_client) -> None:
    assert _create(author_client).status_code == 403
    assert _create(anon).status_code in (401, 403)
    r = _create(organizer_client)
    assert r.status_code == 201 and r.json()["status"] == "draft" and r.json()["best_of"] == 3
    assert _create(organizer_client, best_of=2).status_code == 409


def test_unpublished_tournaments_are_hidden(anon, organizer_client) -> None:
    tid = _create(organizer_client).json()["id"]
    assert anon.get(f"/api/v1/tournaments/{tid}/").status_code == 404
    assert organizer_client.post(f"/api/v1/tournaments/{tid}/publish/", {"published": True}).status_code == 200
    assert anon.get(f"/api/v1/tournaments/{tid}/").json()["published"] is True


@pytest.mark.parametrize(
    "verb", ["open-registration", "approve", "start", "pause", "resume", "publish", "replay-match"]
)
def test_authors_cannot_run_tournaments(author_client, organizer_client, verb) -> None:
    tid = _create(organizer_client).json()["id"]
    assert author_client.post(f"/api/v1/tournaments/{tid}/{verb}/", {}).status_code == 403


def test_registration_and_approval(author_client, other_client, organizer_client, make_bot, author) -> None:
    now = timezone.now()
    tid = _create(
        organizer_client,
        registration_opens=(now - timedelta(hours=1)).isoformat(),
        registration_closes=(now + timedelta(hours=1)).isoformat(),
    ).json()["id"]
    bot = make_bot(author, "entrant")
    organizer_client.post(f"/api/v1/tournaments/{tid}/publish/", {"published": True})
    assert author_client.post(f"/api/v1/tournaments/{tid}/register/", {"bot": bot.pk}).status_code == 409  # draft
    assert organizer_client.post(f"/api/v1/tournaments/{tid}/open-registration/").json()["status"] == "registration"
    assert other_client.post(f"/api/v1/tournaments/{tid}/register/", {"bot": bot.pk}).status_code == 403
    entry = author_client.post(f"/api/v1/tournaments/{tid}/register/", {"bot": bot.pk})
    assert entry.status_code == 201 and entry.json()["approved"] is False
    approved = organizer_client.post(f"/api/v1/tournaments/{tid}/approve/", {"entrant": entry.json()["id"], "seed": 1})
    assert approved.json()["approved"] is True and approved.json()["seed"] == 1
    assert len(author_client.get(f"/api/v1/tournaments/{tid}/entrants/").json()) == 1


def test_pause_resume_need_the_right_status(organizer_client) -> None:
    tid = _create(organizer_client).json()["id"]
    r = organizer_client.post(f"/api/v1/tournaments/{tid}/pause/")
    assert r.status_code == 409 and r.json()["code"] == "wrong_status"


def test_bracket_endpoint_groups_series(anon, organizer, make_bot, author, other, finish) -> None:
    t = t_services.do_create_tournament(organizer, name="DE", game=GAME, format="double_elim", best_of=1)
    t_services.do_publish_tournament(t)
    a, b = make_bot(author, "ba"), make_bot(other, "bb")
    m = match_services.do_queue_match(
        GAME,
        [a.latest_version, b.latest_version],
        rated=False,
        tournament_id=t.pk,
        tournament_round=1,
        tournament_slot="W1-1",
    )
    finish(m)
    body = anon.get(f"/api/v1/tournaments/{t.pk}/bracket/").json()
    assert body["format"] == "double_elim" and body["series"][0]["slot"] == "W1-1"
    assert body["layout"]["boxes"][0]["series"]["games"][0]["match"] == m.pk


def test_schema_and_docs(anon) -> None:
    schema = anon.get("/api/schema/", {"format": "json"})
    assert schema.status_code == 200 and "/api/v1/matches/{id}/frames/" in schema.json()["paths"]
    docs = anon.get("/api/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()


def test_token_auth_header_works(author, make_bot) -> None:
    from webapp.accounts.services import do_rotate_api_token

    key = do_rotate_api_token(author)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/me/").json()["username"] == "alice"
    assert client_for(None).get("/api/v1/me/").status_code in (401, 403)


def test_frames_have_their_own_rate(anon, rated_match) -> None:
    from webapp.matches.views import FramesThrottle

    old = FramesThrottle.THROTTLE_RATES
    FramesThrottle.THROTTLE_RATES = {**old, "frames": "2/hour"}
    try:
        codes = [anon.get(f"/api/v1/matches/{rated_match.pk}/frames/").status_code for _ in range(3)]
        limited = anon.get(f"/api/v1/matches/{rated_match.pk}/frames/")
    finally:
        FramesThrottle.THROTTLE_RATES = old
    assert codes == [200, 200, 429] and limited.json()["retry_after"] > 0
    assert anon.get(f"/api/v1/matches/{rated_match.pk}/").status_code == 200


def test_frames_are_gzipped_and_pages_are_not(anon, rated_match) -> None:
    frames = anon.get(f"/api/v1/matches/{rated_match.pk}/frames/", HTTP_ACCEPT_ENCODING="gzip")
    assert frames["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(frames.content))["total"] > 1
    again = anon.get(f"/api/v1/matches/{rated_match.pk}/frames/", HTTP_ACCEPT_ENCODING="gzip")
    assert gzip.decompress(again.content) == gzip.decompress(frames.content)  # served from the cache
    detail = anon.get(f"/api/v1/matches/{rated_match.pk}/", HTTP_ACCEPT_ENCODING="gzip")
    assert not detail.has_header("Content-Encoding")
