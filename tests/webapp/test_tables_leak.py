"""Leak test of people's tables (issue 26): every message a person's browser got in a whole match of each game.

A person plays a whole match against a house bot through ``/ws/tables/<id>/`` (the real ASGI
application, the real referee, worker and house bot as subprocesses). Every message the socket
sent is kept; once the match is recorded its replay is re-played through the engine, and every
observation the browser was shown must be one the engine gives the person's own seat at some
moment of the match (``observe(seat)``, which the conformance kit proves leaks nothing of other
seats: ``determinize`` re-deals what the seat cannot see and leaves it unchanged), every offered
decision the one the engine asked that seat then, with the same options, every event sentence one
made by the game's own sentence hook of an event that seat may see, and no message before the end names the seed.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import orjson
import pytest
from django.contrib.auth.models import User

from referee.core.ids import Seat
from referee.core.registry import get_game
from referee.core.replay import Replay, steps
from tests.webapp.tables_stack import (
    TablesStack,
    communicator,
    finish_scenario,
    is_turn,
    play_out,
    receive_until,
    session_cookie,
    tables_stack_fixture,  # noqa: F401  (the fixture)
)
from tests.workers.stack import wait_until
from webapp.datasets import build
from webapp.matches.models import Match, MatchStatus
from webapp.tables import seats as seat_clients
from webapp.tables import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]

ME = Seat(0)


def canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


@pytest.mark.parametrize("game", ["scrumbrawl", "superfantasybrawl"])
def test_a_whole_match_shows_the_person_only_what_their_seat_may_see(tables_stack: TablesStack, game: str) -> None:
    person = User.objects.create_user(f"leak-{game}")
    table = services.do_open_table(
        person,
        game,
        "2",
        [services.SeatSpec(services.ME), services.SeatSpec("bot", tables_stack.house[game].pk)],
        decision_seconds=30,
        bank_minutes=2,
        rounds=1,
    )
    cookie = session_cookie(person)
    seen: list[str] = []

    async def scenario() -> dict[str, Any]:
        comm = communicator(table.pk, cookie)
        connected, _ = await comm.connect()
        assert connected
        first = await receive_until(comm, is_turn, seen=seen)
        last = await play_out(comm, first, seen=seen)
        await comm.disconnect()
        await finish_scenario()
        return last

    last = asyncio.run(scenario())
    table.refresh_from_db()
    wait_until(
        lambda: Match.objects.filter(pk=table.match_id, status=MatchStatus.FINISHED).exists(), 60, "the recording"
    )
    match = Match.objects.get(pk=table.match_id)
    replay = Replay.decode(match.replay_stored() or b"")
    names = [s.bot_version.bot.name for s in match.seats.order_by("seat")]

    # What the engine gives seat 0 at every moment, and what it asks seat 0 with which options.
    engine = get_game(game)
    observations: set[bytes] = set()
    asked: set[tuple[bytes, tuple[str, ...]]] = set()
    sentences: set[str] = set()
    known: dict[str, str] = {}
    """The piece names seat 0's own boards have shown so far (the page names pieces in sentences by them)."""
    for step in steps(replay):
        wire = build.wire_observation(game, step.match.observe(ME))
        observations.add(canonical(wire))
        for e in step.match.events(0, ME) if step.index == 0 else step.events:  # the deal, then each decision's
            if e.visible(ME):
                sentences.add(engine.event_text(e, ME, dict(known)))
                sentences.add(seat_clients.event_text(e.kind, build.wire_event(game, e)["data"], names))
        board = seat_clients.seat_board(engine, wire, 0)
        if board is not None:
            known.update(board.names())
        for e in step.events:  # the same events, named with what the seat's board shows after them
            if e.visible(ME):
                sentences.add(engine.event_text(e, ME, dict(known)))
        decision = step.match.to_move() if step.index < len(replay.decisions) else None
        if decision is not None and decision.seat == ME:
            ids = tuple(o.id for o in step.match.legal_options())
            asked.add((canonical(build.wire_observation(game, step.match.observe(ME))), ids))

    states = [json.loads(raw) for raw in seen]
    states = [m for m in states if m.get("type") == "state"]
    assert len(states) > 5 and last["outcome"] is not None
    turns = 0
    for m in states:
        assert m["seat"] == 0
        assert canonical(m["observation"]) in observations, f"{game}: an observation the engine never gave seat 0"
        if m["turn"] is not None:
            turns += 1
            key = (canonical(m["observation"]), tuple(o["id"] for o in m["turn"]["options"]))
            assert key in asked, f"{game}: a decision or options the engine never offered seat 0"
        for text in m["events"]:
            assert text in sentences, f"{game}: an event sentence of no event seat 0 may see: {text!r}"
    assert turns > 3
    before_end = [raw for raw, m in zip(seen, map(json.loads, seen), strict=True) if m.get("outcome") is None]
    assert before_end and not any(str(replay.seed) in raw for raw in before_end)
