"""Several referees: bot presence and seat relay between referee processes through Redis.

A match runs on one referee (its *origin*). When a seat's bot is connected to another referee (a
*host*), the origin claims the seat from the host and plays it through a :class:`RelayLink`: the
match runner sees one more :class:`~referee.server.match.SeatLink`, whose messages travel over the
host's Redis stream to the bot's session, and whose answers come back over the origin's stream.

Redis keys (``prefix`` defaults to ``brawl``):

- ``<prefix>:presence:<bot_id>:<referee_id>``: JSON ``{"free": seats, "games": [...]}`` with a
  10 s TTL, refreshed every 2 s and whenever sessions change;
- ``<prefix>:referee:<referee_id>``: the referee's lease, its boot id (new at every start), with a
  TTL of ``BRAWL_REFEREE_LEASE`` seconds (10 by default), refreshed five times per TTL. A host
  checks the lease of every origin it lends seats to: when the lease has lapsed or names another
  boot (the origin died, or restarted and forgot its matches), the host frees the lent seats,
  since no ``match_end`` will ever come from that origin; the match itself goes on elsewhere (below);
- ``<prefix>:relay:<referee_id>``: the stream each referee reads; entries carry a type ``t``:
  ``claim``/``claimed``/``refused`` (seat placement), ``to_bot`` (a serialised
  ``ConnectResponse`` for a hosted seat), ``answer`` (a serialised ``Answer`` back to the origin),
  ``detached`` (the hosted bot's stream ended), ``release`` (the origin no longer needs a hosted
  seat: sent for every relayed seat when its match ends or is dropped here).

The relay also carries the match journal (:mod:`referee.server.journal`, same Redis and prefix):
at every lease refresh each referee looks for journaled matches whose owner's lease lapsed and
adopts them (:meth:`RedisRelay.take_over_orphans`); the journal's claim lets exactly one win. So
a referee that dies does not take its matches with it: another one finishes them.

What it does not do: it does not choose where a match runs (the worker calls the referee it
likes; that referee becomes the origin).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import redis.asyncio as aioredis
from brawl.bot.v1 import bot_pb2

from common import settings
from referee.core.ids import BotId, MatchId, Seat
from referee.server.journal import RedisJournal, keys
from referee.server.outgoing import Outgoing, as_bytes

if TYPE_CHECKING:
    from referee.server.auth import BotIdentity
    from referee.server.match import MatchRunner
    from referee.server.state import MatchState

log = logging.getLogger(__name__)


class HostedSession(Protocol):
    """What the relay asks of a local bot's session (``referee.server.hub.BotSession``)."""

    @property
    def identity(self) -> BotIdentity: ...
    @property
    def games(self) -> frozenset[str]: ...
    @property
    def seats(self) -> set[tuple[MatchId, Seat]]: ...
    @property
    def auto_pass_kinds(self) -> frozenset[str]: ...
    @property
    def free(self) -> int: ...
    def rtt_credit(self, cap: float) -> float: ...
    def send(self, message: Outgoing) -> None: ...


class RelayedReferee(Protocol):
    """What the relay asks of its referee (``referee.server.hub.Referee``, which creates the relay).

    A protocol rather than an import of the hub: the hub imports this module.
    """

    @property
    def sessions(self) -> Mapping[str, HostedSession]: ...
    @property
    def accepting(self) -> bool: ...
    def get(self, match_id: str) -> MatchRunner | None: ...
    def list(self, state: MatchState | None = None) -> list[MatchRunner]: ...
    def adopt(self, record: Mapping[str, Any]) -> MatchRunner | None: ...
    def orphan(self, bot_id: BotId, match_id: MatchId, seat: Seat) -> None: ...
    def session_for(self, bot_id: BotId, game: str) -> HostedSession | None: ...
    def on_session_ready(self) -> None: ...


Fields = dict[str, str | bytes]
"""One Redis stream entry."""

PRESENCE_TTL = 10
"""Seconds a presence entry lives without a refresh."""

STOP_TIMEOUT = 2.0
"""Seconds :meth:`RedisRelay.stop` waits for its tasks to end."""


def lease_seconds() -> float:
    """The referees' lease TTL: ``BRAWL_REFEREE_LEASE`` seconds (default 10, at least 1).

    A dead referee's matches are taken over about one TTL after it died; a referee stalled for
    longer than a TTL (a long pause) loses its matches to another referee.
    """
    return max(1.0, settings.env("BRAWL_REFEREE_LEASE", settings.parse_seconds, float(PRESENCE_TTL)))


