"""The table socket, ``/ws/tables/<id>/``: one seat's browser, pushed what that seat may see, sending its answers.

A signed-in person seated at the table opens it (the session cookie authenticates it, the origin is
checked against ``ALLOWED_HOSTS``). The consumer starts (or finds) the person's seat client in this
process (``webapp.tables.seats``), starts the table once every seat is filled and every person
connected (``services.do_start``), and forwards everything the seat's channel group gets.

Messages from the browser are JSON objects of at most :data:`MAX_MESSAGE_BYTES`:

- ``{"type": "answer", "decision_id": "...", "option_id": "..."}`` (``"seat"`` may be given; it
  must be the browser's own);
- ``{"type": "resign"}``: the seat forfeits (``docs/people.md``).

Anything else gets ``{"type": "error", "message": "..."}`` and changes nothing: not JSON, too
large, an unknown type, an answer for another seat, an option that is not legal now. A second
browser on a seat already open is refused (another tab of the same browser takes the seat over:
that is how a reload resumes it).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from webapp.bots import services as bot_services
from webapp.bots.models import Bot
from webapp.tables import seats as seat_clients
from webapp.tables import services
from webapp.tables.models import Table, TableSeat, TableStatus

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 4096
"""The largest message a browser may send (an answer is well under 200 bytes)."""
REFEREE_WAIT_SECONDS = 20.0
"""How long a socket's open waits for the person's seat client to be welcomed by the referee."""
CLOSE_REFUSED = 4403
CLOSE_SECOND_BROWSER = 4409
CLOSE_REPLACED = 4000


@dataclass
class Holder:
    """The socket holding a seat in this process."""

    channel: str
    browser: str
    """The browser's session key."""


HOLDERS: dict[tuple[int, int], Holder] = {}
"""Which socket holds each (table, seat) in this process."""


def referee_address() -> str:
    """The referee bot port(s) the seat clients connect to."""
    return settings.BRAWL_TABLES_REFEREE or settings.BRAWL_REFEREE_PUBLIC_ADDRESS


def table_json(table: Table, user_id: int, connected: set[int]) -> dict[str, Any]:
    """The table's public facts for a seated person's page (no token but the invite link's, which they may share)."""
    seats = []
    for s in table.seats.select_related("user", "bot").order_by("seat"):
        name = s.user.username if s.user is not None else (s.bot.name if s.kind == "bot" and s.bot else "")
        seats.append({"seat": s.seat, "kind": s.kind, "name": name, "you": s.user_id == user_id})
    return {
        "type": "table",
        "id": table.pk,
        "game": table.game,
        "mode": table.mode,
        "status": table.status,
        "rated": table.rated,
        "decision_seconds": table.decision_seconds,
        "bank_seconds": table.bank_seconds,
        "seats": seats,
        "match_id": str(table.match_id) if table.match_id else "",
        "waiting_for": services.waiting_for(table, connected) if table.status == TableStatus.OPEN else [],
        "invite": f"/tables/join/{table.invite_token}/",
    }


