"""Fair play on the web tier (issue 11): secrets stay secret, limits hold, bad input gets a 4xx.

Partitions:
* a match's life: queued, running, running with its replay staged, final; alone or sharing its
  seed with another match (a mirrored set) that is or is not final; every door that could show
  the seed: API detail and list, replay, frames, match page, admin (as staff), my replays zip;
* the client's address: no trusted proxy (the default), a trusted proxy, a chain with a forged
  left part, garbage in the header;
* sign-ins: below and at the account and address limits, the right password during a lockout,
  the login page and HTTP Basic on the token endpoint;
* bad input: ids out of range, non-numbers, deep JSON, bodies over the limit, text over its
  length limit, time controls and round caps out of bounds, unknown URLs; API (JSON) and pages (HTML).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client, RequestFactory, override_settings
from rest_framework.test import APIClient

from referee.core.fairness import check_commitment, seed_commitment
from tests.webapp.conftest import GAME, play_replay
from webapp import errors
from webapp.api import MAX_ID
from webapp.bots.models import DESCRIPTION_MAX_CHARS, Bot
from webapp.matches import framestore
from webapp.matches import services as match_services
from webapp.matches.models import Match
from webapp.middleware import client_address, parse_networks
from webapp.tournaments import services as t_services

pytestmark = pytest.mark.django_db

SECRET_SEED = 6_661_234_567_890_123_457
"""A seed whose decimal form cannot appear in a page by chance."""


def queued(make_bot: Callable[..., Bot], a: User, b: User, seed: int = SECRET_SEED, tag: str = "") -> Match:
    x = make_bot(a, f"x{tag}")
    y = make_bot(b, f"y{tag}")
    return match_services.do_queue_match(GAME, [x.latest_version, y.latest_version], rated=False, seed=seed)


def seed_texts(seed: int) -> list[str]:
    return [str(seed), format(seed, "x"), format(seed, "X")]


def shows_seed(body: bytes | str, seed: int) -> bool:
    text = body.decode() if isinstance(body, bytes) else body
    return any(s in text for s in seed_texts(seed))


def staff_client(user: User) -> Client:
    c = Client()
    c.force_login(user)
    return c


@pytest.fixture
def organizer(db: Any) -> User:
    """An organizer with every admin permission: the admin hides the seed even from them."""
    return User.objects.create_superuser("olga", password="correct horse battery")


def doors(match: Match, staff: User) -> dict[str, Any]:
    """Every answer that shows this match, by door."""
    anon = APIClient()
    admin = staff_client(staff)
    assert admin.get(f"/admin/matches/match/{match.pk}/change/").status_code == 200
    return {
        "api detail": anon.get(f"/api/v1/matches/{match.pk}/"),
        "api list": anon.get("/api/v1/matches/"),
        "api replay": anon.get(f"/api/v1/matches/{match.pk}/replay/"),
        "api frames": anon.get(f"/api/v1/matches/{match.pk}/frames/"),
        "api live": anon.get(f"/api/v1/matches/{match.pk}/live/"),
        "match page": Client().get(f"/matches/{match.pk}/"),
        "matches page": Client().get("/matches/"),
        "admin change": admin.get(f"/admin/matches/match/{match.pk}/change/"),
        "admin list": admin.get("/admin/matches/match/"),
    }


# Secrets: one place decides (Match.secrets_revealed), every door asks it.
def test_every_match_publishes_a_commitment_to_its_seed_when_it_is_created(make_bot, author, other) -> None:
    m = queued(make_bot, author, other)
    m.refresh_from_db()
    assert m.seed_commitment == seed_commitment(str(m.pk), SECRET_SEED)
    assert check_commitment(m.referee_match_id(), m.seed, m.seed_commitment)
    body = APIClient().get(f"/api/v1/matches/{m.pk}/").json()
    assert body["seed_commitment"] == m.seed_commitment and body["seed"] is None and body["secrets_revealed"] is False
    page = Client().get(f"/matches/{m.pk}/").content.decode()
    assert m.seed_commitment in page


def test_seeds_drawn_by_the_service_differ_and_are_committed(make_bot, author, other) -> None:
    x, y = make_bot(author, "p"), make_bot(other, "q")
    matches = [match_services.do_queue_match(GAME, [x.latest_version, y.latest_version], rated=False) for _ in range(8)]
    assert len({m.seed for m in matches}) == 8
    for m in matches:
        m.refresh_from_db()
        assert check_commitment(str(m.pk), m.seed, m.seed_commitment)


def test_seeded_ladder_rows_carry_commitments(db: Any) -> None:
    call_command("seed_ladder", bots=4, matches=6, authors=2, prefix="fp", stdout=None)
    rows = list(Match.objects.all())
    assert rows and all(check_commitment(str(m.pk), m.seed, m.seed_commitment) for m in rows)


def test_no_door_shows_the_seed_while_queued_running_or_staged(make_bot, author, other, organizer) -> None:
    m = queued(make_bot, author, other)
    for stage in ("queued", "running", "staged"):
        if stage == "running":
            match_services.do_start_match(m.pk, "127.0.0.1:1")
        if stage == "staged":
            assert match_services.do_stage_result(m.pk, play_replay(m).encode())
        for door, response in doors(m, organizer).items():
            assert not shows_seed(response.content, SECRET_SEED), f"{stage}: {door} shows the seed"
        replay = APIClient().get(f"/api/v1/matches/{m.pk}/replay/")
        assert replay.status_code == 404
        assert APIClient().get(f"/api/v1/matches/{m.pk}/").json()["has_replay"] is False
    staged = APIClient().get(f"/api/v1/matches/{m.pk}/replay/").json()
    assert staged["code"] == "not_revealed"


def test_the_seed_and_replay_are_revealed_once_the_match_is_final(make_bot, author, other, organizer, finish) -> None:
    m = finish(queued(make_bot, author, other))
    shown = doors(m, organizer)
    assert shown["api detail"].json()["seed"] == SECRET_SEED and shown["api detail"].json()["secrets_revealed"]
    assert shown["api replay"].status_code == 200 and json.loads(shown["api replay"].content)["seed"] == SECRET_SEED
    assert shown["api frames"].status_code == 200
    assert str(SECRET_SEED) in shown["match page"].content.decode()
    assert str(SECRET_SEED) in shown["admin change"].content.decode()
    assert check_commitment(
        str(m.pk), shown["api detail"].json()["seed"], shown["api detail"].json()["seed_commitment"]
    )


def test_a_mirrored_set_reveals_only_when_every_match_sharing_the_seed_ended(
    make_bot, author, other, organizer, finish
) -> None:
    """Mirrored matches share one seed (docs/ladder.md): the first one's replay would deal the second."""
    first = queued(make_bot, author, other, tag="1")
    second = queued(make_bot, author, other, tag="2")
    finish(first)
    for door, response in doors(first, organizer).items():
        assert not shows_seed(response.content, SECRET_SEED), f"{door} shows the seed of a running twin"
    assert APIClient().get(f"/api/v1/matches/{first.pk}/frames/").status_code == 404
    author_page = staff_client(author).get("/me/replays.zip")
    assert author_page.status_code == 200 and not shows_seed(author_page.content, SECRET_SEED)
    finish(second)
    assert APIClient().get(f"/api/v1/matches/{first.pk}/").json()["seed"] == SECRET_SEED