class RelayLink:
    """The origin's link to a seat whose bot is connected to another referee."""

    def __init__(self, relay: RedisRelay, host: str, match_id: MatchId, seat: Seat, credit: float) -> None:
        self.link_id = f"relay-{host}-{match_id}-{seat}"
        self.host = host
        self.match_id = match_id
        self.seat = seat
        self._relay = relay
        self._credit = credit
        self.auto_pass_kinds: frozenset[str] = frozenset()
        """The hosted session's ``Hello.auto_pass_kinds``, sent with the claim."""

    def send(self, message: Outgoing) -> None:
        """Queues the message for the host referee."""
        self._relay.post(
            self.host,
            {"t": "to_bot", "match": self.match_id, "seat": str(int(self.seat)), "data": as_bytes(message)},
        )

    def rtt_credit(self, cap: float) -> float:
        """The bot's round trip to its host plus the relay's, measured at claim time."""
        return min(cap, self._credit)


class RedisRelay:
    """Presence and seat relay for one referee. See the module docstring.

    Args:
        referee: The local referee hub.
        url: The Redis URL.
        referee_id: This referee's id (random by default).
        prefix: Key prefix, so several deployments (or tests) share one Redis.
    """

    def __init__(
        self,
        referee: RelayedReferee,
        url: str = "redis://127.0.0.1:6379/0",
        referee_id: str = "",
        prefix: str = "brawl",
    ) -> None:
        self.referee = referee
        self.redis: aioredis.Redis = aioredis.Redis.from_url(url)
        self.id = referee_id or uuid.uuid4().hex[:12]
        self.boot = uuid.uuid4().hex
        """This process's boot id, published in the lease; a restart under the same id changes it."""
        self.lease_ttl = lease_seconds()
        self.prefix = prefix
        self.journal = RedisJournal(self.redis, prefix, self.id, self.boot)
        """The match journal, fenced by this referee's lease."""
        self.stream = f"{prefix}:relay:{self.id}"
        self.links: dict[tuple[MatchId, Seat], RelayLink] = {}
        """Origin side: seats of local matches played through another referee."""
        self.hosted: dict[tuple[MatchId, Seat], tuple[str, HostedSession]] = {}
        """Host side: seats of remote matches played by a local session, with their origin."""
        self.hosted_boot: dict[tuple[MatchId, Seat], str] = {}
        """Host side: the origin's boot id when it claimed each hosted seat."""
        self._claims: dict[str, asyncio.Future[dict[str, str]]] = {}
        self._claiming: set[tuple[MatchId, Seat]] = set()
        self._outbox: asyncio.Queue[tuple[str, Fields] | None] = asyncio.Queue()
        """Entries for the writer task; ``None`` wakes it to stop."""
        self._closing = False
        self._tasks: list[asyncio.Task[None]] = []
        self._leased = False

    # ----- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Starts the reader, writer and presence tasks."""
        await self.redis.ping()
        self._tasks = [
            asyncio.create_task(self._read(), name="relay-read"),
            asyncio.create_task(self._write(), name="relay-write"),
            asyncio.create_task(self._presence_loop(), name="relay-presence"),
        ]

    async def stop(self) -> None:
        """Stops the tasks and removes this referee's presence.

        The loops also stop on ``_closing``: redis-py may swallow the cancellation of a command in
        flight (or turn it into an exception a loop's ``except Exception`` logs and goes on from);
        the writer then waited on its empty outbox forever, and ``stop`` with it (the hang of the
        shared-port test). So each loop checks the flag, the writer gets a wake-up entry, and
        ``stop`` waits for the tasks a bounded time.
        """
        self._closing = True
        self._outbox.put_nowait(None)
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            _, stuck = await asyncio.wait(self._tasks, timeout=STOP_TIMEOUT)
            for task in stuck:
                log.error("relay: task %s did not stop within %g s", task.get_name(), STOP_TIMEOUT)
        with contextlib.suppress(Exception):
            keys = [k async for k in self.redis.scan_iter(f"{self.prefix}:presence:*:{self.id}")]
            keys.append(f"{self.prefix}:referee:{self.id}".encode())
            if keys:
                await self.redis.delete(*keys)
            await self.redis.delete(self.stream)
        await self.redis.aclose()

    def post(self, referee_id: str, fields: Fields) -> None:
        """Queues a stream entry for ``referee_id`` (sent in order by the writer task)."""
        self._outbox.put_nowait((referee_id, fields))

    async def _write(self) -> None:
        while not self._closing:
            item = await self._outbox.get()
            if item is None:
                return
            target, fields = item
            try:
                entry: Any = fields
                await self.redis.xadd(f"{self.prefix}:relay:{target}", entry, maxlen=10_000, approximate=True)
            except Exception:
                if self._closing:
                    return
                log.exception("relay: cannot post to %s", target)

    # ----- presence ----------------------------------------------------------------------

    async def publish_presence(self) -> None:
        """Writes this referee's free seats per connected bot."""
        per_bot: dict[BotId, dict[str, Any]] = {}
        for s in self.referee.sessions.values():
            entry = per_bot.setdefault(s.identity.bot_id, {"free": 0, "games": set()})
            entry["free"] += max(0, s.free)
            entry["games"] |= set(s.games) or set(s.identity.games) or {"*"}
        pipe = self.redis.pipeline()
        pipe.set(f"{self.prefix}:referee:{self.id}", self.boot, px=int(self.lease_ttl * 1000), get=True)
        for bot_id, entry in per_bot.items():
            value = json.dumps({"free": entry["free"], "games": sorted(entry["games"])})
            pipe.set(f"{self.prefix}:presence:{bot_id}:{self.id}", value, ex=PRESENCE_TTL)
        previous = (await pipe.execute())[0]
        if self._leased and previous != self.boot.encode():
            # The lease lapsed while this referee lived (a stall): others may have taken matches over.
            log.warning("relay: this referee's lease had lapsed; checking which matches are still its own")
            await self.drop_matches_taken_over()
        self._leased = True

    async def drop_matches_taken_over(self) -> int:
        """Stops every local match whose journal another referee owns now; returns how many."""
        lost = 0
        for runner in self.referee.list():
            if runner.is_over() or runner.journal is None:
                continue
            raw: bytes | str | None = await self.redis.get(keys(self.prefix, runner.match_id)[0])
            owner = raw.decode() if isinstance(raw, bytes) else raw
            if owner is not None and owner != self.journal.me:
                runner.lose(f"this referee's lease lapsed and {owner.partition(' ')[0]} took the match over")
                lost += 1
        return lost

    async def _presence_loop(self) -> None:
        while not self._closing:
            try:
                await self.publish_presence()
                await self.free_seats_of_lost_origins()
                await self.detach_seats_of_lost_hosts()
                await self.take_over_orphans()
            except Exception:
                if self._closing:
                    return
                log.exception("relay: presence update failed")
            await asyncio.sleep(min(2.0, self.lease_ttl / 5))

    async def detach_seats_of_lost_hosts(self) -> int:
        """Detaches the relayed seats whose host's lease lapsed; returns how many.

        A dead host sends no ``detached``: without this the seat would wait for answers that never
        come. Detached, the seat gets its reconnect grace and is claimed again wherever its bot
        reappears (or taken locally if it reconnects here).
        """
        hosts = sorted({link.host for link in self.links.values()})
        if not hosts:
            return 0
        values = await self.redis.mget([f"{self.prefix}:referee:{h}" for h in hosts])
        gone = {h for h, v in zip(hosts, values, strict=True) if v is None}
        lost = [(key, link) for key, link in self.links.items() if link.host in gone]
        for key, link in lost:
            log.warning("relay: host %s is gone; seat %s of match %s waits for its bot", link.host, key[1], key[0])
            self._lost_link(key, link)
        return len(lost)

    def _lost_link(self, key: tuple[MatchId, Seat], link: RelayLink) -> None:
        """A relayed seat's bot went away: start its grace, and claim it again wherever the bot shows up."""
        self.links.pop(key, None)
        runner = self.referee.get(key[0])
        if runner is not None and not runner.is_over():
            runner.detach(link)
            bot_id = runner.seats[key[1]].spec.bot_id
            if bot_id is not None:
                self.referee.orphan(bot_id, key[0], key[1])
                self.want_seat(runner, key[1], bot_id)

    async def take_over_orphans(self) -> list[MatchId]:
        """Adopts the journaled matches whose referee's lease lapsed; returns those this referee tried.

        Every live referee tries; the journal's claim makes exactly one of them the owner, and
        the others' runners drop out before they send anything.
        """
        if not self.referee.accepting:
            return []
        tried: list[MatchId] = []
        for match_id in await self.journal.orphans():
            if self.referee.get(match_id) is not None:
                continue
            record = await self.journal.record(match_id)
            if record is None:
                continue
            try:
                runner = self.referee.adopt(record)
            except Exception:
                log.exception("relay: cannot take match %s over", match_id)
                continue
            if runner is not None:
                log.warning("relay: match %s lost its referee; taking it over", match_id)
                tried.append(MatchId(match_id))
        return tried

    async def free_seats_of_lost_origins(self) -> int:
        """Frees the hosted seats whose origin's lease lapsed or changed boot; returns how many."""
        origins = {origin for origin, _ in self.hosted.values()}
        leases: dict[str, str | None] = {}
        for origin in origins:
            raw: bytes | str | None = await self.redis.get(f"{self.prefix}:referee:{origin}")
            leases[origin] = raw.decode() if isinstance(raw, bytes) else raw
        freed = 0
        for key, (origin, session) in list(self.hosted.items()):
            if leases.get(origin) != self.hosted_boot.get(key):
                del self.hosted[key]
                self.hosted_boot.pop(key, None)
                session.seats.discard(key)
                freed += 1
                log.warning("relay: origin %s is gone; freed seat %s of match %s", origin, key[1], key[0])
        if freed:
            self.referee.on_session_ready()
            await self.publish_presence()
        return freed

    async def find_host(self, bot_id: BotId, game: str) -> str | None:
        """Returns another referee where ``bot_id`` has a free seat for ``game``, most free first."""
        best: tuple[int, str] | None = None
        async for key in self.redis.scan_iter(f"{self.prefix}:presence:{bot_id}:*"):
            host = key.decode().rsplit(":", 1)[1]
            if host == self.id:
                continue
            raw = await self.redis.get(key)
            if raw is None:
                continue
            entry = json.loads(raw)
            fits = entry["free"] > 0 and ("*" in entry["games"] or game in entry["games"])
            if fits and (best is None or entry["free"] > best[0]):
                best = (entry["free"], host)
        return best[1] if best else None

    # ----- origin side -------------------------------------------------------------------

    def want_seat(self, runner: MatchRunner, seat: Seat, bot_id: BotId) -> None:
        """Starts claiming ``seat`` from another referee, unless a claim is already running."""
        key = (runner.match_id, seat)
        if key in self._claiming or key in self.links:
            return
        self._claiming.add(key)
        asyncio.get_running_loop().create_task(self._claim(runner, seat, bot_id))

    async def _claim(self, runner: MatchRunner, seat: Seat, bot_id: BotId) -> None:
        key = (runner.match_id, seat)
        try:
            # Keep trying while the seat waits: the bot may connect somewhere a little later.
            while not runner.is_over() and (runner.seats[seat].link is None):
                host = await self.find_host(bot_id, runner.name)
                if host is not None:
                    claim = uuid.uuid4().hex
                    fut: asyncio.Future[dict[str, str]] = asyncio.get_running_loop().create_future()
                    self._claims[claim] = fut
                    sent = asyncio.get_running_loop().time()
                    self.post(
                        host,
                        {
                            "t": "claim",
                            "claim": claim,
                            "match": runner.match_id,
                            "seat": str(int(seat)),
                            "bot": bot_id,
                            "game": runner.name,
                            "origin": self.id,
                            "boot": self.boot,
                        },
                    )
                    try:
                        reply = await asyncio.wait_for(fut, 2.0)
                    except TimeoutError:
                        reply = {"t": "refused"}
                    finally:
                        self._claims.pop(claim, None)
                    if reply.get("t") == "claimed" and runner.seats[seat].link is None and not runner.is_over():
                        relay_rtt = asyncio.get_running_loop().time() - sent
                        credit = relay_rtt + float(reply.get("rtt", "0"))
                        link = RelayLink(self, host, runner.match_id, seat, credit)
                        link.auto_pass_kinds = frozenset(json.loads(reply.get("auto_pass", "[]")))
                        self.links[key] = link
                        runner.attach(seat, link)
                        return
                await asyncio.sleep(0.25)
        finally:
            self._claiming.discard(key)

    def release(self, link: RelayLink) -> None:
        """Forgets a relay link whose match no longer needs it, and tells its host to free the seat.

        After a ``match_end`` the host has freed it already; a match dropped here (taken over by
        another referee) sends none, and without this the host would hold the seat for as long as
        this referee lives.
        """
        self.links.pop((link.match_id, link.seat), None)
        self.post(link.host, {"t": "release", "match": link.match_id, "seat": str(int(link.seat)), "origin": self.id})

    # ----- host side ---------------------------------------------------------------------

    def forward_answer(self, session: HostedSession, answer: bot_pb2.Answer) -> bool:
        """Sends a local bot's answer to the origin of its match; ``False`` if not hosted here."""
        for (match_id, _seat), (origin, hosted_by) in self.hosted.items():
            if match_id == answer.match_id and hosted_by is session:
                self.post(origin, {"t": "answer", "match": match_id, "data": answer.SerializeToString()})
                return True
        return False

    def session_closed(self, session: HostedSession) -> None:
        """Tells origins that a hosted bot's stream ended."""
        for key, (origin, hosted_by) in list(self.hosted.items()):
            if hosted_by is session:
                del self.hosted[key]
                self.hosted_boot.pop(key, None)
                self.post(origin, {"t": "detached", "match": key[0], "seat": str(int(key[1]))})

    def _host_claim(self, f: dict[str, str]) -> None:
        bot_id, game, origin = BotId(f["bot"]), f["game"], f["origin"]
        match_id, seat = MatchId(f["match"]), Seat(int(f["seat"]))
        session = self.referee.session_for(bot_id, game)
        if session is None:
            self.post(origin, {"t": "refused", "claim": f["claim"]})
            return
        session.seats.add((match_id, seat))
        self.hosted[(match_id, seat)] = (origin, session)
        self.hosted_boot[(match_id, seat)] = f.get("boot", "")
        rtt = session.rtt_credit(1.0)
        auto_pass = json.dumps(sorted(session.auto_pass_kinds))
        self.post(origin, {"t": "claimed", "claim": f["claim"], "rtt": f"{rtt:.6f}", "auto_pass": auto_pass})

    # ----- the reader --------------------------------------------------------------------

    async def _read(self) -> None:
        last = "$"
        while not self._closing:
            try:
                batches: Any = await self.redis.xread({self.stream: last}, block=1000, count=100)
            except asyncio.CancelledError:
                raise
            except Exception:
                if self._closing:
                    return
                log.exception("relay: read failed")
                await asyncio.sleep(0.5)
                continue
            for _stream, entries in batches or []:
                for entry_id, raw in entries:
                    last = entry_id
                    try:
                        self._dispatch({k.decode(): v for k, v in raw.items()})
                    except Exception:
                        log.exception("relay: bad entry %r", raw)

    def _dispatch(self, raw: dict[str, bytes]) -> None:
        t = raw["t"].decode()
        if t == "to_bot":
            key = (MatchId(raw["match"].decode()), Seat(int(raw["seat"])))
            hosted = self.hosted.get(key)
            if hosted is None:
                return
            msg = bot_pb2.ConnectResponse.FromString(raw["data"])
            hosted[1].send(msg)
            if msg.WhichOneof("message") == "match_end":
                del self.hosted[key]
                self.hosted_boot.pop(key, None)
                hosted[1].seats.discard(key)
                self.referee.on_session_ready()
                asyncio.get_running_loop().create_task(self.publish_presence())
            return
        if t == "answer":
            match_id = MatchId(raw["match"].decode())
            runner = self.referee.get(match_id)
            answer = bot_pb2.Answer.FromString(raw["data"])
            if runner is None:
                return
            # The answer names no seat: it is for the seat its decision id was sent to (several seats
            # of a window are asked at once), or stale (any link reports it).
            pending = runner.pending_for(answer.decision_id) or runner.pending
            link = self.links.get((match_id, pending.decision.seat)) if pending is not None else None
            if link is None:
                link = next((v for (mid, _), v in self.links.items() if mid == match_id), None)
            if link is not None:
                runner.submit(link, answer)
            return
        text = {k: v.decode() for k, v in raw.items() if k != "data"}
        if t == "claim":
            self._host_claim(text)
        elif t in ("claimed", "refused"):
            fut = self._claims.get(text["claim"])
            if fut is not None and not fut.done():
                fut.set_result(text)
        elif t == "release":
            key = (MatchId(text["match"]), Seat(int(text["seat"])))
            hosted = self.hosted.get(key)
            if hosted is not None and hosted[0] == text["origin"]:
                del self.hosted[key]
                self.hosted_boot.pop(key, None)
                hosted[1].seats.discard(key)
                self.referee.on_session_ready()
                asyncio.get_running_loop().create_task(self.publish_presence())
        elif t == "detached":
            key = (MatchId(text["match"]), Seat(int(text["seat"])))
            link = self.links.get(key)
            if link is not None:
                self._lost_link(key, link)
