"""The dataset of real matches of both games, played through a real referee, against what the bots received.

A real referee serves on loopback (the live tests' ``LoopbackReferee``: a gRPC server in a
background event loop, SDK bots connecting over TCP). Its bots record every turn exactly as the
SDK handed it to them (observation with the patches applied, options, events) and pick a random
legal option. The matches are started as the workers start them and recorded through
``webapp.results``; the dataset is written by ``webapp.datasets.export`` and read back with
pyarrow. Every row must hold the observation and options its bot was given for that decision
number, its events must be the first the bot was sent at its next turn, and every row must stay the
same when every other seat's hidden cards are dealt anew (the row depends on nothing the seat could
not see).
"""

from __future__ import annotations

import asyncio
import copy
import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from django.contrib.auth.models import User

from referee import client as referee_client
from referee.core.chance import SeededChance
from referee.core.ids import BotId, Seat
from referee.core.replay import Replay, steps
from referee.sdk import BotClient
from referee.sdk.host import Turn
from referee.server.auth import BotIdentity
from tests.referee.harness import eventually
from tests.webapp.test_live import LoopbackReferee
from webapp import results
from webapp.bots.models import Bot
from webapp.datasets import build, export
from webapp.matches import live
from webapp.matches import services as match_services
from webapp.matches.models import Match

pytestmark = pytest.mark.django_db

GAMES = {"scrumbrawl": {"max_rounds": 4}, "superfantasybrawl": {"round_cap": 6}}
"""Both games, with round caps that keep each match short."""
MATCHES_PER_GAME = 2

RECEIVED: dict[tuple[str, int, int], dict[str, Any]] = {}
"""Every turn a bot was handed, by (match id, seat, the seat's own decision number)."""
LOCK = threading.Lock()


class RecordingBot:
    """Keeps a copy of each turn as the SDK decoded it, then picks a random legal option."""

    def __init__(self) -> None:
        self.rng = random.Random(11)

    def choose_turn(self, turn: Turn) -> str:
        seen = {
            "seat": int(turn.seat),
            "observation": copy.deepcopy(turn.observation),
            "options": [o.to_json() for o in turn.options],
            "events": [e.to_json() for e in turn.events],
        }
        with LOCK:
            RECEIVED[(turn.match_id, int(turn.seat), turn.decision_number)] = seen
        return self.rng.choice(turn.options).id


class RecordingReferee(LoopbackReferee):
    """The live tests' loopback referee, with recording bots of any game."""

    def connect_for(self, bot_id: str, game: str) -> None:
        token = self.store.issue(BotIdentity(BotId(bot_id), bot_id.upper(), "v1", "tester", frozenset({game})))

        async def make() -> BotClient:
            return BotClient(RecordingBot, self.address, token, games=[game], max_matches=4)

        client = self.run(make())
        self.clients.append((client, asyncio.run_coroutine_threadsafe(client.run(), self.loop)))


@pytest.fixture
def referee() -> Iterator[RecordingReferee]:
    RECEIVED.clear()
    ref = RecordingReferee()
    try:
        for game, ids in (("scrumbrawl", "ab"), ("superfantasybrawl", "cd")):
            for bot_id in ids:
                ref.connect_for(bot_id, game)
        yield ref
    finally:
        live.stop_all()
        ref.close()


@pytest.fixture(autouse=True)
def var_dir(settings: Any, tmp_path: Path) -> Path:
    settings.VAR_DIR = tmp_path
    return tmp_path


def wait_bots(ref: RecordingReferee, game: str) -> None:
    connected = lambda: len(referee_client.list_bots(ref.internal, game)[1]) >= 2  # noqa: E731
    asyncio.run(eventually(connected, f"two {game} bots to connect"))


