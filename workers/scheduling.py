"""What the scheduling tasks do: pair online bots into ladder matches, and start queued matches on a referee.

:func:`schedule_round` reads presence from the referees (``ListBots``), turns it into
``ladder.matchmaking`` candidates with the ratings and recent matches from the database, and
queues the pairings through ``webapp.matches.services.do_queue_match``; the web app's dispatch
sends each new match id to ``start_match`` once the transaction commits.
:func:`start_queued` starts one match on a referee that has its bots: it records the choice
(``do_start_match``, status ``running``) before it calls ``StartMatch`` with the match's
``request_id``, so a repeated or redelivered start goes back to the same referee and the
referee's idempotency makes it a no-op.

Bots split across referees. With the referees' Redis seat relay on (:func:`relay_enabled`), a
match need not find all its bots on one referee: it starts on the referee that has the most of
them (:func:`choose_referee`), which claims the other seats from the referees their bots are
connected to (``referee.server.relay``); only that referee records the result. Ladder rounds then
pair bots across referees too. With the relay off, a ladder round pairs only bots on the same
referee, and a match whose bots are split waits (``NoRefereeYet``) until they are on one referee,
or is cancelled after :data:`OFFLINE_LIMIT`; a tournament game starts anyway on an accepting
referee, and a seat whose bot is not connected there forfeits at the join timeout.

These are plain functions over the database and the referee client; the Celery wrappers
(retries, logging) are in ``workers.tasks``. Nothing here records results (``workers.recording``).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from common import settings
from common.seeding import new_seed
from ladder.ids import BotId, BotVersionId
from ladder.matchmaking import Candidate, MatchmakingConfig, RecentMatch, ScheduledMatch, make_matches
from referee import client as referee_client
from referee.client import Presence, RefereeRefused, RefereeUnavailable
from referee.core.registry import get_game
from webapp.bots.models import Bot, BotVersion
from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchSeat, MatchStatus
from webapp.rankings.services import current_ratings

log = logging.getLogger(__name__)

RECENT_LIMIT = 4_000
"""How many recent matches of the online versions the matchmaker sees (rematch limits, seat balance).

