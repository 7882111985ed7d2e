"""Opening, joining and starting people's tables, and the people's ratings: the one write path of the tables app.

A table starts a referee match through ``matches.services.do_queue_match`` (the one creation path of
matches: the same workers start it on a referee, the same recording records it), unrated on the
ladder: a people's table never changes a ladder rating. Its result goes to the people's pools
instead (:func:`on_match_final`, called by ``webapp.results`` in the recording transaction): each
person's rating per game (``PersonRating``) and each bot's rating against people
(``BotPeopleRating``), with the ladder's Elo maths (``ladder.elo``). A test table (a seated person's
own bot plays) counts nowhere.
"""

from __future__ import annotations

import secrets
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q, QuerySet
from rest_framework import status

from ladder.elo import DEFAULT_RATING, KSchedule, rating_changes
from referee.core.registry import get_game
from webapp.api import DomainError, InvalidInput
from webapp.bots import services as bot_services
from webapp.bots.models import Bot
from webapp.matches import services as match_services
from webapp.matches.models import Match, MatchSeat
from webapp.tables import modes as table_modes
from webapp.tables.models import (
    BotPeopleRating,
    PersonRating,
    RatingChange,
    SeatKind,
    Table,
    TableSeat,
    TableStatus,
)

DECISION_SECONDS = (5, 60)
"""Free think time per decision a table may choose, seconds (the referee allows at most 60)."""
DEFAULT_DECISION_SECONDS = 30
BANK_MINUTES = (1, 60)
"""Each seat's time bank a table may choose, minutes (the referee allows at most an hour; a seat whose
bank is empty after a decision forfeits, so there is always some)."""
DEFAULT_BANK_MINUTES = 5
ME = "me"
"""A seat spec: the person opening the table sits here."""
INVITE = "person"
"""A seat spec: a person who follows the invite link sits here."""
K = KSchedule()
"""How fast the people's ratings move: the ladder's schedule."""


class TableRefused(DomainError):
    """The table cannot do that now (full, started, finished)."""

    default_code = "table_refused"


class TableNotFound(DomainError):
    """No table has that id or invite."""

    status_code = status.HTTP_404_NOT_FOUND
    default_code = "table_not_found"


def offered_bots(user: User, game: str) -> QuerySet[Bot]:
    """The bots ``user`` may seat at a table of ``game``: house bots, bots opted in to play people, their own."""
    return (
        Bot.objects.filter(game=game, is_person=False, active=True, latest_version__isnull=False)
        .filter(Q(is_house=True) | Q(plays_people=True) | Q(owner=user))
        .order_by("-is_house", "name")
    )


@dataclass(frozen=True)
class SeatSpec:
    """What the form says of one seat."""

    kind: str
    """:data:`ME`, :data:`INVITE` or ``"bot"``."""
    bot_id: int | None = None


def parse_seat(raw: object) -> SeatSpec:
    """Reads one seat of a form: ``me``, ``person`` or ``bot:<id>``.

    Raises:
        InvalidInput: anything else.
    """
    text = str(raw).strip()
    if text in (ME, INVITE):
        return SeatSpec(text)
    kind, _, number = text.partition(":")
    if kind == "bot" and number.isdigit():
        return SeatSpec("bot", int(number))
    raise InvalidInput(f"a seat is 'me', 'person' or 'bot:<id>', got {text[:40]!r}")


def parse_whole(raw: object, name: str, low: int, high: int) -> int:
    """Returns ``raw`` as a whole number from ``low`` to ``high``.

    Raises:
        InvalidInput: not a whole number in range; the message names the field and the range.
    """
    text = str(raw).strip()
    if not text.lstrip("-").isdigit() or not low <= int(text) <= high:
        raise InvalidInput(f"{name} must be a whole number from {low} to {high}, got {text[:20]!r}")
    return int(text)


