"""A small synchronous client of the referees' internal API (``brawl.referee.v1.RefereeService``).

Which referees exist comes from ``BRAWL_REFEREES`` (comma-separated ``host:port`` of each
referee's *internal* listener, never its bot port; the Django setting of the same name wins when
present). A referee is named by that address everywhere: the address is what ``Match.referee_id``
records, so any worker can reach the referee of a match. Every call presents the service
credential (``authorization: Bearer <secret>``, the secret from
:func:`common.credential.internal_token`: ``BRAWL_INTERNAL_TOKEN``, or the generated file under
the var dir on embedded defaults). Channels are cached per process (Celery's prefork children each
build their own after the fork).

This module converts messages and classifies errors; it holds no scheduling policy. It is neutral
of the web app and the workers (both import it; it imports neither), which the import contracts in
``pyproject.toml`` hold it to.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from brawl.referee.v1 import referee_pb2, referee_pb2_grpc
from google.protobuf import struct_pb2

from common import settings
from common.credential import internal_token

DEFAULT_TIMEOUT = 5.0
"""Seconds any one call may take."""

TRANSIENT = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.RESOURCE_EXHAUSTED}
)
"""Status codes worth retrying: the referee is down, slow or shutting down."""


class RefereeUnavailable(RuntimeError):
    """A referee did not answer (down, restarting, overloaded); retrying later may succeed."""


class RefereeRefused(RuntimeError):
    """A referee refused the request for good (bad game, config or seats); retrying cannot help."""


@dataclass(frozen=True)
class Presence:
    """One connected bot session on one referee."""

    referee: str
    """The referee's address."""
    bot_id: str
    """The bot's id (``Bot`` primary key as text with the Django token store)."""
    version_id: str
    """The version its token belongs to."""
    games: tuple[str, ...]
    """Games the session plays."""
    max_matches: int
    """Seats it accepts at once."""
    active_matches: int
    """Seats it plays now."""

    @property
    def free(self) -> int:
        """Seats it may still take."""
        return max(0, self.max_matches - self.active_matches)


def referee_addresses() -> list[str]:
    """Returns the configured internal addresses of the referees, in order (``127.0.0.1:50052`` when none is set)."""
    return settings.current().referees or ["127.0.0.1:50052"]


_lock = threading.Lock()
_stubs: dict[tuple[int, str], Any] = {}


def stub(address: str) -> Any:
    """Returns a cached ``RefereeServiceStub`` for ``address`` (one channel per process and address)."""
    key = (os.getpid(), address)
    with _lock:
        found = _stubs.get(key)
        if found is None:
            channel = grpc.insecure_channel(address, options=[("grpc.enable_retries", 0)])
            generated: Any = referee_pb2_grpc  # generated code carries no annotations
            found = generated.RefereeServiceStub(channel)
            _stubs[key] = found
        return found


_secrets: dict[tuple[str, str], str] = {}


def credential() -> tuple[tuple[str, str], ...]:
    """Returns the call metadata carrying the service credential.

    Read once per process and configuration (``BRAWL_INTERNAL_TOKEN``, ``BRAWL_VAR_DIR``), not per call.

    Raises:
        InternalTokenError: no secret can be found (production without ``BRAWL_INTERNAL_TOKEN``).
    """
    conf = settings.current()
    key = (conf.internal_token, str(conf.var_dir))
    secret = _secrets.get(key)
    if secret is None:
        secret = _secrets[key] = internal_token()
    return (("authorization", f"Bearer {secret}"),)


def _call(address: str, method: str, request: Any, timeout: float) -> Any:
    try:
        return getattr(stub(address), method)(request, timeout=timeout, metadata=credential())
    except grpc.RpcError as exc:
        code = exc.code() if hasattr(exc, "code") else grpc.StatusCode.UNKNOWN
        detail = exc.details() if hasattr(exc, "details") else str(exc)
        if code in TRANSIENT:
            raise RefereeUnavailable(f"referee {address}: {code.name}: {detail}") from exc
        if code == grpc.StatusCode.NOT_FOUND:
            raise LookupError(f"referee {address}: {detail}") from exc
        raise RefereeRefused(f"referee {address}: {code.name}: {detail}") from exc


def list_bots(address: str, game: str = "", timeout: float = DEFAULT_TIMEOUT) -> tuple[bool, list[Presence]]:
    """Returns whether ``address`` accepts matches, and its connected sessions (of ``game`` if given).

    Raises:
        RefereeUnavailable: the referee did not answer.
        RefereeRefused: it refused the call.
    """
    reply = _call(address, "ListBots", referee_pb2.ListBotsRequest(game=game), timeout)
    return reply.accepting, [
        Presence(
            referee=address,
            bot_id=b.bot_id,
            version_id=b.version_id,
            games=tuple(b.games),
            max_matches=b.max_matches,
            active_matches=b.active_matches,
        )
        for b in reply.bots
    ]


