"""The only write path for ratings: rating a match with ``ladder.history`` and storing exactly what it returns.

Ratings are a pure function of the rated results in match order (``docs/ladder.md``); this module
turns a finished match into a ``ladder.results.GameResult`` (``mapping``), calls
``ladder.history.rate_game`` and stores its ``HistoryEntry`` rows and ``VersionRating``s unchanged,
so ``audit.first_difference`` can recompute every stored number with ``ladder.history.replay`` and
demand exact equality, and :func:`do_recompute_game` can rewrite them from it. A match's
``played_at`` is its ``finished_at``; a version's parent is the previous version of its bot, for the
prior. Match order is defined in ``audit``.

What this module is not: the arithmetic (``ladder/``), the conversions between rows and ladder
values (``mapping``), the recomputation (``audit``), or the place that decides a match is rated
(``matches.services``; the ``match_finished`` signal brings a rated match here, see ``apps``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.db import connection, transaction

from ladder.errors import InvalidResultError
from ladder.history import VersionRating, prior, rate_game
from ladder.ids import BotVersionId, GameName
from webapp.api import DomainError
from webapp.bots.models import BotVersion
from webapp.matches.models import Match, MatchSeat
from webapp.rankings.audit import expected_rows, first_difference
from webapp.rankings.mapping import (
    CONFIG,
    RATING_FIELDS,
    CorruptRating,
    apply_entry,
    game_result,
    history_row,
    parents_of,
    reset_row,
    version_rating,
)
from webapp.rankings.models import Rating, RatingHistory

log = logging.getLogger(__name__)


class AlreadyRated(DomainError):
    """The match's rating changes are already recorded."""

    default_code = "already_rated"


def ratings_for(game: str, version_ids: Sequence[int], *, lock: bool = False) -> dict[int, Rating]:
    """Returns the ratings of ``version_ids`` in ``game``, creating missing rows at the defaults.

    A row with no games is a placeholder for the leaderboard: the version's real starting point is
    its prior, computed by ``ladder.history`` when it plays its first rated match.
    """
    existing = {r.bot_version_id: r for r in Rating.objects.filter(game=game, bot_version_id__in=version_ids)}
    missing = [Rating(game=game, bot_version_id=v) for v in version_ids if v not in existing]
    if missing:
        Rating.objects.bulk_create(missing, ignore_conflicts=True)
    qs = Rating.objects.filter(game=game, bot_version_id__in=version_ids).order_by("bot_version_id")
    if lock:
        qs = qs.select_for_update()
    return {r.bot_version_id: r for r in qs}


@transaction.atomic
def do_apply_rated_match(match: Match, seats: Sequence[MatchSeat]) -> list[RatingHistory]:
    """Rates a finished match with ``ladder.history.rate_game`` and stores exactly its entries.

    The seats' rows and those of every earlier version of their bots (the possible priors) are
    locked first, in id order, so concurrent matches sharing a version are rated one after the
    other and their history ids record that order.

    Raises:
        AlreadyRated: the match already has rating history.
        DomainError: a seat has no rank, one version sits in two seats, or teams do not share ranks.
        CorruptRating: a seat's stored rating (or its parent's) holds a number the ratings refuse;
            nothing is written, so no NaN ever reaches the store.
    """
    if RatingHistory.objects.filter(match=match).exists():
        raise AlreadyRated(f"match {match.pk} is already rated")
    ordered = sorted(seats, key=lambda s: s.seat)
    result = game_result(
        match.pk, match.game, match.config, match.finished_at, [(s.bot_version_id, s.rank) for s in ordered]
    )
    versions = [s.bot_version_id for s in ordered]
    bot_of = dict(BotVersion.objects.filter(pk__in=versions).values_list("id", "bot_id"))
    parents = parents_of(bot_of.values())
    lineage = set(versions) | {int(v) for v in parents} | {int(p) for p in parents.values()}
    ratings_for(match.game, versions)  # placeholders, so that every seat has a row to lock
    rows = {
        r.bot_version_id: r
        for r in Rating.objects.select_for_update()
        .filter(game=match.game, bot_version_id__in=lineage)
        .order_by("bot_version_id")
    }
    current = {BotVersionId(str(v)): version_rating(r) for v, r in rows.items() if r.games > 0}
    try:
        rated = rate_game(result, current, parents, CONFIG)
    except InvalidResultError as exc:
        raise DomainError(f"match {match.pk} cannot be rated: {exc}") from exc
    history = [history_row(e) for e in rated.entries]
    RatingHistory.objects.bulk_create(history)
    changed = []
    for rating, entry in zip(rated.ratings, rated.entries, strict=True):
        row = rows[int(rating.version)]
        apply_entry(row, rating, entry, result)
        changed.append(row)
    Rating.objects.bulk_update(changed, RATING_FIELDS)
    return history