def test_the_admin_cannot_create_matches_or_edit_seeds(organizer, make_bot, author, other) -> None:
    admin = staff_client(organizer)
    assert admin.get("/admin/matches/match/add/").status_code == 403
    m = queued(make_bot, author, other)
    page = admin.get(f"/admin/matches/match/{m.pk}/change/").content.decode()
    assert 'name="seed"' not in page and "hidden until the match" in page


# Frames: computed at most once per replay (at record time, or by the first request), whatever slices are asked for.
def test_frames_are_computed_once_per_replay(make_bot, author, other, finish, monkeypatch) -> None:
    calls: list[int] = []
    real = framestore.spectator_frames

    def counting(replay: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(replay, *args, **kwargs)

    monkeypatch.setattr(framestore, "spectator_frames", counting)
    m = finish(queued(make_bot, author, other))
    anon = APIClient()
    full = anon.get(f"/api/v1/matches/{m.pk}/frames/").json()
    for start, limit in [(0, 2), (1, 1), (2, None), (0, 1000)]:
        params = {"start": start} if limit is None else {"start": start, "limit": limit}
        part = anon.get(f"/api/v1/matches/{m.pk}/frames/", params).json()
        end = None if limit is None else start + limit
        assert part["frames"] == full["frames"][start:end] and part["total"] == full["total"]
    assert len(calls) == 1


# The client's address: X-Forwarded-For only from trusted proxies, read from the right.
@pytest.mark.parametrize(
    ("peer", "header", "trusted", "expected"),
    [
        ("203.0.113.9", "1.2.3.4", "", "203.0.113.9"),  # nobody trusted: the header is ignored
        ("203.0.113.9", "1.2.3.4", "10.0.0.0/8", "203.0.113.9"),  # the peer is not a proxy
        ("10.0.0.2", "198.51.100.7", "10.0.0.0/8", "198.51.100.7"),  # one trusted proxy
        ("10.0.0.2", "6.6.6.6, 198.51.100.7", "10.0.0.0/8", "198.51.100.7"),  # forged left part ignored
        ("10.0.0.2", "198.51.100.7, 10.0.0.9", "10.0.0.0/8", "198.51.100.7"),  # two proxies
        ("10.0.0.2", "10.0.0.7, 10.0.0.9", "10.0.0.0/8", "10.0.0.7"),  # all trusted: the left-most
        ("10.0.0.2", "not-an-ip", "10.0.0.0/8", "10.0.0.2"),  # garbage: the proxy is all we know
        ("10.0.0.2", "", "10.0.0.0/8", "10.0.0.2"),
        ("::1", "2001:db8::5", "::1", "2001:db8::5"),
    ],
)
def test_client_address(peer: str, header: str, trusted: str, expected: str) -> None:
    assert client_address(peer, header, parse_networks(trusted)) == expected


def rate(scope: str, value: str) -> Any:
    from rest_framework.settings import api_settings

    return {**api_settings.DEFAULT_THROTTLE_RATES, scope: value}


def test_forwarded_for_from_an_untrusted_peer_does_not_escape_the_limit(anon) -> None:
    from rest_framework.throttling import AnonRateThrottle

    old = AnonRateThrottle.THROTTLE_RATES
    AnonRateThrottle.THROTTLE_RATES = rate("anon", "3/hour")
    try:
        codes = [anon.get("/api/v1/games/", HTTP_X_FORWARDED_FOR=f"1.1.1.{i}").status_code for i in range(5)]
    finally:
        AnonRateThrottle.THROTTLE_RATES = old
    assert codes == [200, 200, 200, 429, 429]


@override_settings(BRAWL_TRUSTED_PROXIES="127.0.0.0/8")
def test_behind_a_trusted_proxy_each_client_has_its_own_count(anon) -> None:
    from rest_framework.throttling import AnonRateThrottle

    old = AnonRateThrottle.THROTTLE_RATES
    AnonRateThrottle.THROTTLE_RATES = rate("anon", "2/hour")
    try:
        a = [anon.get("/api/v1/games/", HTTP_X_FORWARDED_FOR="9.9.9.1", REMOTE_ADDR="127.0.0.1") for _ in range(3)]
        b = anon.get("/api/v1/games/", HTTP_X_FORWARDED_FOR="9.9.9.2", REMOTE_ADDR="127.0.0.1")
        forged = anon.get("/api/v1/games/", HTTP_X_FORWARDED_FOR="7.7.7.7, 9.9.9.1", REMOTE_ADDR="127.0.0.1")
    finally:
        AnonRateThrottle.THROTTLE_RATES = old
    assert [r.status_code for r in a] == [200, 200, 429]
    assert b.status_code == 200 and forged.status_code == 429


# Sign-ins: lockout per account and per address; the token endpoint is throttled.
@override_settings(BRAWL_LOGIN_FAILURES_PER_ACCOUNT=3, BRAWL_LOGIN_FAILURES_PER_ADDRESS=100)
def test_failed_logins_lock_the_account_even_for_the_right_password(author: User) -> None:
    c = Client()
    for _ in range(3):
        assert c.post("/accounts/login/", {"username": "alice", "password": "wrong"}).status_code == 200
    locked = c.post("/accounts/login/", {"username": "alice", "password": "correct horse battery"})
    assert locked.status_code == 429 and "Too many failed sign-ins" in locked.content.decode()
    # From another address too: the lock is on the account.
    elsewhere = Client(REMOTE_ADDR="198.51.100.4")
    assert (
        elsewhere.post("/accounts/login/", {"username": "ALICE", "password": "correct horse battery"}).status_code
        == 429
    )
    basic = base64.b64encode(b"alice:correct horse battery").decode()
    api = APIClient().post("/api/v1/me/api-token/", HTTP_AUTHORIZATION=f"Basic {basic}")
    assert api.status_code == 429 and api.json()["code"] == "throttled" and int(api["Retry-After"]) > 0


@override_settings(BRAWL_LOGIN_FAILURES_PER_ACCOUNT=100, BRAWL_LOGIN_FAILURES_PER_ADDRESS=4)
def test_failed_logins_lock_the_address_across_accounts(author: User, other: User) -> None:
    c = Client()
    for name in ["u1", "u2", "u3", "u4"]:
        c.post("/accounts/login/", {"username": name, "password": "x"})
    assert c.post("/accounts/login/", {"username": "bob", "password": "correct horse battery"}).status_code == 429
    fresh = Client(REMOTE_ADDR="198.51.100.5")
    assert fresh.post("/accounts/login/", {"username": "bob", "password": "correct horse battery"}).status_code == 302


@override_settings(BRAWL_LOGIN_FAILURES_PER_ACCOUNT=3)
def test_basic_auth_failures_count_towards_the_lockout(author: User) -> None:
    wrong = base64.b64encode(b"alice:nope").decode()
    codes = [
        APIClient().post("/api/v1/me/api-token/", HTTP_AUTHORIZATION=f"Basic {wrong}").status_code for _ in range(4)
    ]
    assert codes == [401, 401, 401, 429]


def test_a_successful_login_clears_the_account_count(author: User) -> None:
    c = Client()
    with override_settings(BRAWL_LOGIN_FAILURES_PER_ACCOUNT=3):
        for _ in range(2):
            c.post("/accounts/login/", {"username": "alice", "password": "wrong"})
        assert c.post("/accounts/login/", {"username": "alice", "password": "correct horse battery"}).status_code == 302
        c.post("/accounts/logout/")
        for _ in range(2):
            c.post("/accounts/login/", {"username": "alice", "password": "wrong"})
        assert c.post("/accounts/login/", {"username": "alice", "password": "correct horse battery"}).status_code == 302


def test_token_requests_are_throttled(author_client) -> None:
    from webapp.accounts.views import ApiTokenThrottle

    old = ApiTokenThrottle.THROTTLE_RATES
    ApiTokenThrottle.THROTTLE_RATES = rate("api_token", "2/hour")
    try:
        codes = [author_client.post("/api/v1/me/api-token/").status_code for _ in range(3)]
    finally:
        ApiTokenThrottle.THROTTLE_RATES = old
    assert codes == [201, 201, 429]


def test_signups_are_throttled_per_address() -> None:
    from webapp.pages.views import SignupThrottle

    old = SignupThrottle.THROTTLE_RATES
    SignupThrottle.THROTTLE_RATES = rate("signup", "2/hour")
    try:
        c = Client()
        codes = [
            c.post(
                "/accounts/signup/",
                {"username": f"new{i}", "password1": "a long pass phrase", "password2": "a long pass phrase"},
            ).status_code
            for i in range(3)
        ]
    finally:
        SignupThrottle.THROTTLE_RATES = old
    assert codes == [302, 302, 429]
    assert not User.objects.filter(username="new2").exists()


# Bad input: a 4xx with a stable code (JSON on the API, a page elsewhere), never a 500, nothing lost.
@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/matches/?bot=99999999999999999999999",
        "/api/v1/matches/?bot=x",
        "/api/v1/matches/?opponent=-1",
        "/api/v1/matches/?tournament=1e3",
        f"/api/v1/matches/?bot={MAX_ID + 1}",
        "/api/v1/rating-history/?match=99999999999999999999999",
        "/api/v1/matches/{match}/frames/?start=x",
        "/api/v1/matches/{match}/frames/?limit=-3",
        "/api/v1/matches/{match}/live/?wait=nan",
        "/api/v1/matches/{match}/live/?wait=1e400",
        "/api/v1/matches/{match}/live/?wait=-1",
        "/api/v1/matches/{match}/live/?since=99999999999999999999999",
    ],
)
def test_bad_query_parameters_are_400_with_a_code(anon, url, make_bot, author, other, finish) -> None:
    m = finish(queued(make_bot, author, other))
    r = anon.get(url.format(match=m.pk))
    assert r.status_code == 400, r.content
    assert r["Content-Type"].startswith("application/json") and r.json()["code"] == "bad_parameter"