def presence(game: str, addresses: Sequence[str] | None = None) -> tuple[list[Presence], list[str]]:
    """Returns the sessions of ``game`` on every accepting referee, and the referees that did not answer."""
    found: list[Presence] = []
    silent: list[str] = []
    for address in addresses if addresses is not None else referee_addresses():
        try:
            accepting, bots = list_bots(address, game)
        except (RefereeUnavailable, RefereeRefused):
            silent.append(address)
            continue
        if accepting:
            found.extend(bots)
    return found, silent


def start_match(
    address: str,
    *,
    request_id: str,
    match_id: str,
    game: str,
    bot_ids: Sequence[str],
    names: Sequence[str],
    config: Mapping[str, Any],
    seed: int,
    join_timeout: float,
    labels: Mapping[str, str],
    time_control: Mapping[str, Any] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> Any:
    """Starts (or, for a ``request_id`` already seen, finds) a match; returns the referee's ``Match``.

    Raises:
        RefereeUnavailable: the referee did not answer.
        RefereeRefused: it refused the match (unknown game, bad config, match id taken).
    """
    struct = struct_pb2.Struct()
    struct.update(dict(config))
    request = referee_pb2.StartMatchRequest(
        request_id=request_id,
        match_id=match_id,
        game=game,
        seats=[referee_pb2.Seat(bot_id=b, display_name=n) for b, n in zip(bot_ids, names, strict=True)],
        config=struct,
        seed=seed,
        join_timeout_seconds=join_timeout,
        labels=dict(labels),
    )
    tc = time_control_proto(time_control or {})
    if tc is not None:
        request.time_control.CopyFrom(tc)
    return _call(address, "StartMatch", request, timeout).match


def time_control_proto(data: Mapping[str, Any]) -> Any | None:
    """Returns the referee's ``TimeControl`` for a match's ``time_control`` data, or ``None`` for the defaults.

    ``per_decision_ms`` and ``bank_ms`` map to the decision and bank times; ``increment_ms`` has no
    counterpart in the referee's time control and is ignored.
    """
    from brawl.bot.v1 import bot_pb2

    tc = bot_pb2.TimeControl()
    if data.get("per_decision_ms"):
        tc.decision_time.FromMilliseconds(int(data["per_decision_ms"]))
    if data.get("bank_ms"):
        tc.bank_time.FromMilliseconds(int(data["bank_ms"]))
    return tc if tc.ListFields() else None


def get_match(address: str, match_id: str, timeout: float = DEFAULT_TIMEOUT) -> Any | None:
    """Returns the referee's ``Match``, or ``None`` when the referee does not know it.

    Raises:
        RefereeUnavailable: the referee did not answer.
        RefereeRefused: it refused the call.
    """
    try:
        return _call(address, "GetMatch", referee_pb2.GetMatchRequest(match_id=match_id), timeout).match
    except LookupError:
        return None


def cancel_match(address: str, match_id: str, reason: str, timeout: float = 10.0) -> Any | None:
    """Cancels a match on its referee; returns it, or ``None`` when unknown.

    Raises:
        RefereeUnavailable: the referee did not answer.
    """
    request = referee_pb2.CancelMatchRequest(request_id=f"cancel-{match_id}", match_id=match_id, reason=reason)
    try:
        return _call(address, "CancelMatch", request, timeout).match
    except LookupError:
        return None


ENDED = frozenset(
    {
        referee_pb2.Match.STATE_SUCCEEDED,
        referee_pb2.Match.STATE_CANCELLED,
        referee_pb2.Match.STATE_FAILED,
    }
)
"""Referee match states after which it will not report the match again."""


def watch_match(address: str, match_id: str, timeout: float | None = None) -> Any:
    """Opens the public ``WatchMatch`` stream of a match on its referee.

    The returned call is an iterator of ``WatchMatchResponse`` (the spectator view now, then one
    per decision, the last with the outcome) and can be stopped early with ``cancel()``. Errors
    surface while iterating, as ``grpc.RpcError`` (``NOT_FOUND`` when the referee does not know
    the match); this function does not classify them because the stream outlives the call.
    """
    return stub(address).WatchMatch(
        referee_pb2.WatchMatchRequest(match_id=match_id), timeout=timeout, metadata=credential()
    )
