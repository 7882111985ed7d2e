"""The web app reaches the workers by task name alone (``webapp.tasks_out``), with no workers code.

Partitions: a match queued by the web app with ``BRAWL_DISPATCH=celery`` and a real worker without
beat (so neither the reaper nor a ladder round can start it: only the web app's message does);
the publisher's broker as the environment changes (same broker: same app; another: a new app).
"""

from __future__ import annotations

import pytest

from tests.workers.conftest import GAME
from tests.workers.helpers import assert_counted_once
from tests.workers.stack import Stack, wait_until
from tests.workers.test_recovery import start_pair
from webapp import tasks_out
from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchStatus


@pytest.mark.django_db(transaction=True)
def test_a_match_the_web_app_queues_is_played_by_a_real_worker(stack: Stack) -> None:
    versions = start_pair(stack)
    stack.start_worker("worker", concurrency=1)
    match = match_services.do_queue_match(GAME, versions, rated=True)
    wait_until(
        lambda: Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED,
        60,
        "the match the web app queued to be played and recorded",
    )
    assert tasks_out.publisher().main == "brawl-web"
    assert_counted_once()


def test_the_publisher_follows_the_broker_the_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/3")
    first = tasks_out.publisher()
    assert first.conf.broker_url == "redis://127.0.0.1:1/3"
    assert tasks_out.publisher() is first
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/4")
    second = tasks_out.publisher()
    assert second is not first
    assert second.conf.broker_url == "redis://127.0.0.1:1/4"
    assert second.conf.task_default_queue == "scheduling"
