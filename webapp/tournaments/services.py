"""The only write path for tournaments: the organizer's operations and the format's progress.

Organizer operations (``do_create_tournament``, ``do_open_registration``, ``do_approve_entrant``,
``do_start_tournament``, ``do_pause_tournament``, ``do_resume_tournament``, ``do_replay_match``,
``do_publish_tournament``) check the lifecycle and write rows. Pairings come from the pure format
functions behind :mod:`webapp.tournaments.formats`; this module turns them into queued matches and
feeds finished matches back (:func:`on_match_final`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from referee.core.registry import get_game
from webapp.api import DomainError, InvalidInput
from webapp.bots.models import BotVersion
from webapp.bots.services import check_game
from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchStatus
from webapp.notifications.services import on_match_queued
from webapp.rankings.models import Rating
from webapp.tournaments import formats
from webapp.tournaments.models import Seeding, Tournament, TournamentEntrant, TournamentFormat, TournamentStatus


class WrongStatus(DomainError):
    """The operation is not allowed in the tournament's current status."""

    default_code = "wrong_status"


class RegistrationClosed(DomainError):
    """Entries are not being taken now."""

    default_code = "registration_closed"


NAME_MAX_CHARS = 120
"""Longest tournament name (the column's length)."""
MAX_BEST_OF = 15
"""Longest series."""
MAX_ROUNDS = 50
"""Most Swiss rounds (a Swiss of 2**50 entrants would need 50)."""
MAX_ENTRANT_SEED = 10_000
"""Highest manual seed an organizer may give an entrant."""


def _require(t: Tournament, *allowed: str) -> None:
    if t.status not in allowed:
        raise WrongStatus(f"tournament {t.pk} is {t.status}; this needs {' or '.join(allowed)}")


@transaction.atomic
def do_create_tournament(
    organizer: User,
    *,
    name: str,
    game: str,
    format: str,
    best_of: int = 1,
    time_control: dict[str, Any] | None = None,
    seeding: str = Seeding.RATING,
    rounds: int | None = None,
    registration_opens: datetime | None = None,
    registration_closes: datetime | None = None,
) -> Tournament:
    """Creates a tournament in ``draft``.

    Raises:
        UnknownGame: the game is not registered.
        InvalidInput: the name is too long, the time control or the rounds are out of bounds.
        DomainError: best-of is even or outside 1..15, or the window closes before it opens.
        FormatRefused: the game has no table of the sizes the format seats (``formats.table_sizes``).
    """
    check_game(game)
    if format not in TournamentFormat.values:
        raise DomainError(f"unknown format {format!r}")
    formats.table_sizes(format, get_game(game).info)
    if len(name) > NAME_MAX_CHARS or not name.strip():
        raise InvalidInput(f"the name must have 1 to {NAME_MAX_CHARS} characters")
    if best_of < 1 or best_of % 2 == 0 or best_of > MAX_BEST_OF:
        raise DomainError(f"best_of must be odd and 1 to {MAX_BEST_OF}, got {best_of}")
    if rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
        raise InvalidInput(f"rounds must be 1 to {MAX_ROUNDS}, got {rounds}")
    # Refused now, not when the first game reaches a referee (a bad time control would fail it there).
    time_control = match_services.check_time_control(time_control or {})
    if registration_opens and registration_closes and registration_closes <= registration_opens:
        raise DomainError("registration must close after it opens")
    return Tournament.objects.create(
        name=name,
        game=game,
        format=format,
        best_of=best_of,
        time_control=time_control or {},
        seeding=seeding,
        rounds=rounds,
        registration_opens=registration_opens,
        registration_closes=registration_closes,
        created_by=organizer,
    )


def _locked(tournament_id: int) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament_id)


@transaction.atomic
def do_open_registration(tournament: Tournament) -> Tournament:
    """Moves a draft tournament to ``registration``.

    Raises:
        WrongStatus: it is not a draft.
    """
    t = _locked(tournament.pk)
    _require(t, TournamentStatus.DRAFT)
    t.status = TournamentStatus.REGISTRATION
    t.save(update_fields=["status"])
    return t


@transaction.atomic
def do_register_entrant(
    tournament: Tournament, version: BotVersion, *, now: datetime | None = None
) -> TournamentEntrant:
    """Enters ``version`` (awaiting approval); entering twice returns the existing entry.

    Raises:
        RegistrationClosed: the tournament is not taking entries now.
        DomainError: the bot plays another game.
    """
    now = now or timezone.now()
    t = _locked(tournament.pk)
    if t.status != TournamentStatus.REGISTRATION:
        raise RegistrationClosed(f"tournament {t.pk} is {t.status}, not taking entries")
    if (t.registration_opens and now < t.registration_opens) or (
        t.registration_closes and now >= t.registration_closes
    ):
        raise RegistrationClosed(
            f"registration is open from {t.registration_opens} to {t.registration_closes} (UTC), not at {now}"
        )
    if version.bot.game != t.game:
        raise DomainError(f"{version.bot.name} plays {version.bot.game}, this tournament is {t.game}")
    entrant, _ = TournamentEntrant.objects.get_or_create(tournament=t, bot_version=version)
    return entrant


