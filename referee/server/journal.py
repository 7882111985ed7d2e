"""The match journal: each match's start record and decisions, made durable in Redis as they are taken.

A referee that dies takes its memory with it, but not its matches: before a match's first request
goes out, its *start record* (game, full config, seed, seats, time control, meta, labels) is in
Redis, and before each next request goes out every decision applied since (and every incident) is
appended to the match's *log*. Another referee rebuilds the match from the start record and the
log through the :class:`~referee.core.replay.Recorder` (the one path every match is played
through) and plays on (:mod:`referee.server.match` does the replaying).

Redis keys (``prefix`` is the relay's, ``brawl`` by default):

- ``<prefix>:journal:<match_id>:start``: the start record, JSON (:func:`dump`). It holds the match's secret
  seed, so it lives only in Redis, which bots and spectators never read (the referee's internal
  API and the web tier never copy it out while the match runs);
- ``<prefix>:journal:<match_id>:log``: a stream, one entry per decision, incident, takeover or
  end (field ``e``, JSON);
- ``<prefix>:journal:<match_id>:owner``: ``"<referee_id> <boot>"`` of the referee playing it, or
  ``done`` (a 24 h tombstone once its result went to the sink, so a retried ``StartMatch`` for
  the same match plays nothing twice);
- ``<prefix>:journals``: the set of match ids with a live journal (what referees scan for orphans).

Ownership is fenced: every append, and the end, runs as one Lua script that first checks the
owner is the caller. A referee takes a match over only through :data:`CLAIM`, which changes the
owner atomically and only while the current owner's lease (``<prefix>:referee:<id>``, see
:mod:`referee.server.relay`) has lapsed or names another boot; so exactly one referee adopts an
orphan, and a referee that was only presumed dead finds its next append refused and drops the
match (it records nothing).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from referee.core.contract import Outcome
from referee.core.errors import EngineError
from referee.core.ids import BotId, Seat
from referee.core.replay import Incident, IncidentKind, Recorder, Replay
from referee.protocol.timecontrol import TimeSettings

DONE = "done"
"""The owner value of a match whose result went to the sink."""
TOMBSTONE_SECONDS = 24 * 3600
"""How long a finished match's tombstone stays (longer than any retried start waits)."""

# KEYS: owner, start, set. ARGV: me, start record ("" to only claim), match id, prefix.
# Returns: "new" (journal created, mine), "mine", "taken" (claimed from a dead owner),
# "elsewhere" (a live referee owns it), "done" (finished), "gone" (no journal, nothing to claim).
CLAIM = """
local cur = redis.call('GET', KEYS[1])
if not cur then
  if ARGV[2] == '' then return 'gone' end
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SET', KEYS[2], ARGV[2])
  redis.call('SADD', KEYS[3], ARGV[3])
  return 'new'
end
if cur == ARGV[1] then return 'mine' end
if cur == 'done' then return 'done' end
local sp = string.find(cur, ' ', 1, true)
if sp then
  local lease = redis.call('GET', ARGV[4] .. ':referee:' .. string.sub(cur, 1, sp - 1))
  if lease and lease == string.sub(cur, sp + 1) then return 'elsewhere' end
end
if redis.call('EXISTS', KEYS[2]) == 0 then return 'gone' end
redis.call('SET', KEYS[1], ARGV[1])
return 'taken'
"""

# KEYS: owner, log. ARGV: me, entries... Returns 1, or 0 when the caller no longer owns the match.
APPEND = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
for i = 2, #ARGV do redis.call('XADD', KEYS[2], '*', 'e', ARGV[i]) end
return 1
"""

# KEYS: owner, start, log, set. ARGV: me, match id, tombstone seconds, new owner value.
# With a new owner value: hands the match over (its lease check fails for everyone, so any live
# referee adopts it); without: ends the journal and leaves a tombstone.
CLOSE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[4] ~= '' then
  redis.call('SET', KEYS[1], ARGV[4])
  return 1
end
redis.call('SET', KEYS[1], 'done', 'EX', tonumber(ARGV[3]))
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('SREM', KEYS[4], ARGV[2])
return 1
"""