def test_ids_out_of_range_in_paths_are_404(anon) -> None:
    for url in ["/api/v1/matches/99999999999999999999999/", "/api/v1/bots/99999999999999999999999/"]:
        r = anon.get(url)
        assert r.status_code == 404 and r.json()["code"] == "not_found"
    page = Client().get("/bots/99999999999999999999999/")
    assert page.status_code == 404 and b"Not found" in page.content


def test_a_bad_page_filter_is_an_html_400(make_bot, author) -> None:
    bot = make_bot(author, "pagey")
    r = Client().get(f"/bots/{bot.pk}/?opponent=x")
    assert r.status_code == 400 and r["Content-Type"].startswith("text/html")
    assert b"opponent must be an integer" in r.content and b"Traceback" not in r.content


def test_deeply_nested_json_is_a_400(author_client, make_bot, author) -> None:
    bot = make_bot(author, "deep")
    body = "[" * 100_000 + "]" * 100_000
    r = author_client.generic("PATCH", f"/api/v1/bots/{bot.pk}/", body, content_type="application/json")
    assert r.status_code == 400 and r.json()["code"] == "parse_error"
    shallow = {"description": json.dumps([[[[1]]]])}
    assert author_client.patch(f"/api/v1/bots/{bot.pk}/", shallow, format="json").status_code == 200


