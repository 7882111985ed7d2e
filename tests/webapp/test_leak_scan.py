"""Leak scan: while real matches of both games run, no web answer shows a seed or a hidden card.

A real referee serves on loopback (the ``LoopbackReferee`` of the live tests: a gRPC server in a
background event loop, real SDK bots connecting over TCP) and plays one ScrumBrawl and one Super
Fantasy Brawl match between bots that think a few milliseconds per decision, started exactly as
the workers start them (``referee_client.start_match`` with the row's id and seed). While they
run, the test fetches every answer that shows those matches: the API (list and filters, detail,
replay, frames, live, bots, ratings, history, the OpenAPI schema, the learning dataset's manifests and
files, written afresh before each round), the pages (home, matches, match, bot, leaderboard,
datasets, the authors' "my matches" and replay zip), the admin as a superuser, and ``/metrics``; the
log records of the web tier are scanned too. Each running match has a mirrored twin that already
finished on the same seed, so its deal: its secrets (and the dataset rows it would give) must stay
hidden until the running match ends.

What must not appear: the seed of a running match (decimal, hex) and every card that was in a
hand or a deck during the whole fetch and had never been public by its end. The hidden cards
are read from the referee's own engine state, in its event loop (so the snapshot is consistent),
just before and just after each round of fetches; a card counts only if it was hidden at both
moments and had not appeared in the spectator view or a public event by the second one (cards
return from discards to decks). Deck orders are checked as the JSON of each seat's deck.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pyarrow.parquet as pq
import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from referee import client as referee_client
from referee.core.bots import RandomPolicy
from referee.core.contract import EVERYONE
from referee.core.ids import BotId, MatchId
from referee.core.registry import get_game
from referee.core.replay import Recorder, Replay
from referee.sdk import BotClient
from referee.server.auth import BotIdentity
from referee.server.match import MatchState
from tests.webapp.test_live import LoopbackReferee, SlowBot
from webapp import results
from webapp.bots.models import Bot
from webapp.datasets import export as dataset_export
from webapp.matches import live
from webapp.matches import services as match_services
from webapp.matches.models import Match

pytestmark = pytest.mark.django_db

GAMES = {"scrumbrawl": {"max_rounds": 6}, "superfantasybrawl": {"round_cap": 10}}
"""Both games, with round caps that keep each match to some seconds (a Super Fantasy Brawl match of
10 rounds takes about 100 decisions, a ScrumBrawl match of 6 about 150)."""
CARD_KEYS = {"hands": "hand", "deck": "deck", "decks": "deck"}
"""Engine attributes holding hidden cards (ScrumBrawl: hands, deck; Super Fantasy Brawl: hands, decks)."""


class ThinkingBot(SlowBot):
    """A random legal option after 80 ms: several rounds of fetches per match, even on a busy machine."""

    think = 0.08


class TwoGameReferee(LoopbackReferee):
    """The live tests' loopback referee, with bots of any game."""

    def connect_for(self, bot_id: str, game: str) -> None:
        token = self.store.issue(BotIdentity(BotId(bot_id), bot_id.upper(), "v1", "tester", frozenset({game})))

        async def make() -> BotClient:
            return BotClient(ThinkingBot, self.address, token, games=[game], max_matches=2)

        client = self.run(make())
        self.clients.append((client, asyncio.run_coroutine_threadsafe(client.run(), self.loop)))

    def wait_for(self, game: str, count: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _, bots = referee_client.list_bots(self.internal, game)
            if len(bots) >= count:
                return
            time.sleep(0.05)
        raise AssertionError(f"{count} {game} bots did not connect")

    def snapshot(self, match_id: int) -> dict[str, Any] | None:
        """The hidden and the public state of a running match, read in the referee's event loop (None once over)."""

        async def read() -> dict[str, Any] | None:
            entry = self.server.referee.matches.get(MatchId(str(match_id)))
            if entry is None or entry.runner.state is not MatchState.RUNNING:
                return None
            engine = entry.runner.recorder.match
            hidden: dict[str, list[Any]] = {}
            for attr, kind in CARD_KEYS.items():
                value = getattr(engine, attr, None)
                if value is None:
                    continue
                seats = value if isinstance(value, (list, tuple)) and value and isinstance(value[0], list) else [value]
                for seat, cards in enumerate(seats):
                    hidden[f"{kind}{seat}"] = [card_id(c) for c in cards]
            public = json.dumps([engine.observe(None), [e.to_json() for e in engine.events(0, EVERYONE)]])
            return {"hidden": hidden, "public": public, "decisions": len(entry.runner.recorder.replay.decisions)}

        return self.run(read())


def card_id(card: Any) -> str:
    """A card's id as observations name it (ScrumBrawl cards are objects with ``card``; others are strings)."""
    if isinstance(card, dict):
        return str(card.get("card") or card.get("id"))
    for attr in ("card", "id", "uid"):
        if hasattr(card, attr) and isinstance(getattr(card, attr), str):
            return str(getattr(card, attr))
    return str(card)


@pytest.fixture
def referee() -> Iterator[TwoGameReferee]:
    ref = TwoGameReferee()
    try:
        for game, ids in (("scrumbrawl", "ab"), ("superfantasybrawl", "cd")):
            for bot_id in ids:
                ref.connect_for(bot_id, game)
            ref.wait_for(game, 2)
        yield ref
    finally:
        live.stop_all()
        ref.close()


def still_hidden(before: dict[str, Any], after: dict[str, Any]) -> tuple[set[str], list[str]]:
    """Cards hidden at both snapshots and never public by the second; the JSON of each deck order."""
    cards_before = {c for cards in before["hidden"].values() for c in cards}
    cards_after = {c for cards in after["hidden"].values() for c in cards}
    public = after["public"]
    cards = {c for c in cards_before & cards_after if not found(public, c)}
    orders = [
        json.dumps(v)
        for k, v in after["hidden"].items()
        if k.startswith("deck") and len(v) >= 3 and v == before["hidden"].get(k)
    ]
    return cards, orders


def body_text(url: str, response: Any) -> str:
    """An answer as text to scan: a streamed file joined, a Parquet file as the JSON of its rows."""
    raw = b"".join(response.streaming_content) if response.streaming else response.content
    if url.endswith(".parquet") and response.status_code == 200:
        return json.dumps(pq.read_table(io.BytesIO(raw)).to_pylist(), default=str)
    return str(raw.decode("utf-8", "replace"))


def config_of(m: Match) -> dict[str, Any]:
    """The match's config as a twin is queued with (the row holds it parsed, defaults filled in)."""
    return dict(m.config)


def played_locally(m: Match) -> Replay:
    """Plays ``m`` to its end in this process with random legal choices: the real engine on the row's seed."""
    game = get_game(m.game)
    names = [f"seat{s.seat}" for s in m.seats.order_by("seat")]
    rec = Recorder(game, game.parse_config(m.config, len(names)), m.seed, names, meta={"match_id": m.pk})
    policies = [RandomPolicy(9 + i) for i in range(len(names))]
    while rec.outcome() is None:
        decision = rec.match.to_move()
        assert decision is not None
        rec.apply(policies[decision.seat].choose(decision, rec.match.observe(decision.seat), rec.match.legal_options()))
    return rec.finish()


def found(text: str, token: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(token)}(?![A-Za-z0-9_])", text) is not None


def test_no_answer_shows_a_seed_or_a_hidden_card_while_matches_run(
    referee: TwoGameReferee, make_bot: Callable[..., Bot], author: User, other: User, caplog: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    staff = User.objects.create_superuser("leakorg", password="correct horse battery")
    matches: dict[str, tuple[Match, list[Bot]]] = {}
    for game, config in GAMES.items():
        bots = [make_bot(author, f"{game[:5]}a", game=game), make_bot(other, f"{game[:5]}b", game=game)]
        m = match_services.do_queue_match(game, [b.latest_version for b in bots], rated=True, config=config)
        matches[game] = (m, bots)
    # A mirrored twin of each running match, already finished: it shares the running match's seed and so
    # its deal, and its secrets stay hidden until the running match ends (the dataset must leave it out).
    for game, (m, bots) in matches.items():
        twin = match_services.do_queue_match(
            game, [b.latest_version for b in bots[::-1]], rated=True, config=config_of(m), seed=m.seed
        )
        match_services.do_start_match(twin.pk, "ref-twin")
        results.do_finish_match(twin.pk, played_locally(twin), referee_id="ref-twin")
    month = dataset_export.month_of(timezone.now())
    ids = {"scrumbrawl": ["a", "b"], "superfantasybrawl": ["c", "d"]}
    for game, (m, bots) in matches.items():
        match_services.do_start_match(m.pk, referee.internal)
        referee_client.start_match(
            referee.internal,
            request_id=f"leak-{m.pk}",
            match_id=str(m.pk),
            game=game,
            bot_ids=ids[game],
            names=[b.name for b in bots],
            config=m.config,
            seed=m.seed,
            join_timeout=5.0,
            labels={},
        )

    anon, api_staff = APIClient(), APIClient()
    api_staff.force_authenticate(staff)
    page, admin, owner = Client(), Client(), Client()
    admin.force_login(staff)
    owner.force_login(author)

    def urls(m: Match, bots: list[Bot]) -> list[tuple[Any, str]]:
        b = bots[0].pk
        return [
            (anon, "/api/v1/matches/"),
            (anon, f"/api/v1/matches/?game={m.game}&status=running"),
            (anon, f"/api/v1/matches/?bot={b}"),
            (anon, f"/api/v1/matches/{m.pk}/"),
            (api_staff, f"/api/v1/matches/{m.pk}/"),
            (anon, f"/api/v1/matches/{m.pk}/replay/"),
            (anon, f"/api/v1/matches/{m.pk}/frames/"),
            (anon, f"/api/v1/matches/{m.pk}/live/?since=-1&wait=0"),
            (anon, f"/api/v1/bots/{b}/"),
            (anon, f"/api/v1/ratings/?game={m.game}"),
            (anon, f"/api/v1/rating-history/?match={m.pk}"),
            (page, "/"),
            (page, "/matches/"),
            (page, f"/matches/{m.pk}/"),
            (page, f"/bots/{b}/"),
            (page, f"/games/{m.game}/"),
            (owner, "/me/matches/"),
            (owner, "/me/replays.zip"),
            (admin, "/admin/matches/match/"),
            (admin, f"/admin/matches/match/{m.pk}/change/"),
            (admin, "/admin/matches/matchseat/"),
            (admin, "/metrics"),
            (anon, "/api/v1/datasets/"),
            (anon, f"/api/v1/datasets/{m.game}/{month}/"),
            (anon, f"/api/v1/datasets/{m.game}/{month}/decisions.jsonl"),
            (anon, f"/api/v1/datasets/{m.game}/{month}/hidden.jsonl"),
            (anon, f"/api/v1/datasets/{m.game}/{month}/decisions.parquet"),
            (anon, f"/api/v1/datasets/{m.game}/{month}/hidden.parquet"),
            (page, "/datasets/"),
        ]

    schema = anon.get("/api/schema/?format=json").content.decode()
    rounds = {game: 0 for game in GAMES}
    cards_checked = {game: 0 for game in GAMES}
    deadline = time.monotonic() + 300
    while any(referee.snapshot(m.pk) is not None and rounds[g] < 50 for g, (m, _) in matches.items()):
        assert time.monotonic() < deadline, "the matches did not end"
        for game, (m, bots) in matches.items():
            before = referee.snapshot(m.pk)
            if before is None or before["decisions"] == 0:
                continue
            answers = []
            dataset_export.write_dataset(game, month)  # what the workers' sweep would write now
            for client, url in urls(m, bots):
                r = client.get(url)
                assert r.status_code < 500, (url, r.status_code)
                answers.append((url, body_text(url, r)))
            answers.append(("schema", schema))
            after = referee.snapshot(m.pk)
            if after is None:  # the match ended during the fetches: its secrets may be revealed now
                continue
            rounds[game] += 1
            cards, orders = still_hidden(before, after)
            cards_checked[game] += len(cards)
            seed_forms = [str(m.seed), format(m.seed, "x"), format(m.seed, "X")]
            for url, body in answers:
                for s in seed_forms:
                    assert s not in body, f"{game}: {url} shows the seed {s}"
                for card in cards:
                    assert not found(body, card), f"{game}: {url} shows the hidden card {card!r}"
                for order in orders:
                    assert order not in body, f"{game}: {url} shows a deck order"
            for record in caplog.records:
                text = record.getMessage() + json.dumps(record.__dict__.get("args"), default=str)
                assert not any(s in text for s in seed_forms), f"{game}: a log record shows the seed: {text[:200]}"
    # The scan could have failed: both matches were scanned while running, with hidden cards in play.
    states = {g: referee_client.get_match(referee.internal, str(m.pk)) for g, (m, _) in matches.items()}
    assert all(n >= 2 for n in rounds.values()), (
        rounds,
        {g: str(st).replace("\n", " ")[:300] for g, st in states.items()},
    )
    assert all(n > 0 for n in cards_checked.values()), cards_checked