def dump(value: Any) -> bytes:
    """Returns the compact JSON of a start record or log entry, as stored in Redis.

    orjson writes it (UTF-8, not ``\\u`` escapes: JSON either way, so a referee of the previous
    release, which read with the standard library, reads it too); a value orjson refuses (an
    integer past 64 bits, a non-string key) falls back to the standard library's encoder.
    """
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def load(raw: bytes | str) -> Any:
    """Reads what :func:`dump` wrote, or what the standard library's encoder wrote (older journals).

    orjson reads both; the standard library reads what orjson refuses (``NaN``, an integer past
    64 bits), which only the old encoder could have written.

    Raises:
        ValueError: the text is not JSON.
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)


class JournalFenced(RuntimeError):
    """Another referee owns the match now: this one must stop playing it and record nothing."""


def keys(prefix: str, match_id: str) -> tuple[str, str, str, str]:
    """Returns the owner, start, log and set keys of ``match_id``."""
    base = f"{prefix}:journal:{match_id}"
    return f"{base}:owner", f"{base}:start", f"{base}:log", f"{prefix}:journals"


def start_record(
    *,
    match_id: str,
    game: str,
    config: Mapping[str, Any],
    seed: int,
    seats: Sequence[Any],
    time: TimeSettings,
    meta: Mapping[str, Any],
    labels: Mapping[str, str],
    join_timeout: float,
    request_id: str,
) -> dict[str, Any]:
    """Returns the start record of a match: everything needed to build its runner again.

    ``seats`` are :class:`~referee.server.match.SeatSpec` values.
    """
    return {
        "match_id": match_id,
        "game": game,
        "config": dict(config),
        "seed": seed,
        "seats": [{"bot_id": s.bot_id, "house_bot": s.house_bot, "name": s.name} for s in seats],
        "time": dataclasses.asdict(time),
        "meta": dict(meta),
        "labels": dict(labels),
        "join_timeout": join_timeout,
        "request_id": request_id,
        "created": wall_time(),
    }


def time_settings(record: Mapping[str, Any]) -> TimeSettings:
    """Returns the time control of a start record."""
    return TimeSettings(**record["time"])


def seat_bot_ids(record: Mapping[str, Any]) -> list[BotId | None]:
    """Returns the bot id of each seat of a start record (``None`` for house seats)."""
    return [BotId(s["bot_id"]) if s.get("bot_id") else None for s in record["seats"]]


def entries_since(
    replay: Replay, journaled: tuple[int, int], banks: Sequence[float], sent: Sequence[int]
) -> tuple[list[dict[str, Any]], tuple[int, int]]:
    """Returns the log entries a match's journal lacks, in play order, and the counts they bring it to.

    ``journaled`` is (decisions, incidents) already in the log; ``banks`` and ``sent`` are the
    seats' banks and events sent, appended as one ``seats`` entry after anything new.
    """
    d0, i0 = journaled
    dn, inn = len(replay.decisions), len(replay.incidents)
    out: list[dict[str, Any]] = []
    i = i0
    for n in range(d0, dn):
        # An incident recorded while decision n was pending has at == n: it comes before it.
        while i < inn and replay.incidents[i].at <= n:
            out.append(_incident_entry(replay, i))
            i += 1
        d = replay.decisions[n]
        entry: dict[str, Any] = {"k": "d", "n": n, "s": int(d.seat), "o": d.option_id, "src": d.source}
        if d.note:
            entry["note"] = d.note
        if d.think_ms is not None:
            entry["ms"] = d.think_ms
        out.append(entry)
    while i < inn:
        out.append(_incident_entry(replay, i))
        i += 1
    if out:
        out.append({"k": "seats", "bank": list(banks), "sent": list(sent)})
    return out, (dn, inn)


def _incident_entry(replay: Replay, j: int) -> dict[str, Any]:
    inc = replay.incidents[j]
    return {"k": "i", "j": j, "at": inc.at, "s": int(inc.seat), "kind": inc.kind, "detail": inc.detail}


@dataclass
class LogBook:
    """What replaying a journal's log found besides the decisions (see :func:`replay_log`)."""

    events: int = 0
    """Events the replayed decisions added to the full event log."""
    seats: Mapping[str, Any] | None = None
    """The last ``seats`` entry: the seats' banks and events sent."""
    end: Outcome | None = None
    """The outcome the old referee decided (a forfeit or cancellation), if any."""
    takeovers: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """Earlier takeovers: which referee, at which decision."""


