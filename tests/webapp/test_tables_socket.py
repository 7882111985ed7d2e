"""People's tables over the socket: a person plays a whole match against a house bot on a real referee.

Partitions: a whole match played through ``/ws/tables/<id>/`` (the real ASGI application, the real
referee, worker and house bot as subprocesses), recorded like any match; bad input on the socket
(not JSON, too large, unknown type, another seat's answer, an option that is not legal, a stale
decision) gets a clear message and changes nothing (the match plays on to the same end); a second
browser on the seat is refused, another tab of the same browser takes it over and resumes the view.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from django.contrib.auth.models import User

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
from webapp.matches.models import Match, MatchStatus
from webapp.tables import seats as seat_clients
from webapp.tables import services
from webapp.tables.models import Table, TableStatus

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]


def open_table(user: User, house: Any, game: str) -> Table:
    return services.do_open_table(
        user,
        game,
        "2",
        [services.SeatSpec(services.ME), services.SeatSpec("bot", house.pk)],
        decision_seconds=30,
        bank_minutes=2,
        rounds=1,
    )


def errors_of(msgs: list[dict[str, Any]]) -> list[str]:
    return [m["message"] for m in msgs if m.get("type") == "error"]


def test_a_person_plays_a_whole_match_and_bad_input_changes_nothing(tables_stack: TablesStack) -> None:
    game = "scrumbrawl"
    person = User.objects.create_user("ada")
    table = open_table(person, tables_stack.house[game], game)
    cookie = session_cookie(person)

    async def scenario() -> dict[str, Any]:
        comm = communicator(table.pk, cookie)
        connected, _ = await comm.connect()
        assert connected
        lobby = await receive_until(comm, lambda m: m.get("type") == "table")
        assert [s["kind"] for s in lobby["seats"]] == ["person", "bot"] and lobby["seats"][0]["you"]
        first = await receive_until(comm, is_turn)
        turn = first["turn"]
        assert first["seat"] == 0 and turn["options"] and first["outcome"] is None
        legal = {o["id"] for o in turn["options"]}
        bad: list[str] = []
        for raw in (
            "{not json",
            "x" * 10_000,
            json.dumps(["answer"]),
            json.dumps({"type": "shout"}),
            json.dumps(
                {"type": "answer", "seat": 1, "decision_id": turn["decision_id"], "option_id": next(iter(legal))}
            ),
            json.dumps({"type": "answer", "decision_id": turn["decision_id"], "option_id": "no-such-option"}),
            json.dumps({"type": "answer", "decision_id": "stale", "option_id": next(iter(legal))}),
            json.dumps({"type": "answer", "decision_id": 3}),
        ):
            await comm.send_to(text_data=raw)
            bad.append((await receive_until(comm, lambda m: m.get("type") == "error"))["message"])
        assert "not JSON" in bad[0]
        assert "too large" in bad[1]
        assert "malformed" in bad[2]
        assert "unknown message type 'shout'" in bad[3]
        assert "this socket holds seat 0 (seat 1 on the page); it cannot act for seat '1'" in bad[4]
        assert "'no-such-option' is not one of the legal options" in bad[5]
        assert "no longer open" in bad[6]
        assert "decision_id" in bad[7]
        # Nothing was sent for them: the same decision is still pending, the same options offered.
        session = seat_clients.session_for(person.pk, game)
        assert session is not None
        view = session.view(first["match_id"], 0)
        assert view is not None and view.turn is not None and view.turn["decision_id"] == turn["decision_id"]
        last = await play_out(comm, first, seen=seen)
        await comm.disconnect()
        await finish_scenario()
        return last

    seen: list[str] = []
    last = asyncio.run(scenario())
    assert last["outcome"]["termination"] in {"normal", "round_cap"}, last["outcome"]
    table.refresh_from_db()
    assert table.match is not None

    wait_until(
        lambda: Match.objects.filter(pk=table.match_id, status=MatchStatus.FINISHED).exists(), 60, "the recording"
    )
    match = Match.objects.get(pk=table.match_id)
    assert match.rated is False  # the ladder never rates a people's table
    assert [s.bot_version.bot.is_person for s in match.seats.order_by("seat")] == [True, False]
    assert [s.rank for s in match.seats.order_by("seat")] == last["outcome"]["ranks"]
    # Nothing the browser was sent names the seed, nor the other seat's hand.
    assert len(seen) > 5 and not any(str(match.seed) in raw for raw in seen)
    assert all(json.loads(raw).get("observation", {}).get("viewer", 0) == 0 for raw in seen)
    table.refresh_from_db()
    assert table.status == TableStatus.FINISHED and table.settled


def test_second_browser_is_refused_another_tab_resumes_and_resign_forfeits(tables_stack: TablesStack) -> None:
    game = "superfantasybrawl"
    person = User.objects.create_user("grace")
    table = open_table(person, tables_stack.house[game], game)
    browser_a, browser_b = session_cookie(person), session_cookie(person)

    async def scenario() -> None:
        first = communicator(table.pk, browser_a)
        assert (await first.connect())[0]
        state = await receive_until(first, is_turn)
        other = communicator(table.pk, browser_b)
        assert (await other.connect())[0]
        refused = await receive_until(other, lambda m: m.get("type") == "error")
        assert refused["message"] == "this seat is already open in another browser"
        assert (await other.receive_output(timeout=5))["type"] == "websocket.close"
        # The first browser still holds the seat and the same decision.
        tab = communicator(table.pk, browser_a)
        assert (await tab.connect())[0]
        replaced = await receive_until(first, lambda m: m.get("type") == "error")
        assert replaced["message"] == "this seat was opened in another tab"
        resumed = await receive_until(tab, is_turn)
        assert resumed["turn"]["decision_id"] == state["turn"]["decision_id"]
        assert resumed["observation"] == state["observation"]
        # Resigning: the referee forfeits the seat at once, as on time.
        await tab.send_to(text_data=json.dumps({"type": "resign"}))
        last = await receive_until(tab, lambda m: m.get("type") == "state" and m.get("outcome") is not None)
        assert last["outcome"]["termination"] == "forfeit" and "resigned" in last["outcome"]["reason"]
        assert last["outcome"]["ranks"] == [2, 1]
        await tab.send_to(text_data=json.dumps({"type": "resign"}))
        again = await receive_until(tab, lambda m: m.get("type") == "error")
        assert again["message"] == "the match is over"
        await tab.disconnect()
        await finish_scenario()

    asyncio.run(scenario())


def test_joining_a_full_or_started_table_is_refused(tables_stack: TablesStack) -> None:
    game = "scrumbrawl"
    host, guest, late = (User.objects.create_user(n) for n in ("host", "guest", "late"))
    table = services.do_open_table(
        host,
        game,
        "2",
        [services.SeatSpec(services.ME), services.SeatSpec(services.INVITE)],
        decision_seconds=30,
        bank_minutes=1,
        rounds=1,
    )
    seat = services.do_join(guest, table.invite_token)
    assert seat.seat == 1 and services.do_join(guest, table.invite_token).pk == seat.pk  # again: the same seat
    with pytest.raises(services.TableRefused, match="every seat at this table is taken"):
        services.do_join(late, table.invite_token)
    with pytest.raises(services.TableNotFound):
        services.do_join(late, "not-an-invite")
    cookies = session_cookie(host), session_cookie(guest)

    async def scenario() -> None:
        a, b = communicator(table.pk, cookies[0]), communicator(table.pk, cookies[1])
        assert (await a.connect())[0]
        lobby = await receive_until(a, lambda m: m.get("type") == "table")
        assert lobby["status"] == "open" and any("guest to open the table" in w for w in lobby["waiting_for"])
        assert (await b.connect())[0]
        # Both people are connected: the table starts and each seat gets its own view.
        sa, sb = await asyncio.gather(
            receive_until(a, lambda m: m.get("type") == "state"), receive_until(b, lambda m: m.get("type") == "state")
        )
        assert (sa["seat"], sb["seat"]) == (0, 1)
        with pytest.raises(services.TableRefused, match="already started"):
            await asyncio.to_thread(services.do_join, late, table.invite_token)
        stranger = communicator(table.pk, await asyncio.to_thread(session_cookie, late))
        assert (await stranger.connect())[0]
        refused = await receive_until(stranger, lambda m: m.get("type") == "error")
        assert "no seat at this table" in refused["message"]
        ends = await asyncio.gather(play_out(a, sa if is_turn(sa) else None), play_out(b, sb if is_turn(sb) else None))
        assert ends[0]["outcome"] == ends[1]["outcome"]
        for c in (a, b):
            await c.disconnect()
        await finish_scenario()

    asyncio.run(scenario())


@pytest.mark.slow
def test_a_person_who_runs_out_of_time_loses_as_a_bot_would(tables_stack: TablesStack) -> None:
    """Three late decisions (5 s each, plus the 5 s the bank may give one) forfeit the seat."""
    game = "scrumbrawl"
    person = User.objects.create_user("slow")
    table = services.do_open_table(
        person,
        game,
        "2",
        [services.SeatSpec(services.ME), services.SeatSpec("bot", tables_stack.house[game].pk)],
        decision_seconds=5,
        bank_minutes=1,
        rounds=1,
    )
    cookie = session_cookie(person)

    async def scenario() -> dict[str, Any]:
        comm = communicator(table.pk, cookie)
        assert (await comm.connect())[0]
        end = await receive_until(comm, lambda m: m.get("type") == "state" and m.get("outcome") is not None, 120)
        await comm.disconnect()
        await finish_scenario()
        return end

    end = asyncio.run(scenario())
    assert end["outcome"]["termination"] == "forfeit" and "3 strikes" in end["outcome"]["reason"]
    assert end["outcome"]["ranks"] == [2, 1]