Enough for the rematch limit to be exact within its 24 h window unless the online bots played more
than this many matches in it (about one every 22 s, day and night)."""
LADDER_JOIN_TIMEOUT = 10.0
"""Seconds a ladder match waits for its bots on the referee (they were online when paired)."""
TOURNAMENT_JOIN_TIMEOUT = 60.0
"""Seconds a tournament match waits for its bots; an absent seat then forfeits (referee policy)."""
OFFLINE_LIMIT = timedelta(minutes=2)
"""How long a ladder or challenge match may wait for its bots to come online before it is cancelled."""


def relay_enabled() -> bool:
    """Whether the referees relay seats to each other, so a match may start with its bots split across them.

    ``BRAWL_RELAY`` (``1``/``0``) says so; unset, the relay is assumed on when ``REDIS_URL`` is set,
    because a referee in ladder mode turns it on with that same variable (``brawl referee``).
    """
    return settings.current().relay_enabled


def table_sizes(game: str) -> tuple[int, ...]:
    """Returns the table sizes the ladder uses for ``game``, preferred first, as its info names them.

    ``GameInfo`` refuses a ladder size that is not one of its seat counts, so each is a size the
    engine takes; nothing here asks the engine.

    Raises:
        UnknownGameError: the game is not registered.
    """
    return get_game(game).info.table_sizes


@dataclass(frozen=True)
class RoundReport:
    """What one ladder round did."""

    game: str
    online: int
    """Bots online with this game on some accepting referee."""
    candidates: int
    """Of those, versions with free capacity offered to the matchmaker."""
    queued: list[int]
    """Ids of the matches queued."""
    silent_referees: list[str]
    """Referees that did not answer ``ListBots``."""


def _lock_game(game: str) -> None:
    """Serialises ladder rounds of one game across workers (two rounds would book the same seats)."""
    if connection.vendor == "postgresql":
        key = int.from_bytes(hashlib.sha256(f"ladder:{game}".encode()).digest()[:8], "big", signed=True)
        with connection.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [key])


@dataclass
class Seating:
    """Where each bot of a game has free seats, from one presence read: the one placement rule.

    A ladder round (:func:`schedule_round`) and a start (:func:`start_queued`, through
    :func:`choose_referee`) both read presence through :meth:`read` and place bots with the same
    rule: a bot's home is the referee where it has the most free seats, and a match goes to a
    referee where all its bots have free seats (the most free seats wins), or with the relay to the
    one holding most of its seats. Ties go to the earlier address in ``BRAWL_REFEREES``.
    """

    addresses: list[str]
    """The referees asked, in ``BRAWL_REFEREES`` order."""
    free: dict[str, dict[str, int]]
    """Free seats per referee, per bot id."""
    total: dict[str, dict[str, int]]
    """Session seats (``max_matches`` summed) per referee, per bot id."""
    silent: list[str]
    """Referees that did not answer."""

    @classmethod
    def read(cls, game: str, addresses: Sequence[str] | None = None) -> Seating:
        """Asks every referee (``ListBots``) which bots of ``game`` it has and with how many free seats."""
        asked = list(addresses if addresses is not None else referee_client.referee_addresses())
        sessions, silent = referee_client.presence(game, asked)
        return cls.of(asked, sessions, silent)

    @classmethod
    def of(cls, addresses: Sequence[str], sessions: Sequence[Presence], silent: Sequence[str] = ()) -> Seating:
        """Builds the seating from presence already read."""
        asked = list(addresses)
        free: dict[str, dict[str, int]] = {a: defaultdict(int) for a in asked}
        total: dict[str, dict[str, int]] = {a: defaultdict(int) for a in asked}
        for s in sessions:
            if s.referee not in free:
                asked.append(s.referee)
                free[s.referee], total[s.referee] = defaultdict(int), defaultdict(int)
            free[s.referee][s.bot_id] += s.free
            total[s.referee][s.bot_id] += s.max_matches
        return cls(asked, free, total, list(silent))

    def bots(self) -> set[str]:
        """Every bot connected to some answering referee."""
        return {b for per in self.total.values() for b in per}

    def home(self, bot_id: str) -> tuple[str, int, int] | None:
        """Returns the referee where ``bot_id`` has the most free seats, those seats and its session seats there."""
        best: tuple[str, int, int] | None = None
        for address in self.addresses:
            if bot_id in self.total[address] and (best is None or self.free[address][bot_id] > best[1]):
                best = (address, self.free[address][bot_id], self.total[address][bot_id])
        return best

    def choose(self, bot_ids: Sequence[str], *, relay: bool) -> str | None:
        """Returns the referee to run a match of ``bot_ids`` on, or ``None`` if none fits yet.

        See :func:`choose_referee`.
        """
        need: dict[str, int] = defaultdict(int)
        for b in bot_ids:
            need[b] += 1
        best: tuple[int, str] | None = None
        for address in self.addresses:
            free = self.free[address]
            if all(free[b] >= n for b, n in need.items()):
                score = min(free[b] for b in need)
                if best is None or score > best[0]:
                    best = (score, address)
        if best is not None:
            return best[1]
        if not relay or any(sum(self.free[a][b] for a in self.addresses) < n for b, n in need.items()):
            return None
        split: tuple[int, int, str] | None = None
        for address in self.addresses:
            free = self.free[address]
            local = sum(min(free[b], n) for b, n in need.items())
            # Only a referee that has at least one of the bots: one that has none may be shutting down
            # or silent, which presence does not tell apart from an empty referee.
            if local and (split is None or (local, sum(free[b] for b in need)) > split[:2]):
                split = (local, sum(free[b] for b in need), address)
        return split[2] if split else None


def schedule_round(game: str, tick: str, *, now: datetime | None = None) -> RoundReport:
    """Pairs the online bots of ``game`` with free capacity and queues their matches.

    ``tick`` names this round (the task id): it seeds the matchmaker and makes the matches'
    request ids, so running the same round twice queues nothing twice.

    Raises:
        OperationalError: the database failed (the task retries).
    """
    now = now or timezone.now()
    seating = Seating.read(game)
    home = {b: found for b in seating.bots() if (found := seating.home(b)) is not None}
    # With the relay, where a bot is connected does not limit whom it meets: one pool.
    pooled = relay_enabled()
    with transaction.atomic():
        _lock_game(game)
        bots = {
            str(b.pk): b
            for b in Bot.objects.filter(
                pk__in=[int(k) for k in home if k.isdigit()], game=game, active=True, latest_version__isnull=False
            ).select_related("latest_version")
        }
        # Seats promised to matches the referees have not seen yet (queued), or may not have
        # assigned yet (running), use capacity the referee's count does not show.
        load = {
            row["bot_version__bot_id"]: (row["queued"], row["open"])
            for row in MatchSeat.objects.filter(
                match__status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING], bot_version__bot_id__in=bots.keys()
            )
            .values("bot_version__bot_id")
            .annotate(queued=Count("id", filter=Q(match__status=MatchStatus.QUEUED)), open=Count("id"))
        }
        versions = [b.latest_version_id for b in bots.values() if b.latest_version_id is not None]
        # Matchmaking sees what the next rated game would start from: the stored rating, or a new
        # version's prior (inherited from its bot's previous version), with idle deviation growth.
        ratings = current_ratings(game, versions)
        by_referee: dict[str, list[Candidate]] = defaultdict(list)
        for key, bot in bots.items():
            referee, free, total = home[key]
            version = bot.latest_version
            assert version is not None
            queued_seats, open_seats = load.get(bot.pk, (0, 0))
            capacity = min(free - queued_seats, total - open_seats)
            rating = ratings.get(version.pk)
            if rating is None:
                continue  # its stored rating is refused as corrupt (current_ratings logged which row)
            by_referee["*" if pooled else referee].append(
                Candidate(
                    version=BotVersionId(str(version.pk)),
                    bot=BotId(key),
                    rating=rating.elo,
                    deviation=rating.deviation_at(now),
                    games=rating.games,
                    capacity=max(0, capacity),
                    waiting_since=rating.last_played_at or version.created,
                    # The house's bots are one organizer's sparring partners, not an author's team.
                    owner=None if bot.is_house else str(bot.owner_id),
                )
            )
        config = MatchmakingConfig(
            table_sizes=table_sizes(game),
            rematch_patience=rematch_patience(),
            passes=max(1, min(4, max((c.capacity for cs in by_referee.values() for c in cs), default=1))),
        )
        recent = [
            # The seed marks a mirrored set (its matches share it), which counts as one meeting.
            RecentMatch(
                seats=tuple(BotVersionId(str(s.bot_version_id)) for s in m.seats.all()),
                played_at=m.created,
                seed=m.seed,
            )
            # Only matches of the versions online now can count towards their rematch limits.
            for m in Match.objects.filter(
                game=game,
                tournament__isnull=True,
                created__gte=now - config.rematch_window,
                seats__bot_version_id__in=versions,
            )
            .distinct()
            .order_by("-created")
            .prefetch_related("seats")[:RECENT_LIMIT]
        ]
        digest = hashlib.sha256(f"{game}:{tick}".encode())
        rng = random.Random(int.from_bytes(digest.digest()[:8], "big"))
        round_key = digest.hexdigest()[:32]  # request ids stay well under the column's 64 characters
        # Every candidate has a latest version (the query above requires one).
        versions_by_id = {str(b.latest_version_id): cast(BotVersion, b.latest_version) for b in bots.values()}
        queued: list[int] = []
        planned: list[tuple[str, ScheduledMatch]] = []
        for referee in sorted(by_referee):
            planned.extend((referee, sm) for sm in make_matches(by_referee[referee], recent, now, rng, config))
        # The matchmaker's generator is seeded from the tick, so anyone who knows the tick could
        # compute its seeds: every table draws a secret seed instead, shared by its mirrored set.
        seeds: dict[tuple[str, int], int] = {}
        for i, (referee, sm) in enumerate(planned):
            match = match_services.do_queue_match(
                game,
                [versions_by_id[v] for v in sm.seats],
                rated=True,
                seed=seeds.setdefault((referee, sm.table), new_seed()),
                request_id=f"ladder-{round_key}-{i}",
            )
            queued.append(match.pk)
    candidates = sum(1 for cs in by_referee.values() for c in cs if c.capacity > 0)
    return RoundReport(game, len(home), candidates, queued, seating.silent)


def rematch_patience() -> timedelta:
    """How long a bot waits before the rematch limit gives way for it: ``BRAWL_REMATCH_PATIENCE``
    (seconds), else the matchmaker's default.

    A small ladder plays each pair's daily quota of meetings within minutes and then idles for this
    long between matches; ``brawl run`` shortens it for its four house bots per game, the tests
    for their three bots.

    Raises:
        ConfigurationError: the variable is not a positive number of seconds (a ``ValueError``).
    """
    return settings.current().rematch_patience or MatchmakingConfig().rematch_patience


class NoRefereeYet(Exception):
    """No referee has every bot of the match connected yet; the start is retried later."""


@dataclass(frozen=True)
class StartReport:
    """What one start attempt did."""

    action: str
    """``started`` (the referee accepted or already had it), ``final``, ``cancelled``, ``failed``."""
    referee: str = ""
    """The referee's address."""
    detail: str = ""
    """Why, for logs."""
    bot_ids: tuple[str, ...] = ()
    """The bots of the match, in seat order."""