@transaction.atomic
def do_open_table(
    user: User,
    game: str,
    mode_key: str,
    seats: Sequence[SeatSpec],
    *,
    decision_seconds: int = DEFAULT_DECISION_SECONDS,
    bank_minutes: int = DEFAULT_BANK_MINUTES,
    rounds: int | None = None,
) -> Table:
    """Opens a table of ``game`` with ``user`` in the seat marked :data:`ME`.

    Raises:
        UnknownGame: the game is not registered.
        InvalidInput: an unknown mode, the wrong number of seats, not exactly one seat for
            ``user``, a bot that is not offered, a time or a round count out of range.
    """
    bot_services.check_game(game)
    mode = table_modes.find_mode(game, mode_key)
    if mode is None:
        keys = ", ".join(m.key for m in table_modes.modes(game))
        raise InvalidInput(f"{game} has no mode {mode_key[:20]!r}; its modes: {keys}")
    if len(seats) != mode.seats:
        raise InvalidInput(f"mode {mode.label} has {mode.seats} seats, got {len(seats)}")
    if sum(1 for s in seats if s.kind == ME) != 1:
        raise InvalidInput("exactly one seat must be yours ('me')")
    low, high = DECISION_SECONDS
    if not low <= decision_seconds <= high:
        raise InvalidInput(f"seconds per decision must be from {low} to {high}, got {decision_seconds}")
    low, high = BANK_MINUTES
    if not low <= bank_minutes <= high:
        raise InvalidInput(f"the bank must be from {low} to {high} minutes, got {bank_minutes}")
    config = dict(mode.config)
    if rounds is not None:
        cap = table_modes.round_cap(game, mode.seats)
        if cap is None:
            raise InvalidInput(f"{game} has no round count to choose")
        if not 1 <= rounds <= cap[1]:
            raise InvalidInput(f"rounds must be from 1 to {cap[1]}, got {rounds}")
        config[cap[0]] = rounds
    try:
        config = match_services.game_config(game, mode.seats, config)
    except match_services.InvalidChallenge as exc:
        raise InvalidInput(str(exc)) from exc
    offered = {b.pk: b for b in offered_bots(user, game)}
    for s in seats:
        if s.kind == "bot" and s.bot_id not in offered:
            raise InvalidInput(f"bot {s.bot_id} is not offered at people's tables of {game}")
    me = bot_services.do_person_bot(user, game)
    own_bot = any(s.kind == "bot" and offered[s.bot_id or 0].owner_id == user.pk for s in seats)
    table = Table.objects.create(
        game=game,
        mode=mode.key,
        seats_count=mode.seats,
        config=config,
        decision_seconds=decision_seconds,
        bank_seconds=bank_minutes * 60,
        created_by=user,
        invite_token=secrets.token_urlsafe(24),
        rated=not own_bot,
    )
    TableSeat.objects.bulk_create(
        TableSeat(
            table=table,
            seat=i,
            kind=SeatKind.BOT if s.kind == "bot" else SeatKind.PERSON,
            user=user if s.kind == ME else None,
            bot=me if s.kind == ME else (offered[s.bot_id or 0] if s.kind == "bot" else None),
        )
        for i, s in enumerate(seats)
    )
    return table


@transaction.atomic
def do_join(user: User, invite: str) -> TableSeat:
    """Seats ``user`` in the first free person's seat of the table invited to by ``invite``.

    Someone already seated gets their seat back. Joining a table where one's own bot plays makes it
    a test table (unrated).

    Raises:
        TableNotFound: no table has that invite.
        TableRefused: the table has started or finished, or every seat is taken.
    """
    table = Table.objects.select_for_update().filter(invite_token=invite).first() if invite else None
    if table is None:
        raise TableNotFound("no table has this invite link")
    seats = list(table.seats.select_related("bot").order_by("seat"))
    mine = next((s for s in seats if s.user_id == user.pk), None)
    if mine is not None:
        return mine
    if table.status != TableStatus.OPEN:
        raise TableRefused(f"this table has already {'started' if table.status == TableStatus.PLAYING else 'ended'}")
    free = next((s for s in seats if s.kind == SeatKind.PERSON and s.user_id is None), None)
    if free is None:
        raise TableRefused("every seat at this table is taken")
    free.user = user
    free.bot = bot_services.do_person_bot(user, table.game)
    free.save(update_fields=["user", "bot"])
    if any(s.kind == SeatKind.BOT and s.bot is not None and s.bot.owner_id == user.pk for s in seats):
        table.rated = False
        table.save(update_fields=["rated"])
    return free


def waiting_for(table: Table, connected: Collection[int]) -> list[str]:
    """What the table still waits for before it starts: free seats and people not connected, in words."""
    out = []
    for s in table.seats.select_related("user").order_by("seat"):
        if s.kind == SeatKind.PERSON and s.user is None:
            out.append(f"seat {s.seat + 1}: a person (share the invite link)")
        elif s.kind == SeatKind.PERSON and s.user_id not in connected:
            assert s.user is not None
            out.append(f"seat {s.seat + 1}: {s.user.username} to open the table")
    return out