def current_ratings(game: str, version_ids: Sequence[int]) -> dict[int, VersionRating]:
    """Returns each version's rating as ``ladder.history`` would start its next game, without writing.

    A version that has played gets its stored rating; one that has not gets its prior now (its
    bot's latest rated earlier version, deviation widened), which is what matchmaking should see
    rather than the placeholder row's defaults. ``VersionRating.deviation_at(now)`` adds idle growth.

    A version whose rating rests on a stored row the ratings refuse (its own, or the rated
    ancestor its prior would come from) is left out and the row is logged as an error: one corrupt
    row must not stop a game's ladder, and its NaN must not reach the matchmaker.
    ``brawl ratings verify`` names the row and ``brawl ratings recompute`` repairs it.
    """
    bot_of = dict(BotVersion.objects.filter(pk__in=version_ids).values_list("id", "bot_id"))
    parents = parents_of(bot_of.values())
    lineage = set(version_ids) | {int(v) for v in parents} | {int(p) for p in parents.values()}
    played: dict[BotVersionId, VersionRating] = {}
    corrupt: set[BotVersionId] = set()
    for r in Rating.objects.filter(game=game, bot_version_id__in=lineage, games__gt=0):
        try:
            played[BotVersionId(str(r.bot_version_id))] = version_rating(r)
        except CorruptRating as exc:
            corrupt.add(BotVersionId(str(r.bot_version_id)))
            log.error("%s", exc)
    out: dict[int, VersionRating] = {}
    for pk in version_ids:
        version = BotVersionId(str(pk))
        if _rests_on(version, played, corrupt, parents) in corrupt:
            continue
        out[pk] = played.get(version) or prior(version, GameName(game), played, parents, CONFIG)
    return out


def _rests_on(
    version: BotVersionId,
    played: Mapping[BotVersionId, VersionRating],
    corrupt: set[BotVersionId],
    parents: Mapping[BotVersionId, BotVersionId],
) -> BotVersionId | None:
    """The version whose stored rating ``version``'s next game starts from: itself or its prior's source."""
    seen: set[BotVersionId] = set()
    current: BotVersionId | None = version
    while current is not None and current not in seen:
        if current in played or current in corrupt:
            return current
        seen.add(current)
        current = parents.get(current)
    return None


@dataclass(frozen=True, slots=True)
class RecomputeReport:
    """What :func:`do_recompute_game` rewrote."""

    game: str
    """The game."""
    matches: int
    """Rated matches replayed."""
    history_rows: int
    """History rows written."""
    versions: int
    """Versions with a rating."""
    was_different: str | None
    """The first difference found before rewriting, or ``None`` if the store already matched."""


@transaction.atomic
def do_recompute_game(game: str) -> RecomputeReport:
    """Rewrites ``game``'s history and ratings from its rated matches, in one transaction.

    The history is append-only everywhere else; this is the one place that replaces it, for a
    fixed formula or repaired data. On PostgreSQL the two tables are locked against writers first,
    so no match is rated half-way through.

    Raises:
        DomainError: the matches cannot be replayed (nothing is changed).
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                f"LOCK TABLE {Rating._meta.db_table}, {RatingHistory._meta.db_table} IN SHARE ROW EXCLUSIVE MODE"
            )
    difference, recomputed = first_difference(game)
    history, ratings = expected_rows(recomputed)
    RatingHistory.objects.filter(game=game).delete()
    RatingHistory.objects.bulk_create(history, batch_size=5000)
    stored = {r.bot_version_id: r for r in Rating.objects.filter(game=game)}
    updates, creates = [], []
    for version_id, row in stored.items():
        want = ratings.get(version_id)
        if want is None:
            reset_row(row)
        else:
            for name in RATING_FIELDS:
                attname = f"{name}_id" if name == "inherited_from" else name
                setattr(row, attname, getattr(want, attname))
        updates.append(row)
    creates = [row for version_id, row in ratings.items() if version_id not in stored]
    Rating.objects.bulk_update(updates, RATING_FIELDS, batch_size=5000)
    Rating.objects.bulk_create(creates, batch_size=5000)
    return RecomputeReport(game, len(recomputed.results), len(history), len(ratings), difference)
