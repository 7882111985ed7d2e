"""The live ladder never seats two bots of one author at one pod (issue 27: kingmaking, feeding).

``ladder.matchmaking`` keeps one author's candidates apart at tables of more than two seats
(``MatchmakingConfig.separate_authors``); this checks the workers hand it each bot's author, and
that the house's bots (one organizer's) are not held apart. Real PostgreSQL; the referees' presence
is the edge replaced (no referee runs: the round only queues).
"""

from __future__ import annotations

import pytest
from django.conf import LazySettings
from django.contrib.auth.models import User

from referee import client as referee_client
from referee.client import Presence
from referee.core.registry import get_game
from webapp.bots import services as bot_services
from webapp.bots.models import Bot
from webapp.matches.models import Match
from workers import scheduling

pytestmark = pytest.mark.django_db(transaction=True)

POD_GAME = "scrumbrawl"


def _online(bots: list[Bot], monkeypatch: pytest.MonkeyPatch) -> None:
    online = [
        Presence(
            referee="127.0.0.1:1",
            bot_id=str(b.pk),
            version_id=str(b.latest_version_id),
            games=(POD_GAME,),
            max_matches=8,
            active_matches=0,
        )
        for b in bots
    ]
    monkeypatch.setattr(referee_client, "presence", lambda game, addresses=None: (online, []))


def _tables(report: scheduling.RoundReport) -> list[list[Bot]]:
    return [
        [s.bot_version.bot for s in m.seats.select_related("bot_version__bot")]
        for m in Match.objects.filter(pk__in=report.queued)
    ]


def test_two_bots_of_one_author_never_share_a_pod(monkeypatch: pytest.MonkeyPatch, settings: LazySettings) -> None:
    assert min(get_game(POD_GAME).info.table_sizes) > 2, "the partition needs a game whose ladder plays pods"
    settings.BRAWL_DISPATCH = "none"  # queue only
    alice = User.objects.create(username="alice")
    bots = [bot_services.do_create_bot(alice, POD_GAME, f"alice-{i}")[0] for i in range(3)]
    for name in ("bob", "carol", "dave", "erin"):
        bots.append(bot_services.do_create_bot(User.objects.create(username=name), POD_GAME, f"{name}-bot")[0])
    for b in bots:
        b.refresh_from_db()
    _online(bots, monkeypatch)
    tables = []
    for n in range(4):
        tables += _tables(scheduling.schedule_round(POD_GAME, f"authors-{n}"))
    assert tables, "the round seated nobody"
    for table in tables:
        owners = [b.owner_id for b in table]
        assert len(owners) == len(set(owners)), [b.name for b in table]
    assert {b.name for t in tables for b in t} & {"alice-0", "alice-1", "alice-2"}, "alice's bots still play"


def test_the_houses_bots_may_share_a_pod(monkeypatch: pytest.MonkeyPatch, settings: LazySettings) -> None:
    settings.BRAWL_DISPATCH = "none"
    house = User.objects.create(username="house")
    bots = [bot_services.do_create_bot(house, POD_GAME, f"house-{i}", is_house=True)[0] for i in range(4)]
    for b in bots:
        b.refresh_from_db()
    _online(bots, monkeypatch)
    tables = _tables(scheduling.schedule_round(POD_GAME, "house-round"))
    assert any(len(t) > 2 for t in tables), [[b.name for b in t] for t in tables]