def replay_log(entries: Sequence[Mapping[str, Any]], recorder: Recorder) -> LogBook:
    """Applies a journal's decisions and incidents to ``recorder`` (a takeover); returns the rest.

    Raises:
        EngineError: the log skips a decision, or a journaled decision does not apply.
    """
    log_ = recorder.replay
    book = LogBook()
    for e in entries:
        kind = e["k"]
        if kind == "d":
            if e["n"] < len(log_.decisions):
                continue  # written twice by a retried append
            if e["n"] > len(log_.decisions):
                raise EngineError(f"the journal skips from decision {len(log_.decisions)} to {e['n']}")
            applied = recorder.apply(e["o"], source=e["src"], note=e.get("note", ""), think_ms=e.get("ms"))
            book.events += len(applied)
        elif kind == "i":
            if e["j"] == len(log_.incidents):
                log_.incidents.append(Incident(int(e["at"]), Seat(int(e["s"])), IncidentKind(e["kind"]), e["detail"]))
        elif kind == "seats":
            book.seats = e
        elif kind == "end":
            book.end = Outcome.from_json(e["outcome"])
        elif kind == "takeover":
            book.takeovers.append({"referee": e["by"], "at": e["n"]})
    return book


@dataclass
class RedisJournal:
    """One referee's handle on the journals in a Redis (``redis.asyncio``) client.

    Args:
        redis: The client (the relay's).
        prefix: The key prefix (the relay's).
        referee_id: This referee's id (the relay's).
        boot: This process's boot id (the relay's lease value).
    """

    redis: Any
    prefix: str
    referee_id: str
    boot: str
    _append: Any = None
    """The append script, registered once (called by its SHA: the text is not sent per decision)."""

    @property
    def me(self) -> str:
        """This referee's owner value."""
        return f"{self.referee_id} {self.boot}"

    async def claim(self, match_id: str, record: Mapping[str, Any] | None) -> str:
        """Creates the journal (with ``record``) or takes it over from a dead owner; see :data:`CLAIM`."""
        data = dump(record) if record is not None else ""
        owner, start, _log, members = keys(self.prefix, match_id)
        out = await self.redis.eval(CLAIM, 3, owner, start, members, self.me, data, match_id, self.prefix)
        return out.decode() if isinstance(out, bytes) else str(out)

    async def append(self, match_id: str, entries: Sequence[Mapping[str, Any]]) -> None:
        """Appends ``entries`` in order, atomically.

        Raises:
            JournalFenced: another referee owns the match now.
            redis.RedisError: Redis failed (nothing or everything was appended; entries carry
                their index, so a repeat is recognised on rebuild).
        """
        if not entries:
            return
        owner, _start, log_key, _set = keys(self.prefix, match_id)
        data = [dump(e) for e in entries]
        if self._append is None:
            self._append = self.redis.register_script(APPEND)
        if not await self._append(keys=[owner, log_key], args=[self.me, *data]):
            raise JournalFenced(f"match {match_id} belongs to another referee now")

    async def close(self, match_id: str, hand_over: bool = False) -> bool:
        """Ends the journal (tombstone) or, with ``hand_over``, lets any live referee adopt the match.

        Returns whether this referee still owned it.
        """
        owner, start, log_key, members = keys(self.prefix, match_id)
        new_owner = f"{self.referee_id} handed-over" if hand_over else ""
        out = await self.redis.eval(
            CLOSE, 4, owner, start, log_key, members, self.me, match_id, TOMBSTONE_SECONDS, new_owner
        )
        return bool(out)

    async def entries(self, match_id: str) -> list[dict[str, Any]]:
        """Returns the log of ``match_id``, oldest first."""
        _owner, _start, log_key, _set = keys(self.prefix, match_id)
        raw = await self.redis.xrange(log_key)
        return [load(fields[b"e"]) for _id, fields in raw]

    async def record(self, match_id: str) -> dict[str, Any] | None:
        """Returns the start record of ``match_id``, or ``None``."""
        _owner, start, _log, _set = keys(self.prefix, match_id)
        raw = await self.redis.get(start)
        return load(raw) if raw else None

    async def orphans(self) -> list[str]:
        """Returns the journaled matches whose owner's lease has lapsed or names another boot."""
        members = sorted(m.decode() for m in await self.redis.smembers(f"{self.prefix}:journals"))
        if not members:
            return []
        owners = await self.redis.mget([keys(self.prefix, m)[0] for m in members])
        ids = {o.decode().partition(" ")[0] for o in owners if o}
        leases: dict[str, str] = {}
        if ids:
            order = sorted(ids)
            values = await self.redis.mget([f"{self.prefix}:referee:{i}" for i in order])
            leases = {i: v.decode() for i, v in zip(order, values, strict=True) if v}
        out: list[str] = []
        for match_id, raw in zip(members, owners, strict=True):
            if not raw:
                continue  # finished meanwhile (or never created): nothing to adopt
            referee_id, _, boot = raw.decode().partition(" ")
            if referee_id != DONE and leases.get(referee_id) != boot:
                out.append(match_id)
        return out