def test_a_body_over_the_limit_is_a_json_413(author_client, make_bot, author) -> None:
    bot = make_bot(author, "big")
    body = json.dumps({"description": "x" * 3_000_000})
    r = author_client.generic("PATCH", f"/api/v1/bots/{bot.pk}/", body, content_type="application/json")
    assert r.status_code == 413 and r.json()["code"] == "too_large"
    assert Bot.objects.get(pk=bot.pk).description == ""


def test_text_over_its_limit_is_refused_and_nothing_is_written(author_client, make_bot, author) -> None:
    bot = make_bot(author, "wordy")
    long = "x" * (DESCRIPTION_MAX_CHARS + 1)
    r = author_client.patch(f"/api/v1/bots/{bot.pk}/", {"description": long}, format="json")
    assert r.status_code == 400 and r.json()["code"] == "invalid"
    created = author_client.post("/api/v1/bots/", {"game": GAME, "name": "wordy2", "description": long}, format="json")
    assert created.status_code == 400
    assert Bot.objects.get(pk=bot.pk).description == "" and not Bot.objects.filter(name="wordy2").exists()
    with pytest.raises(match_services.InvalidInput.__mro__[1]):  # the service refuses it too (DomainError)
        from webapp.bots import services as bot_services

        bot_services.do_update_bot(bot, description=long)
    exact = author_client.patch(f"/api/v1/bots/{bot.pk}/", {"description": "x" * DESCRIPTION_MAX_CHARS}, format="json")
    assert exact.status_code == 200


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"time_control": {"per_decision_ms": -5}}, "per_decision_ms"),
        ({"time_control": {"per_decision_ms": 1_000_000_000}}, "per_decision_ms"),
        ({"time_control": {"bank_ms": 10**12}}, "bank_ms"),
        ({"time_control": {"per_decision_ms": "fast"}}, "per_decision_ms"),
        ({"time_control": {"per_move_s": 3}}, "unknown keys"),
        ({"rounds": 100_000}, "rounds"),
        ({"best_of": 101}, "best_of"),
        ({"name": "n" * 121}, "name"),
    ],
)
def test_tournament_bounds(organizer_client, change, field) -> None:
    body = {"name": "cup", "game": GAME, "format": "swiss", **change}
    r = organizer_client.post("/api/v1/tournaments/", body, format="json")
    assert r.status_code == 400, r.content
    assert field in json.dumps(r.json())