def choose_referee(
    game: str, bot_ids: Sequence[str], addresses: Sequence[str] | None = None, *, relay: bool | None = None
) -> str | None:
    """Returns the accepting referee to run a match of ``bot_ids`` on, or ``None`` if none fits yet.

    A referee where every bot of the match is connected with a free seat fits; among several, the
    one with the most free seats for the match's bots wins (ties: address order). With the relay
    (``relay``, default :func:`relay_enabled`) and no such referee, the match may still start when
    every bot has enough free seats summed over all referees: it goes to the referee where the most
    of its seats are connected (ties: the most free seats there, then address order), which relays
    the others.

    Raises:
        RefereeUnavailable: no referee answered at all.
    """
    seating = Seating.read(game, addresses)
    if seating.addresses and len(seating.silent) == len(seating.addresses):
        raise RefereeUnavailable(f"no referee answered: {', '.join(seating.silent)}")
    return seating.choose(bot_ids, relay=relay_enabled() if relay is None else relay)


def any_accepting_referee(addresses: Sequence[str] | None = None) -> str | None:
    """Returns the first referee that accepts matches, or ``None``."""
    for address in addresses if addresses is not None else referee_client.referee_addresses():
        try:
            accepting, _ = referee_client.list_bots(address)
        except (RefereeUnavailable, RefereeRefused):
            continue
        if accepting:
            return address
    return None