@transaction.atomic
def do_add_entrant(tournament: Tournament, version: BotVersion) -> TournamentEntrant:
    """The organizer enters ``version`` (any bot of the game, house bots included), approved at once.

    Unlike an author's entry it is allowed in draft too and ignores the registration window:
    the organizer fills the field.

    Raises:
        WrongStatus: the tournament has started.
        DomainError: the bot plays another game.
    """
    t = _locked(tournament.pk)
    _require(t, TournamentStatus.DRAFT, TournamentStatus.REGISTRATION)
    if version.bot.game != t.game:
        raise DomainError(f"{version.bot.name} plays {version.bot.game}, this tournament is {t.game}")
    entrant, _ = TournamentEntrant.objects.get_or_create(tournament=t, bot_version=version)
    if not entrant.approved:
        entrant.approved = True
        entrant.save(update_fields=["approved"])
    return entrant


@transaction.atomic
def do_approve_entrant(entrant: TournamentEntrant, approved: bool = True, seed: int | None = None) -> TournamentEntrant:
    """Approves (or un-approves) an entry, optionally setting its manual seed.

    Raises:
        WrongStatus: the tournament has started.
    """
    t = _locked(entrant.tournament_id)
    _require(t, TournamentStatus.DRAFT, TournamentStatus.REGISTRATION)
    entrant.approved = approved
    fields = ["approved"]
    if seed is not None:
        entrant.seed = seed
        fields.append("seed")
    entrant.save(update_fields=fields)
    return entrant


def _seed_entrants(t: Tournament) -> list[TournamentEntrant]:
    entrants = list(t.entrants.filter(approved=True).select_related("bot_version__bot"))
    if t.seeding == Seeding.RATING:
        elo = dict(
            Rating.objects.filter(game=t.game, bot_version_id__in=[e.bot_version_id for e in entrants]).values_list(
                "bot_version_id", "elo"
            )
        )
        entrants.sort(key=lambda e: (-elo.get(e.bot_version_id, 0.0), e.pk))
    else:
        entrants.sort(key=lambda e: (e.seed if e.seed is not None else 10**9, e.pk))
    for n, e in enumerate(entrants, start=1):
        e.seed = n
    TournamentEntrant.objects.bulk_update(entrants, ["seed"])
    return entrants


@transaction.atomic
def do_start_tournament(tournament: Tournament) -> Tournament:
    """Seeds the approved entrants, builds the format's state and queues the first matches.

    Raises:
        WrongStatus: it is not in draft or registration.
        DomainError: fewer than two entrants are approved, or the format engine refuses.
    """
    t = _locked(tournament.pk)
    _require(t, TournamentStatus.DRAFT, TournamentStatus.REGISTRATION)
    entrants = _seed_entrants(t)
    if len(entrants) < 2:
        raise DomainError("a tournament needs at least two approved entrants")
    t.state = formats.start(
        t.format,
        [e.bot_version_id for e in entrants],
        info=get_game(t.game).info,
        best_of=t.best_of,
        rounds=t.rounds,
        event_id=t.pk,
    )
    t.status = TournamentStatus.RUNNING
    t.save(update_fields=["state", "status"])
    _queue_ready(t)
    return t


def _queue_ready(t: Tournament) -> list[Match]:
    """Queues every game the format says is ready and not yet queued."""
    if t.status != TournamentStatus.RUNNING:
        return []
    queued = []
    existing = set(t.matches.exclude(status=MatchStatus.RESCHEDULED).values_list("tournament_slot", "game_in_series"))
    versions = {v.pk: v for v in BotVersion.objects.filter(entries__tournament=t)}
    for game in formats.ready_games(t.state):
        if (game.slot, game.game_in_series) in existing:
            continue
        queued.append(
            match_services.do_queue_match(
                t.game,
                [versions[v] for v in game.participants],
                rated=False,
                time_control=t.time_control,
                request_id=f"t{t.pk}-{game.slot}-g{game.game_in_series}",
                tournament_id=t.pk,
                tournament_round=game.round,
                tournament_slot=game.slot,
                game_in_series=game.game_in_series,
            )
        )
        on_match_queued(queued[-1])
    return queued