def test_a_negative_decision_time_is_refused_by_the_service_too(organizer) -> None:
    with pytest.raises(match_services.InvalidInput):
        t_services.do_create_tournament(
            organizer, name="c", game=GAME, format="swiss", time_control={"per_decision_ms": -5}
        )
    ok = t_services.do_create_tournament(
        organizer, name="c", game=GAME, format="swiss", time_control={"per_decision_ms": 1, "bank_ms": 0}
    )
    assert ok.time_control == {"per_decision_ms": 1, "bank_ms": 0}


def test_unknown_urls_and_handlers(anon) -> None:
    api = anon.get("/api/v1/nothing-here/")
    assert api.status_code == 404 and api.json()["code"] == "not_found"
    page = Client().get("/nothing-here/")
    assert page.status_code == 404 and b"Not found" in page.content
    rf = RequestFactory()
    crash_api = errors.server_error(rf.get("/api/v1/games/"))
    assert crash_api.status_code == 500 and json.loads(crash_api.content)["code"] == "server_error"
    crash_page = errors.server_error(rf.get("/games/x/"))
    assert crash_page.status_code == 500 and b"Server error" in crash_page.content
    assert errors.permission_denied(rf.get("/me/bots/")).status_code == 403
    assert errors.bad_request(rf.get("/api/v1/x/")).status_code == 400