class TableConsumer(AsyncWebsocketConsumer):
    """One browser's socket on one seat of one table."""

    table_id: int
    game: str
    seat: int
    user_id: int
    browser: str
    match_id: str = ""
    holding: bool = False

    async def connect(self) -> None:
        user = self.scope.get("user")
        await self.accept()
        if user is None or not user.is_authenticated:
            await self.refuse("sign in to sit at a table")
            return
        try:
            self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        except (KeyError, ValueError):
            await self.refuse("no such table")
            return
        self.user_id = int(user.pk)
        found = await database_sync_to_async(self._load_seat)()
        if found is None:
            await self.refuse("you have no seat at this table: follow its invite link to join")
            return
        table, seat = found
        self.game, self.seat = table.game, seat.seat
        session = self.scope.get("session")
        self.browser = str(getattr(session, "session_key", "") or "")
        key = (self.table_id, self.seat)
        holder = HOLDERS.get(key)
        if holder is not None and holder.browser != self.browser:
            await self.refuse("this seat is already open in another browser", CLOSE_SECOND_BROWSER)
            return
        if holder is not None:
            await self.channel_layer.send(holder.channel, {"type": "seat.replaced"})
        HOLDERS[key] = Holder(self.channel_name, self.browser)
        self.holding = True
        await self.channel_layer.group_add(f"table.{self.table_id}", self.channel_name)
        await self.send_table()
        if table.status == TableStatus.FINISHED and table.match_id is None:
            return
        assert seat.bot_id is not None
        bot_id = seat.bot_id
        person = await seat_clients.ensure_session(
            self.user_id, self.game, bot_id, referee_address(), lambda: self._token(bot_id)
        )
        try:
            await asyncio.wait_for(person.connected.wait(), REFEREE_WAIT_SECONDS)
        except TimeoutError:
            # The seat client keeps trying (the SDK reconnects); the table starts on a later open.
            await self.send_error("the referee cannot be reached yet; the table starts once it can")
            return
        match = await database_sync_to_async(services.do_start)(self.table_id, seat_clients.connected_people(self.game))
        if match is not None:
            await self.channel_layer.group_send(f"table.{self.table_id}", {"type": "table.changed"})
        else:
            await self.table_changed({})

    def _load_seat(self) -> tuple[Table, TableSeat] | None:
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return None
        seat = table.seats.filter(user_id=self.user_id).first()
        return None if seat is None else (table, seat)

    @database_sync_to_async
    def _token(self, bot_id: int) -> str:
        # A fresh token each time a session starts; the older ones stop working.
        return bot_services.do_issue_token(Bot.objects.get(pk=bot_id), revoke_others=True).token

    async def refuse(self, message: str, code: int = CLOSE_REFUSED) -> None:
        await self.send_error(message)
        await self.close(code)

    async def send_error(self, message: str) -> None:
        await self.send(text_data=json.dumps({"type": "error", "message": message}))

    async def send_table(self) -> Table | None:
        connected = seat_clients.connected_people(self.game) if hasattr(self, "game") else set()
        found = await database_sync_to_async(self._table_json)(connected)
        if found is None:
            return None
        table, data = found
        await self.send(text_data=json.dumps(data))
        return table

    def _table_json(self, connected: set[int]) -> tuple[Table, dict[str, Any]] | None:
        table = Table.objects.filter(pk=self.table_id).first()
        return None if table is None else (table, table_json(table, self.user_id, connected))

    async def table_changed(self, event: dict[str, Any]) -> None:
        """The table changed (someone joined, it started): the lobby again, and the seat once it plays."""
        table = await self.send_table()
        if table is None or not table.match_id or self.match_id:
            return
        self.match_id = str(table.match_id)
        await self.channel_layer.group_add(seat_clients.seat_group(self.match_id, self.seat), self.channel_name)
        person = seat_clients.session_for(self.user_id, self.game)
        view = person.view(self.match_id, self.seat) if person is not None else None
        if view is not None:
            await self.send(text_data=json.dumps(view.to_json(time.monotonic())))

    async def seat_push(self, event: dict[str, Any]) -> None:
        """The seat's view changed."""
        await self.send(text_data=json.dumps(event["payload"]))

    async def seat_replaced(self, event: dict[str, Any]) -> None:
        """Another tab of this browser took the seat over."""
        self.holding = False
        await self.refuse("this seat was opened in another tab", CLOSE_REPLACED)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        raw = text_data if text_data is not None else (bytes_data or b"").decode("utf-8", "replace")
        if len(raw.encode()) > MAX_MESSAGE_BYTES:
            await self.send_error(f"message too large ({len(raw.encode())} bytes; at most {MAX_MESSAGE_BYTES})")
            return
        try:
            msg = json.loads(raw)
        except ValueError:
            await self.send_error("malformed message: not JSON")
            return
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            await self.send_error('malformed message: expected an object with a "type"')
            return
        if "seat" in msg and msg["seat"] != self.seat:
            await self.send_error(
                f"this socket holds seat {self.seat} (seat {self.seat + 1} on the page); "
                f"it cannot act for seat {str(msg['seat'])[:20]!r}"
            )
            return
        person = seat_clients.session_for(self.user_id, self.game) if hasattr(self, "game") else None
        if msg["type"] == "answer":
            decision, option = msg.get("decision_id"), msg.get("option_id")
            if not isinstance(decision, str) or not isinstance(option, str):
                await self.send_error('an answer needs "decision_id" and "option_id" strings')
                return
            if person is None or not self.match_id:
                await self.send_error("the match has not started yet")
                return
            problem = person.answer(self.match_id, self.seat, decision, option)
            if problem is not None:
                await self.send_error(problem)
            return
        if msg["type"] == "resign":
            if person is None or not self.match_id:
                await self.send_error("the match has not started yet")
                return
            problem = person.resign(self.match_id, self.seat)
            if problem is not None:
                await self.send_error(problem)
            return
        await self.send_error(f"unknown message type {str(msg['type'])[:40]!r}; known: answer, resign")

    async def disconnect(self, code: int) -> None:
        if not hasattr(self, "seat"):
            return
        key = (self.table_id, self.seat)
        holder = HOLDERS.get(key)
        if holder is not None and holder.channel == self.channel_name:
            del HOLDERS[key]
        await self.channel_layer.group_discard(f"table.{self.table_id}", self.channel_name)
        if self.match_id:
            await self.channel_layer.group_discard(seat_clients.seat_group(self.match_id, self.seat), self.channel_name)