def on_match_final(match: Match) -> None:
    """Feeds a finished (or failed) tournament match into the format and queues what becomes ready."""
    t = _locked(match.tournament_id) if match.tournament_id else None
    if t is None or t.status == TournamentStatus.FINISHED:
        return  # finished by the organizer: a game cancelled then, or ending late, changes nothing
    if match.status == MatchStatus.FINISHED and match.outcome and t.state:
        t.state = formats.record(t.state, match.tournament_slot, match.game_in_series, match.pk, match.outcome["ranks"])
        if formats.is_finished(t.state):
            t.status = TournamentStatus.FINISHED
        t.save(update_fields=["state", "status"])
    _queue_ready(t)


@transaction.atomic
def do_pause_tournament(tournament: Tournament) -> Tournament:
    """Stops queuing new matches (those already queued still run).

    Raises:
        WrongStatus: it is not running.
    """
    t = _locked(tournament.pk)
    _require(t, TournamentStatus.RUNNING)
    t.status = TournamentStatus.PAUSED
    t.save(update_fields=["status"])
    return t


@transaction.atomic
def do_resume_tournament(tournament: Tournament) -> Tournament:
    """Resumes a paused tournament and queues what became ready meanwhile.

    Raises:
        WrongStatus: it is not paused.
    """
    t = _locked(tournament.pk)
    _require(t, TournamentStatus.PAUSED)
    t.status = TournamentStatus.RUNNING
    t.save(update_fields=["status"])
    _queue_ready(t)
    return t


@transaction.atomic
def do_finish_tournament(tournament: Tournament, reason: str = "") -> Tournament:
    """The organizer ends a running or paused tournament now: the standings stay as they are.

    Every match of the tournament still queued or running is cancelled (with ``reason``; the
    authors' webhooks hear of it), and no result arriving later counts. A tournament that has all
    its results finishes by itself; this is for the one that must stop early (a Swiss cut short, a
    stalled bracket). A re-run of one of its games makes it running again.

    Raises:
        WrongStatus: it is not running or paused.
    """
    t = _locked(tournament.pk)
    _require(t, TournamentStatus.RUNNING, TournamentStatus.PAUSED)
    t.status = TournamentStatus.FINISHED
    t.save(update_fields=["status"])
    why = reason or "the organizer finished the tournament"
    for match_id in t.matches.filter(status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]).values_list("id", flat=True):
        match_services.do_cancel_match(match_id, why)
    return t


@transaction.atomic
def do_replay_match(tournament: Tournament, match: Match, reason: str) -> Match:
    """Replaces a disputed game of the tournament with a fresh match (new seed, same seats).

    The format's state forgets the disputed result, so the replacement's result counts instead.

    Raises:
        DomainError: the match is not part of this tournament.
        WrongStatus: the tournament is not running or paused.
    """
    t = _locked(tournament.pk)
    if match.tournament_id != t.pk:
        raise DomainError(f"match {match.pk} is not part of tournament {t.pk}")
    _require(t, TournamentStatus.RUNNING, TournamentStatus.PAUSED, TournamentStatus.FINISHED)
    t.state = formats.forget(t.state, match.pk)
    if t.status == TournamentStatus.FINISHED:
        t.status = TournamentStatus.RUNNING
    t.save(update_fields=["state", "status"])
    replacement = match_services.do_reschedule_match(match.pk, reason)
    on_match_queued(replacement)
    return replacement


@transaction.atomic
def do_publish_tournament(tournament: Tournament, published: bool = True) -> Tournament:
    """Makes the tournament visible (or hidden) to anonymous visitors."""
    t = _locked(tournament.pk)
    t.published = published
    t.save(update_fields=["published"])
    return t


@transaction.atomic
def do_advance_tournament(tournament_id: int, *, max_replays: int = 3) -> list[Match]:
    """Moves a running tournament on when a result path stalled; safe to call at any time.

    Each game whose match failed or was cancelled (a referee lost it, no bot joined) gets a fresh
    match, at most ``max_replays`` times per game, and every game the format says is ready but has
    no match yet is queued. Finished results are never touched.

    Returns:
        The matches queued now.
    """
    t = _locked(tournament_id)
    if t.status != TournamentStatus.RUNNING:
        return []
    queued: list[Match] = []
    dead = t.matches.filter(status__in=[MatchStatus.FAILED, MatchStatus.CANCELLED]).order_by("id")
    for match in dead:
        tries = t.matches.filter(tournament_slot=match.tournament_slot, game_in_series=match.game_in_series).count()
        if tries <= max_replays:
            queued.append(match_services.do_reschedule_match(match.pk, f"replayed: {match.failure or match.status}"))
            on_match_queued(queued[-1])
    queued.extend(_queue_ready(t))
    return queued