@transaction.atomic
def do_start(table_id: int, connected: Collection[int]) -> Match | None:
    """Queues the table's referee match when every seat is filled and every person in ``connected``.

    ``connected`` holds the ids of the people whose seat client is connected to the referee (a
    match starts only with its bots online). Returns the match, or ``None`` while the table waits.
    Safe to call any number of times: a table starts once.
    """
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None or table.status != TableStatus.OPEN or waiting_for(table, connected):
        return None
    seats = list(table.seats.select_related("bot__latest_version").order_by("seat"))
    versions = []
    for s in seats:
        assert s.bot is not None and s.bot.latest_version is not None
        versions.append(s.bot.latest_version)
    match = match_services.do_queue_match(
        table.game,
        versions,
        rated=False,  # the ladder's ratings never see a people's table (on_match_final rates it apart)
        config=table.config,
        time_control={"per_decision_ms": table.decision_seconds * 1000, "bank_ms": table.bank_seconds * 1000},
        requested_by=table.created_by,
        request_id=f"table-{table.pk}",
    )
    table.match = match
    table.status = TableStatus.PLAYING
    table.save(update_fields=["match", "status"])
    return match


def on_match_final(match: Match) -> None:
    """Ends the table of ``match`` (if it has one) and, for a rated table, applies the people's ratings once.

    Called by ``webapp.results`` inside the transaction that records the result, after the seats'
    ranks are stored; a match that ends without a result ends its table unrated
    (:func:`on_match_failed`).
    """
    table = Table.objects.select_for_update().filter(match_id=match.pk).first()
    if table is None:
        return
    table.status = TableStatus.FINISHED
    fields = ["status"]
    if table.rated and not table.settled:
        _rate(table, match)
        table.settled = True
        fields.append("settled")
    table.save(update_fields=fields)


def on_match_failed(match: Match) -> None:
    """Ends the table of a match that ended without a result (nothing is rated)."""
    Table.objects.filter(match_id=match.pk).update(status=TableStatus.FINISHED)


def _rate(table: Table, match: Match) -> None:
    ranks = dict(MatchSeat.objects.filter(match=match).values_list("seat", "rank"))
    seats = list(table.seats.order_by("seat"))
    if len(seats) < 2 or any(ranks.get(s.seat) is None for s in seats):
        return
    people: dict[int, PersonRating] = {}
    bots: dict[int, BotPeopleRating] = {}
    before: list[float] = []
    ks: list[float] = []
    for s in seats:
        if s.kind == SeatKind.PERSON:
            assert s.user_id is not None
            row = people.get(s.user_id)
            if row is None:
                row = people[s.user_id] = PersonRating.objects.select_for_update().get_or_create(
                    user_id=s.user_id, game=table.game, defaults={"rating": DEFAULT_RATING}
                )[0]
            before.append(row.rating)
            ks.append(K.k(row.games))
        else:
            assert s.bot_id is not None
            brow = bots.get(s.bot_id)
            if brow is None:
                brow = bots[s.bot_id] = BotPeopleRating.objects.select_for_update().get_or_create(
                    bot_id=s.bot_id, defaults={"rating": DEFAULT_RATING}
                )[0]
            before.append(brow.rating)
            ks.append(K.k(brow.games))
    teams = get_game(table.game).info.team_of(table.config, len(seats))
    changes = rating_changes(before, [int(ranks[s.seat] or 0) for s in seats], ks, teams)
    # One participant in two seats (two seats of one house bot) gets both changes, and one game.
    total: dict[tuple[str, int], float] = defaultdict(float)
    for s, change in zip(seats, changes, strict=True):
        key = ("person", s.user_id or 0) if s.kind == SeatKind.PERSON else ("bot", s.bot_id or 0)
        total[key] += change
    for (kind, pk), change in total.items():
        row_p = people.get(pk) if kind == "person" else None
        row_b = bots.get(pk) if kind == "bot" else None
        target = row_p if row_p is not None else row_b
        assert target is not None
        start = target.rating
        target.rating = start + change
        target.games += 1
        target.save(update_fields=["rating", "games"])
        for s in seats:
            if (kind == "person" and s.kind == SeatKind.PERSON and s.user_id == pk) or (
                kind == "bot" and s.kind == SeatKind.BOT and s.bot_id == pk
            ):
                RatingChange.objects.create(
                    table=table,
                    seat=s.seat,
                    user_id=s.user_id if kind == "person" else None,
                    bot_id=s.bot_id if kind == "bot" else None,
                    before=start,
                    after=target.rating,
                )


def people_rating(bot: Bot) -> BotPeopleRating | None:
    """The bot's rating against people, or ``None`` before its first rated table.

    A bot read with ``select_related("people_rating")`` answers without a query.
    """
    try:
        return bot.people_rating
    except BotPeopleRating.DoesNotExist:
        return None
