"""The only write path for matches and their seats.

A match is queued (:func:`do_queue_match`, :func:`do_request_challenge`), started by a referee
(:func:`do_start_match`, idempotent on ``request_id``) and ended exactly once
(:func:`store_result`, :func:`do_fail_match`, :func:`do_cancel_match`). A result is recorded by
``webapp.results.do_finish_match``, which calls :func:`store_result` (the replay as received and the
referee's per-seat record) and then, in the same transaction and in this order, the bots' counts,
the ratings and the tournament; this app imports none of the apps above it. A match that ends
without a result sends :data:`~webapp.matches.signals.match_failed`, whose receivers (tournaments,
notifications) are independent of each other.
"""

from __future__ import annotations

import gzip
import logging
import statistics
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from common.seeding import new_seed
from referee.core.errors import ConfigError
from referee.core.registry import get_game
from referee.core.replay import STRIKE_KINDS, IncidentKind, Replay
from webapp.api import DomainError, InvalidInput, LimitReached
from webapp.bots.models import Bot, BotVersion
from webapp.matches import dispatch
from webapp.matches.models import Match, MatchSeat, MatchStatus
from webapp.matches.signals import match_failed
from webapp.matches.stats import recount_bots

log = logging.getLogger(__name__)


class MatchAlreadyFinal(DomainError):
    """The match has already reached a final status; it is never finalised twice."""

    default_code = "match_final"


class InvalidChallenge(DomainError):
    """A challenge cannot be made between these bots."""

    status_code = 400
    default_code = "invalid_challenge"


TIME_CONTROL_BOUNDS: dict[str, tuple[int, int]] = {
    "per_decision_ms": (1, 60_000),
    "bank_ms": (0, 3_600_000),
    "increment_ms": (0, 60_000),
}
"""Milliseconds each time-control key may take, inclusive (the referee's bounds: 60 s a decision, an hour of bank)."""
ROUND_CAP_KEYS = ("max_rounds", "round_cap")
"""Config keys that cap a match's rounds (ScrumBrawl, Super Fantasy Brawl)."""
MAX_ROUND_CAP = 100
"""The highest round cap a match may have (the referee refuses more)."""