def start_queued(match_id: int, *, now: datetime | None = None) -> StartReport:
    """Starts match ``match_id`` on a referee; safe to call any number of times.

    Raises:
        NoRefereeYet: the bots are not online on one referee yet (retry later).
        RefereeUnavailable: the chosen referee did not answer (retry later; the reaper takes
            over if it never does).
        OperationalError: the database failed.
    """
    now = now or timezone.now()
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.is_final:
        return StartReport("final", detail="unknown match" if match is None else f"already {match.status}")
    seats = list(match.seats.select_related("bot_version__bot").order_by("seat"))
    bot_ids = [str(s.bot_version.bot_id) for s in seats]
    address = match.referee_id if match.status == MatchStatus.RUNNING else ""
    if not address:
        address = choose_referee(match.game, bot_ids) or ""
        if not address:
            if match.tournament_id is None:
                if now - match.created > OFFLINE_LIMIT:
                    match_services.do_cancel_match(match_id, "its bots were not online")
                    return StartReport("cancelled", detail="bots offline", bot_ids=tuple(bot_ids))
                where = "online" if relay_enabled() else "online on one referee"
                raise NoRefereeYet(f"match {match_id}: bots {bot_ids} are not all {where}")
            # A tournament game goes ahead: the referee's join timeout forfeits a bot that never comes.
            address = any_accepting_referee() or ""
            if not address:
                raise RefereeUnavailable("no referee accepts matches")
        try:
            match = match_services.do_start_match(match_id, address)
        except match_services.MatchAlreadyFinal as exc:
            return StartReport("final", detail=str(exc))
        # A concurrent start may have won the row first with another referee: follow its choice,
        # so the match is never started on two referees.
        address = match.referee_id or address
    kind = "tournament" if match.tournament_id else ("ladder" if match.rated else "challenge")
    labels = {"kind": kind, "match": str(match.pk)}
    if match.tournament_id:
        labels["tournament"] = str(match.tournament_id)
    try:
        referee_client.start_match(
            address,
            request_id=match.request_id,
            match_id=str(match.pk),
            game=match.game,
            bot_ids=bot_ids,
            names=[s.bot_version.bot.name for s in seats],
            config=match.config,
            seed=match.seed,
            join_timeout=TOURNAMENT_JOIN_TIMEOUT if match.tournament_id else LADDER_JOIN_TIMEOUT,
            labels=labels,
            time_control=match.time_control,
        )
    except RefereeRefused as exc:
        with contextlib.suppress(match_services.MatchAlreadyFinal):
            match_services.do_fail_match(match_id, f"the referee refused the match: {exc}")
        return StartReport("failed", address, str(exc), tuple(bot_ids))
    return StartReport("started", address, bot_ids=tuple(bot_ids))