@dataclass(frozen=True)
class JournalState:
    """What the workers' reaper reads about one match's journal."""

    owner_alive: bool
    """The referee that owns it holds a live lease."""
    idle_seconds: float
    """Seconds since the last entry (or since the start record, without entries)."""
    done: bool
    """The journal ended (the result went to the sink)."""


def read_state(client: Any, prefix: str, match_id: str) -> JournalState | None:
    """Returns the journal state of ``match_id`` from a synchronous Redis client, or ``None`` without one.

    Raises:
        redis.RedisError: Redis failed.
    """
    owner_key, start, log_key, _set = keys(prefix, match_id)
    raw = client.get(owner_key)
    if raw is None:
        return None
    owner = raw.decode()
    if owner == DONE:
        return JournalState(False, 0.0, True)
    referee_id, _, boot = owner.partition(" ")
    lease = client.get(f"{prefix}:referee:{referee_id}")
    alive = lease is not None and lease.decode() == boot
    last = client.xrevrange(log_key, count=1)
    if last:
        at = int(last[0][0].decode().split("-")[0]) / 1000.0
    else:
        record = client.get(start)
        at = float(load(record)["created"]) if record else 0.0
    return JournalState(alive, max(0.0, wall_time() - at), False)


def close_for_good(client: Any, prefix: str, match_id: str) -> None:
    """Tombstones the journal of a match the workers replaced, so no referee adopts it later.

    A referee playing it meanwhile finds its next append refused and stops.

    Raises:
        redis.RedisError: Redis failed.
    """
    owner, start, log_key, members = keys(prefix, match_id)
    pipe = client.pipeline()
    pipe.set(owner, DONE, ex=TOMBSTONE_SECONDS)
    pipe.delete(start, log_key)
    pipe.srem(members, match_id)
    pipe.execute()


def wall_time() -> float:
    """Seconds since the epoch (Redis stream ids are wall-clock milliseconds too)."""
    return time.time()