def play(ref: RecordingReferee, make_bot: Callable[..., Bot], author: User, other: User) -> dict[str, list[Match]]:
    """Plays ``MATCHES_PER_GAME`` matches of each game through the referee and records them."""
    ids = {"scrumbrawl": ["a", "b"], "superfantasybrawl": ["c", "d"]}
    played: dict[str, list[Match]] = {}
    for game, config in GAMES.items():
        wait_bots(ref, game)
        bots = [make_bot(author, f"{game[:5]}a", game=game), make_bot(other, f"{game[:5]}b", game=game)]
        for n in range(MATCHES_PER_GAME):
            order = bots if n % 2 == 0 else bots[::-1]
            m = match_services.do_queue_match(game, [b.latest_version for b in order], rated=True, config=config)
            match_services.do_start_match(m.pk, ref.internal)
            referee_client.start_match(
                ref.internal,
                request_id=f"dataset-{m.pk}",
                match_id=str(m.pk),
                game=game,
                bot_ids=ids[game] if n % 2 == 0 else ids[game][::-1],
                names=[b.name for b in order],
                config=m.config,
                seed=m.seed,
                join_timeout=5.0,
                labels={},
            )
            played.setdefault(game, []).append(m)
    for matches in played.values():
        for m in matches:
            results.do_finish_match(m.pk, ref.replay(m.pk, timeout=120), referee_id=ref.internal)
    return {g: [Match.objects.get(pk=m.pk) for m in ms] for g, ms in played.items()}


def test_the_dataset_of_real_matches_is_what_each_bot_received(
    referee: RecordingReferee, make_bot: Callable[..., Bot], author: User, other: User
) -> None:
    played = play(referee, make_bot, author, other)
    checked_events = redealt = 0
    for game, matches in played.items():
        assert matches[0].finished_at is not None
        month = export.month_of(matches[0].finished_at)
        manifest = export.write_dataset(game, month)
        assert manifest["matches"] == MATCHES_PER_GAME and not manifest["skipped"]
        table = pq.read_table(export.folder(game, month) / "decisions.parquet")
        rows = [build.decode_row("decisions", r) for r in table.to_pylist()]
        for m in matches:
            replay = Replay.decode(m.replay_stored() or b"")
            mine = [r for r in rows if r["match_id"] == m.pk]
            # Decision for decision: the replay's log, and every request the bots were sent.
            assert [(r["seat"], r["choice"], r["think_ms"]) for r in mine] == [
                (d.seat, d.option_id, d.think_ms) for d in replay.decisions
            ]
            sent = {(s, n) for (match_id, s, n) in RECEIVED if match_id == str(m.pk)}
            assert sent == {(r["seat"], r["seat_decision"]) for r in mine}, (
                "a decision without a request, or the reverse"
            )
            assert len(sent) == len(replay.decisions)
            for row in mine:
                got = RECEIVED[(str(m.pk), row["seat"], row["seat_decision"])]
                assert row["seat"] == got["seat"]
                assert row["observation"] == got["observation"], f"{game} match {m.pk} decision {row['decision']}"
                assert row["options"] == got["options"]
                later = [
                    n for (mid, s, n) in RECEIVED if mid == str(m.pk) and s == row["seat"] and n > row["seat_decision"]
                ]
                if later and row["events"]:
                    nxt = RECEIVED[(str(m.pk), row["seat"], min(later))]["events"]
                    assert nxt[: len(row["events"])] == row["events"]
                    checked_events += 1
            # Nothing in a row depends on another seat's hidden cards.
            for step in steps(replay):
                if step.index == len(replay.decisions):
                    break
                seat = Seat(mine[step.index]["seat"])
                world = step.match.determinize(seat, SeededChance(1000 + step.index))
                assert mine[step.index]["observation"] == build.wire_observation(game, world.observe(seat))
                assert mine[step.index]["options"] == [build.wire_option(game, o) for o in world.legal_options()]
                others = [Seat(s) for s in range(len(replay.seats)) if s != seat]
                redealt += any(world.observe(s) != step.match.observe(s) for s in others)
    assert checked_events > 0 and redealt > 0  # both checks had something to find