def check_time_control(data: Any) -> dict[str, int]:
    """Returns ``data`` as a valid match time control, or refuses it before anything is stored.

    Raises:
        InvalidInput: not an object, an unknown key, a value that is not a whole number, or out of
            :data:`TIME_CONTROL_BOUNDS`.
    """
    if not isinstance(data, dict):
        raise InvalidInput("time_control must be an object")
    unknown = sorted(set(data) - set(TIME_CONTROL_BOUNDS))
    if unknown:
        raise InvalidInput(f"time_control has unknown keys {unknown}; known: {sorted(TIME_CONTROL_BOUNDS)}")
    out: dict[str, int] = {}
    for key, value in data.items():
        low, high = TIME_CONTROL_BOUNDS[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidInput(f"time_control.{key} must be a whole number from {low} to {high}, got {value!r}")
        out[key] = value
    return out


def game_config(game: str, seats: int, raw: dict[str, Any] | None = None) -> dict[str, Any]:
    """Returns the engine-validated config for a match of ``game``.

    Raises:
        InvalidChallenge: the game does not take ``seats`` seats, or the engine rejects the config.
    """
    try:
        engine = get_game(game)
        # The table size is refused by the game's info before the engine sees the config.
        engine.info.check_seats(seats)
        config = engine.parse_config(raw or {}, seats)
    except ConfigError as exc:
        raise InvalidChallenge(f"invalid config for {game}: {exc}") from exc
    for key in ROUND_CAP_KEYS:
        cap = config.get(key)
        if isinstance(cap, int) and not isinstance(cap, bool) and cap > MAX_ROUND_CAP:
            raise InvalidChallenge(f"invalid config for {game}: {key} {cap} is over {MAX_ROUND_CAP}")
    return config


@transaction.atomic
def do_queue_match(
    game: str,
    versions: Sequence[BotVersion],
    *,
    rated: bool,
    config: dict[str, Any] | None = None,
    time_control: dict[str, Any] | None = None,
    seed: int | None = None,
    request_id: str | None = None,
    requested_by: User | None = None,
    tournament_id: int | None = None,
    tournament_round: int | None = None,
    tournament_slot: str = "",
    game_in_series: int = 1,
    replaces: Match | None = None,
) -> Match:
    """Creates a queued match with one seat per version, in order, and hands it to the workers.

    The one creation path of matches: it draws the seed (``common.seeding.new_seed``) unless
    the caller brings one (the matchmaker's, shared by a mirrored set), and publishes the seed's
    commitment on the row in the same transaction, before any worker can start the match.
    With a ``request_id`` already used, returns the existing match instead (idempotent).
    """
    if request_id:
        existing = Match.objects.filter(request_id=request_id).first()
        if existing is not None:
            return existing
    match = Match(
        game=game,
        config=game_config(game, len(versions), config),
        time_control=check_time_control(time_control or {}),
        seed=new_seed() if seed is None else seed,
        rated=rated,
        requested_by=requested_by,
        tournament_id=tournament_id,
        tournament_round=tournament_round,
        tournament_slot=tournament_slot,
        game_in_series=game_in_series,
        replaces=replaces,
    )
    if request_id:
        match.request_id = request_id
    try:
        with transaction.atomic():
            match.save()
    except IntegrityError:
        # A concurrent request with the same id won the race: answer with its match.
        return Match.objects.get(request_id=request_id)
    # The commitment hashes the referee's match id, which is the row id: known only after the insert.
    match.commit_seed()
    match.save(update_fields=["seed_commitment"])
    MatchSeat.objects.bulk_create(MatchSeat(match=match, seat=i, bot_version=v) for i, v in enumerate(versions))
    dispatch.enqueue_match(match.pk)
    return match


def challenge_window(now: datetime) -> tuple[datetime, datetime]:
    """Returns the UTC day containing ``now``: the window the daily challenge limit counts in."""
    start = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return start, start + timedelta(days=1)


@transaction.atomic
def do_request_challenge(user: User, bot: Bot, opponent: Bot, *, now: datetime | None = None) -> Match:
    """Queues an unrated match between the latest versions of ``bot`` (the user's) and ``opponent``.

    Raises:
        InvalidChallenge: the bots play different games, are the same bot, or one is inactive.
        LimitReached: the user spent today's challenges; says when the limit resets.
    """
    now = now or timezone.now()
    if bot.game != opponent.game:
        raise InvalidChallenge(f"{bot.name} plays {bot.game} but {opponent.name} plays {opponent.game}")
    if bot.pk == opponent.pk:
        raise InvalidChallenge("a bot cannot challenge itself")
    if not (bot.active and opponent.active) or bot.latest_version is None or opponent.latest_version is None:
        raise InvalidChallenge("both bots must be active and have a version")
    # Lock the user's row so two simultaneous requests cannot both take the last challenge.
    User.objects.select_for_update().filter(pk=user.pk).first()
    start, resets_at = challenge_window(now)
    used = Match.objects.filter(requested_by=user, created__gte=start, created__lt=resets_at).count()
    limit = settings.BRAWL_CHALLENGES_PER_DAY
    if used >= limit:
        raise LimitReached(
            f"you have used all {limit} challenge matches for today; the limit resets at "
            f"{resets_at.isoformat()} (midnight UTC)",
            resets_at=resets_at,
            now=now,
        )
    return do_queue_match(bot.game, [bot.latest_version, opponent.latest_version], rated=False, requested_by=user)


def challenges_left(user: User, now: datetime | None = None) -> tuple[int, datetime]:
    """Returns how many challenges ``user`` may still request today, and when the count resets."""
    now = now or timezone.now()
    start, resets_at = challenge_window(now)
    used = Match.objects.filter(requested_by=user, created__gte=start, created__lt=resets_at).count()
    return max(0, settings.BRAWL_CHALLENGES_PER_DAY - used), resets_at


@transaction.atomic
def do_start_match(match_id: int, referee_id: str) -> Match:
    """Marks a queued match as running on ``referee_id``; starting it again is a no-op.

    Raises:
        MatchAlreadyFinal: the match has already ended.
    """
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.is_final:
        raise MatchAlreadyFinal(f"match {match_id} is already {match.status}")
    if match.status == MatchStatus.RUNNING:
        return match
    match.status = MatchStatus.RUNNING
    match.referee_id = referee_id
    match.started_at = timezone.now()
    match.save(update_fields=["status", "referee_id", "started_at"])
    return match


LATENCY_FIELDS = ("mean_latency_ms", "p95_latency_ms", "max_latency_ms", "timed_decisions")
"""The seat's think-time figures, the one place latency is stored."""


def seat_records(replay: Replay) -> list[dict[str, Any]]:
    """Returns, per seat, what the referee recorded: strikes, timeouts, illegal answers, mean latency.

    Strikes are the incidents whose kind is a strike (``referee.core.replay.STRIKE_KINDS``): the
    referee records exactly one such incident per strike, so the count equals the referee's.
    """
    out: list[dict[str, Any]] = []
    for seat in range(len(replay.seats)):
        kinds = [i.kind for i in replay.incidents if int(i.seat) == seat]
        times = [d.think_ms for d in replay.decisions if int(d.seat) == seat and d.think_ms is not None]
        out.append(
            {
                "strikes": sum(1 for k in kinds if k in STRIKE_KINDS),
                "timeouts": kinds.count(IncidentKind.TIMEOUT),
                "illegal_answers": kinds.count(IncidentKind.ILLEGAL_ANSWER)
                + kinds.count(IncidentKind.MALFORMED_ANSWER),
                "mean_latency_ms": statistics.fmean(times) if times else None,
                "p95_latency_ms": sorted(times)[max(0, int(len(times) * 0.95) - 1)] if times else None,
                "max_latency_ms": max(times) if times else None,
                "timed_decisions": len(times),
            }
        )
    return out


def compressed(data: bytes) -> bytes:
    """Returns replay bytes as stored: a gzip stream as it is, plain replay JSON gzip-compressed."""
    return data if data[:2] == b"\x1f\x8b" else gzip.compress(data, mtime=0)


def store_replay(match: Match, data: bytes) -> None:
    """Puts the compressed replay bytes in the row, or in a file when larger than the inline limit."""
    data = compressed(data)
    if len(data) <= settings.BRAWL_INLINE_REPLAY_MAX_BYTES:
        match.replay_gz = data
        match.replay_path = ""
        return
    settings.REPLAY_DIR.mkdir(parents=True, exist_ok=True)
    name = f"{match.pk}.json.gz"
    (settings.REPLAY_DIR / name).write_bytes(data)
    match.replay_gz = None
    match.replay_path = name


@transaction.atomic
def store_result(match_id: int, replay: Replay, *, referee_id: str = "") -> tuple[Match, list[MatchSeat]]:
    """Ends a match with its result, exactly once: the replay's bytes, the outcome and the seats' records.

    Only this app's rows: ``webapp.results.do_finish_match`` calls it and then the apps above (counts,
    ratings, tournament). The replay is stored as staged (:func:`do_stage_result`: the bytes the
    referee sent, never re-encoded); a replay given without staged bytes is encoded once here.

    Returns:
        The match (finished) and its seats in seat order, ranks set.

    Raises:
        MatchAlreadyFinal: the match is already final (a second report is refused, not re-applied).
        DomainError: the replay has no outcome or does not fit the match's seats.
    """
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.is_final:
        raise MatchAlreadyFinal(f"match {match_id} is already {match.status}")
    if replay.outcome is None:
        raise DomainError("a finished match needs an outcome")
    seats = list(match.seats.order_by("seat"))
    if len(seats) != len(replay.seats) or len(replay.outcome.ranks) != len(seats):
        raise DomainError(f"match {match_id} has {len(seats)} seats but the replay has {len(replay.seats)}")
    now = timezone.now()
    records = seat_records(replay)
    outcome = replay.outcome
    for seat, record in zip(seats, records, strict=True):
        seat.rank = outcome.ranks[seat.seat]
        seat.score = outcome.scores[seat.seat] if len(outcome.scores) == len(seats) else None
        seat.strikes = record["strikes"]
        seat.timeouts = record["timeouts"]
        seat.illegal_answers = record["illegal_answers"]
        # Latency lives on the seat only; the match detail's ``latency`` is built from it.
        for name in LATENCY_FIELDS:
            setattr(seat, name, record[name])
    MatchSeat.objects.bulk_update(seats, ["rank", "score", "strikes", "timeouts", "illegal_answers", *LATENCY_FIELDS])
    match.status = MatchStatus.FINISHED
    match.outcome = outcome.to_json()
    match.incidents = [i.to_json() for i in replay.incidents]
    match.finished_at = now
    match.referee_id = referee_id or match.referee_id
    match.started_at = match.started_at or now
    staged = match.replay_stored() if match.has_replay else None
    store_replay(match, staged if staged is not None else replay.encode())
    match.save(
        update_fields=[
            "status",
            "outcome",
            "incidents",
            "finished_at",
            "referee_id",
            "started_at",
            "replay_gz",
            "replay_path",
        ]
    )
    # DEBUG: the worker's "record" line is the match's end at INFO; a line here too would double it.
    log.debug("match finished", extra={"match_id": match.pk, "termination": outcome.termination.value})
    return match, seats


@transaction.atomic
def do_fail_match(match_id: int, reason: str, *, status: str = MatchStatus.FAILED) -> Match:
    """Ends a match without a result (``failed`` or ``cancelled``).

    Raises:
        MatchAlreadyFinal: the match is already final.
    """
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.is_final:
        raise MatchAlreadyFinal(f"match {match_id} is already {match.status}")
    match.status = status
    match.failure = reason
    match.finished_at = timezone.now()
    match.save(update_fields=["status", "failure", "finished_at"])
    match_failed.send(sender=Match, match=match)  # tournament progress and notifications, in this transaction
    return match


def do_cancel_match(match_id: int, reason: str) -> Match:
    """Cancels a match that has not finished.

    Raises:
        MatchAlreadyFinal: the match is already final.
    """
    return do_fail_match(match_id, reason, status=MatchStatus.CANCELLED)


@transaction.atomic
def do_reschedule_match(match_id: int, reason: str) -> Match:
    """Replaces a match (a disputed tournament game) with a fresh one on a new seed.

    The old match becomes ``rescheduled`` whatever its status; its rating changes stay in the
    append-only history (tournament matches are unrated by default, so usually there are none).

    Returns:
        The replacement match, queued.
    """
    old = Match.objects.select_for_update().get(pk=match_id)
    if old.status == MatchStatus.RESCHEDULED:
        replacement = old.replacements.order_by("-id").first()
        if replacement is not None:
            return replacement
    versions = [s.bot_version for s in old.seats.select_related("bot_version").order_by("seat")]
    was_finished = old.status == MatchStatus.FINISHED
    old.status = MatchStatus.RESCHEDULED
    old.failure = reason
    old.finished_at = old.finished_at or timezone.now()
    old.save(update_fields=["status", "failure", "finished_at"])
    if was_finished:  # its result stops counting for its bots (bot page, leaderboard W-D-L)
        recount_bots({v.bot_id for v in versions})
    return do_queue_match(
        old.game,
        versions,
        rated=old.rated,
        config=old.config,
        time_control=old.time_control,
        requested_by=None,
        tournament_id=old.tournament_id,
        tournament_round=old.tournament_round,
        tournament_slot=old.tournament_slot,
        game_in_series=old.game_in_series,
        replaces=old,
    )


@transaction.atomic
def do_stage_result(match_id: int, data: bytes) -> bool:
    """Keeps a referee's replay bytes on a running match until they are recorded (``webapp.results``).

    The bytes are stored as received (``Replay.encode`` output; plain replay JSON is compressed),
    never decoded and re-encoded. The write is atomic and keyed on the match: a final match, or one
    whose replay is already staged, is left as it is, so a referee repeating itself stores nothing
    new. The replay is kept inline whatever its size, so any worker can read it;
    :func:`store_result` moves a large one to ``REPLAY_DIR`` when it records the match.

    Returns:
        Whether the replay was stored now.
    """
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.is_final or match.has_replay:
        return False
    match.replay_gz = compressed(data)
    match.save(update_fields=["replay_gz"])
    return True
