"""The OpenAPI schema fuzzed with schemathesis: no request the schema allows (or nearly allows) gets a 5xx.

Every operation of ``/api/schema/`` is called in process (WSGI) with inputs schemathesis generates
from the schema: valid ones (positive mode) and ones that break it (negative mode: wrong types,
missing fields, out-of-range numbers), as an anonymous visitor and as an author with an API token
with the ids the generator picks (mostly rows that do not exist), then as the author and as an
organizer with the ids of real rows (a bot the author owns, a finished match, a tournament, an
entrant), so the handlers behind the 404s run too. The number of examples is bounded and the
generator derandomised, so the run takes about a minute and fails the same way twice. A failure
lists every operation and input that got a 5xx.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token

from tests.webapp.conftest import GAME
from webapp.bots.models import Bot
from webapp.matches import services as match_services
from webapp.matches.models import Match
from webapp.tournaments import services as t_services
from webapp.wsgi import application

pytestmark = pytest.mark.django_db

EXAMPLES = 3
"""Examples per operation, mode and pass (about 800 requests in all)."""
PASSES = [("anonymous", False), ("author", False), ("author", True), ("organizer", True)]
"""Who calls, and whether the ids are the generator's (mostly missing rows) or real rows'."""


def real_ids(
    author: User, organizer: User, make_bot: Callable[..., Bot], finish: Callable[..., Match]
) -> dict[str, int]:
    """Rows for the real-id pass: path segment before ``{id}`` -> an id of that kind."""
    mine = make_bot(author, "fuzzmine")
    theirs = make_bot(organizer, "fuzztheirs")
    match = finish(match_services.do_queue_match(GAME, [mine.latest_version, theirs.latest_version], rated=True))
    cup = t_services.do_create_tournament(organizer, name="fuzz cup", game=GAME, format="round_robin")
    t_services.do_open_registration(cup)
    entry = t_services.do_register_entrant(cup, mine.latest_version)
    return {"bots": mine.pk, "matches": match.pk, "tournaments": cup.pk, "entrant": entry.pk, "games": 0}


def with_real_ids(case: Any, ids: dict[str, int]) -> None:
    """Points the case's path (and id fields of its body) at real rows."""
    path = case.operation.path
    if case.path_parameters and "id" in case.path_parameters:
        segment = path.split("/api/v1/")[-1].split("/")[0]
        if segment == "games":
            case.path_parameters["id"] = GAME
        elif segment in ids:
            case.path_parameters["id"] = ids[segment]
    if case.path_parameters and "name" in case.path_parameters:
        case.path_parameters["name"] = GAME
    if isinstance(case.body, dict):
        for key, kind in (("entrant", "entrant"), ("bot", "bots"), ("opponent", "bots"), ("match", "matches")):
            if key in case.body:
                case.body[key] = ids[kind]


@pytest.fixture
def keep_connection() -> Iterator[None]:
    """Keeps the test's database connection across in-process requests, as Django's test client does.

    Schemathesis calls the WSGI application directly, whose request signals would close the
    connection (and with it the test's transaction) after every request.
    """
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def test_no_generated_request_gets_a_server_error(
    keep_connection: None, author: User, make_bot: Callable[..., Bot], finish: Callable[..., Match]
) -> None:
    organizer = User.objects.create_superuser("fuzzorg", password="correct horse battery")
    ids = real_ids(author, organizer, make_bot, finish)
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    failures: list[str] = []
    calls = 0

    def headers_for(role: str) -> dict[str, str]:
        if role == "anonymous":
            return {}
        user = author if role == "author" else organizer
        # Read each time: the fuzzed POST /me/api-token/ rotates the key.
        token, _ = Token.objects.get_or_create(user=user)
        return {"Authorization": f"Token {token.key}"}

    def fuzz(operation: Any, mode: Any, role: str, real: bool) -> None:
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy(generation_mode=mode))
        def run(case: Any) -> None:
            nonlocal calls
            if real:
                with_real_ids(case, ids)
            cache.clear()  # throttle counters: keep exercising the handlers, not the 429
            response = case.call(headers=headers_for(role))
            calls += 1
            if response.status_code >= 500:
                failures.append(
                    f"{response.status_code} {case.method} {case.formatted_path} as {role} ({mode}): "
                    f"query={case.query!r} body={str(case.body)[:200]!r} -> {response.content[:300]!r}"
                )

        try:
            run()
        except Unsatisfiable:
            # Negative mode has nothing to break in an operation without parameters or body.
            assert mode == schemathesis.GenerationMode.NEGATIVE, operation.label

    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 25, [op.label for op in operations]
    for operation in operations:
        for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):
            for role, real in PASSES:
                fuzz(operation, mode, role, real)
    assert failures == [], "\n".join(failures)
    assert calls > 400