def test_every_integer_in_a_request_body_has_bounds() -> None:
    """Closes the class: an unbounded integer reaches a 64-bit column and overflows into a 500."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    unbounded = []
    for name, component in schema["components"]["schemas"].items():
        if not name.endswith("Request"):
            continue
        for prop, spec in component.get("properties", {}).items():
            if spec.get("type") == "integer" and not spec.get("readOnly") and "maximum" not in spec:
                unbounded.append(f"{name}.{prop}")
    assert unbounded == []


def test_nul_characters_are_refused_before_the_database(author_client, make_bot, author) -> None:
    """PostgreSQL cannot hold NUL in text or jsonb: found by the schema fuzzer as 500s."""
    r = author_client.get("/api/v1/bots/", {"owner": "a\x00b"})
    assert r.status_code == 400 and r.json()["code"] == "bad_parameter"
    page = Client().get("/matches/", {"game": "x\x00"})
    assert page.status_code == 400 and page["Content-Type"].startswith("text/html")
    bot = make_bot(author, "nul")
    body = json.dumps({"description": "ok", "extra": {"k\x00": 1}})
    patched = author_client.generic("PATCH", f"/api/v1/bots/{bot.pk}/", body, content_type="application/json")
    assert patched.status_code == 400 and patched.json()["code"] == "parse_error"


def test_updating_a_bot_with_list_filters_in_the_query_still_answers(author_client, make_bot, author) -> None:
    """A PATCH that activates a bot, sent with ?active=false, once failed to read the bot back (a 500)."""
    bot = make_bot(author, "flip")
    author_client.patch(f"/api/v1/bots/{bot.pk}/", {"active": False}, format="json")
    r = author_client.patch(f"/api/v1/bots/{bot.pk}/?active=false", {"active": True}, format="json")
    assert r.status_code == 200 and r.json()["active"] is True
