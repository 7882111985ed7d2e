"""What the people's tables' tests share: a real ladder stack (referee, worker, house bots) and a seated person.

The referee, the Celery worker and the house bots' farm are real subprocesses (``tests.workers.stack``)
on the test's committed PostgreSQL database and its own Redis database; the ASGI application runs
in the test's own event loop (channels' ``WebsocketCommunicator``) or under daphne (the browser
tests), with the seat clients connecting to the referee's bot port over loopback.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client

from tests.workers.conftest import database_url, redis_url
from tests.workers.stack import Stack
from webapp.bots import services as bot_services
from webapp.bots.models import Bot

HOUSE = "referee.sdk.house:RandomBot"
"""The house bot the tables' tests sit against (uniform over the legal options)."""


@dataclass
class TablesStack:
    """A running stack and the house bots connected to it, by game."""

    stack: Stack
    house: dict[str, Bot]


@pytest.fixture(name="tables_stack")
def tables_stack_fixture(
    transactional_db: Any, tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[TablesStack]:
    """A referee, a worker and one random house bot per game, on a committed database; stopped afterwards."""
    import redis

    from workers.celery import app

    url = redis_url()
    redis.Redis.from_url(url).flushdb()
    monkeypatch.setenv("REDIS_URL", url)
    app.conf.broker_url = url
    app._after_fork()
    settings.BRAWL_DISPATCH = "celery"
    settings.BRAWL_RUN_MATCH_TASK = "workers.tasks.start_match"
    stack = Stack(
        tmp_path, {"DATABASE_URL": database_url(), "REDIS_URL": url, "BRAWL_ENV": "test", "LOG_LEVEL": "INFO"}
    )
    try:
        stack.start_referee()
        settings.BRAWL_TABLES_REFEREE = stack.bot_address()
        owner, _ = User.objects.get_or_create(username="house")
        house, entries = {}, []
        for game in ("scrumbrawl", "superfantasybrawl"):
            bot, issued = bot_services.do_create_bot(owner, game, f"house-random-{game[:5]}", is_house=True)
            house[game] = bot
            entries.append({"bot": HOUSE, "token": issued.token, "max_matches": 8})
        stack.start_bots(entries)
        stack.start_worker("worker", concurrency=1)
        yield TablesStack(stack, house)
    finally:
        stack.stop()
        from django.db import connections

        for conn in connections.all():
            conn.close()


async def finish_scenario() -> None:
    """Stops this process's seat clients and closes the database connection of the ORM's async thread."""
    from asgiref.sync import sync_to_async
    from django.db import connections

    from webapp.tables import seats as seat_clients

    await seat_clients.stop_all()
    await sync_to_async(connections.close_all)()


def session_cookie(user: User) -> str:
    """A signed-in session of ``user``, as its cookie header value."""
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def communicator(table_id: int, cookie: str, origin: str = "http://127.0.0.1") -> WebsocketCommunicator:
    """A socket on ``/ws/tables/<id>/`` through the real ASGI application, with ``cookie``."""
    from webapp.asgi import application

    return WebsocketCommunicator(
        application,
        f"/ws/tables/{table_id}/",
        headers=[(b"cookie", cookie.encode()), (b"origin", origin.encode()), (b"host", b"127.0.0.1")],
    )


async def receive_until(
    comm: WebsocketCommunicator,
    check: Callable[[dict[str, Any]], bool],
    timeout: float = 60,
    seen: list[str] | None = None,
) -> dict[str, Any]:
    """Returns the first message from the socket that passes ``check`` (the others are dropped; ``seen`` keeps all)."""
    async with asyncio.timeout(timeout):
        while True:
            raw = await comm.receive_from(timeout=timeout)
            if seen is not None:
                seen.append(raw)
            msg = json.loads(raw)
            if check(msg):
                return dict(msg)


def is_turn(msg: dict[str, Any]) -> bool:
    return msg.get("type") == "state" and (msg.get("turn") is not None or msg.get("outcome") is not None)


async def play_out(
    comm: WebsocketCommunicator,
    pending: dict[str, Any] | None = None,
    pick: Callable[[dict[str, Any]], str] | None = None,
    seen: list[str] | None = None,
) -> dict[str, Any]:
    """Answers every decision of the seat (the first option, or ``pick``'s) until the outcome; returns the last state.

    ``pending`` is a state already received whose decision is still to answer.
    """
    while True:
        msg, pending = pending or await receive_until(comm, is_turn, seen=seen), None
        if msg["outcome"] is not None:
            return msg
        turn = msg["turn"]
        option = pick(msg) if pick else turn["options"][0]["id"]
        await comm.send_to(
            text_data=json.dumps({"type": "answer", "decision_id": turn["decision_id"], "option_id": option})
        )
