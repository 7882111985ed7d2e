"""Recomputing a game's ratings from its rated matches, and finding the first stored number that differs.

Ratings are a pure function of the rated results in match order (``docs/ladder.md``), so
:func:`first_difference` recomputes every stored number with ``ladder.history.replay`` and demands
exact equality (``brawl ratings verify``); ``services.do_recompute_game`` rewrites the store from
the same recomputation (``brawl ratings recompute``). Nothing here writes.

*Match order* on the site is the order in which results were rated: matches are ordered by the id
of their first ``RatingHistory`` row (a match's rows are inserted together, after the ``Rating``
rows of its seats and their bots' other versions are locked, so two matches that share a version,
or a parent, are stored in the order they were rated); finished rated matches without history
come after them, by ``finished_at`` then id. Creation order (``docs/ladder.md``'s suggestion)
would need re-rating later games whenever an earlier match finishes late.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Min

from ladder.errors import InvalidResultError
from ladder.history import ReplayedRatings, VersionRating, replay
from ladder.ids import BotVersionId
from ladder.results import GameResult
from webapp.api import DomainError
from webapp.bots.models import BotVersion
from webapp.matches.models import Match, MatchSeat, MatchStatus
from webapp.rankings.mapping import CONFIG, RATING_FIELDS, apply_entry, game_result, history_row, parents_of, reset_row
from webapp.rankings.models import Rating, RatingHistory


@dataclass(frozen=True, slots=True)
class Recomputed:
    """Everything ``ladder.history.replay`` derives from a game's rated matches, in match order."""

    game: str
    """The game."""
    results: list[GameResult]
    """The rated results, in match order."""
    parents: dict[BotVersionId, BotVersionId]
    """Previous version of each version of the game's bots."""
    replayed: ReplayedRatings
    """Final ratings and every history entry."""


def rated_results(game: str) -> list[GameResult]:
    """Returns the results of ``game``'s rated matches in match order (see the module docstring).

    A rated match counts once it is finished, or if it already has history (a finished match that
    was later rescheduled keeps its rating changes).

    Raises:
        DomainError: a counted match cannot be turned into a result.
    """
    first_row = dict(
        RatingHistory.objects.filter(game=game)
        .values("match_id")
        .annotate(first=Min("id"))
        .values_list("match_id", "first")
    )
    matches = list(
        Match.objects.filter(game=game, rated=True, status=MatchStatus.FINISHED).values_list(
            "id", "config", "finished_at"
        )
    )
    known = {m[0] for m in matches}
    missing = [pk for pk in first_row if pk not in known]
    if missing:
        matches += list(Match.objects.filter(pk__in=missing).values_list("id", "config", "finished_at"))
    seats: dict[int, list[tuple[int, int | None]]] = {}
    for match_id, version_id, rank in (
        MatchSeat.objects.filter(match__game=game, match__rated=True)
        .order_by("match_id", "seat")
        .values_list("match_id", "bot_version_id", "rank")
    ):
        seats.setdefault(match_id, []).append((version_id, rank))

    ordered = sorted(matches, key=lambda m: _match_order(m[0], m[2], first_row))
    return [game_result(pk, game, config or {}, finished, seats.get(pk, [])) for pk, config, finished in ordered]


def _match_order(pk: int, finished: datetime | None, first_row: Mapping[int, int]) -> tuple[int, int, float, int]:
    """Sort key of match order: rated matches by their first history row, then the rest by finishing time."""
    if pk in first_row:
        return (0, first_row[pk], 0.0, pk)
    return (1, 0, finished.timestamp() if finished is not None else 0.0, pk)


def recompute(game: str) -> Recomputed:
    """Recomputes every rating of ``game`` from its rated matches with ``ladder.history.replay``.

    Raises:
        DomainError: a match cannot be turned into a result, or the results cannot be replayed.
    """
    results = rated_results(game)
    bots = BotVersion.objects.filter(bot__game=game).values_list("bot_id", flat=True).distinct()
    parents = parents_of(bots)
    try:
        replayed = replay(results, parents, CONFIG)
    except InvalidResultError as exc:
        raise DomainError(f"{game}: the rated matches cannot be replayed: {exc}") from exc
    return Recomputed(game, results, parents, replayed)


def expected_rows(recomputed: Recomputed) -> tuple[list[RatingHistory], dict[int, Rating]]:
    """Returns the history rows (in order) and played ``Rating`` rows (by version id) a recomputation gives."""
    by_match = {r.match_id: r for r in recomputed.results}
    history = [history_row(e) for e in recomputed.replayed.entries]
    ratings: dict[int, Rating] = {}
    running: dict[BotVersionId, VersionRating] = {}
    for entry in recomputed.replayed.entries:
        row = ratings.setdefault(int(entry.version), Rating(game=recomputed.game, bot_version_id=int(entry.version)))
        running[entry.version] = VersionRating(
            entry.version,
            entry.game,
            entry.elo_after,
            entry.games_before + 1,
            entry.glicko_after,
            entry.played_at,
            entry.inherited_from if entry.games_before == 0 else running[entry.version].inherited_from,
            entry.skill_after,
        )
        apply_entry(row, running[entry.version], entry, by_match[entry.match_id])
    return history, ratings


def first_difference(game: str) -> tuple[str | None, Recomputed]:
    """Compares the stored ratings and history of ``game`` with a recomputation.

    Returns:
        A sentence naming the first difference (``None`` when everything matches exactly), and
        the recomputation.

    Raises:
        DomainError: the matches cannot be replayed.
    """
    with snapshot():
        return _first_difference(game)


@contextmanager
def snapshot() -> Iterator[None]:
    """Runs the block's reads on one consistent state of the database, however many results land meanwhile.

    On PostgreSQL a read-only REPEATABLE READ transaction: every query sees the database as of the
    first one. SQLite's transaction gives the same from its first read (a reader holds its snapshot,
    in WAL mode as in rollback mode, until it ends). Nothing is written inside.
    """
    outermost = not connection.in_atomic_block  # inside a caller's transaction, its isolation holds
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield


def _first_difference(game: str) -> tuple[str | None, Recomputed]:
    recomputed = recompute(game)
    history, ratings = expected_rows(recomputed)
    stored_history = list(RatingHistory.objects.filter(game=game).order_by("id"))
    # Match order, then seat: two matches rated at once may interleave their ids, never their order.
    first_id: dict[int, int] = {}
    for row in stored_history:
        first_id.setdefault(row.match_id, row.pk)
    stored_history.sort(key=lambda r: (first_id[r.match_id], r.seat))
    for i, (want, have) in enumerate(zip(history, stored_history, strict=False)):
        where = f"rating history row {i + 1} (id {have.pk}, match {have.match_id}, version {have.bot_version_id})"
        if (want.match_id, want.bot_version_id) != (have.match_id, have.bot_version_id):
            return (
                f"{where}: recomputation has match {want.match_id}, version {want.bot_version_id} in this place",
                recomputed,
            )
        diff = _field_difference(want, have, _HISTORY_COMPARED)
        if diff:
            return f"{where}: {diff}", recomputed
    if len(stored_history) != len(history):
        if len(stored_history) < len(history):
            extra = history[len(stored_history)]
            return (
                f"match {extra.match_id} is rated but has no stored history for version {extra.bot_version_id} "
                f"({len(stored_history)} rows stored, {len(history)} recomputed)",
                recomputed,
            )
        extra_row = stored_history[len(history)]
        return (
            f"rating history row {extra_row.pk} (match {extra_row.match_id}) has no rated result behind it "
            f"({len(stored_history)} rows stored, {len(history)} recomputed)",
            recomputed,
        )
    stored = {r.bot_version_id: r for r in Rating.objects.filter(game=game).order_by("bot_version_id")}
    for version_id, want_rating in sorted(ratings.items()):
        have_rating = stored.get(version_id)
        if have_rating is None:
            return f"version {version_id} has played but has no Rating row", recomputed
        diff = _field_difference(want_rating, have_rating, RATING_FIELDS)
        if diff:
            return f"rating of version {version_id}: {diff}", recomputed
    blank = Rating(game=game)
    reset_row(blank)
    for version_id, have_rating in stored.items():
        if version_id not in ratings:
            diff = _field_difference(blank, have_rating, RATING_FIELDS)
            if diff:
                return f"rating of version {version_id}, which has not played: {diff}", recomputed
    return None, recomputed


_HISTORY_COMPARED = [
    f.name
    for f in RatingHistory._meta.concrete_fields
    if f.name not in {"id", "created", "match", "bot_version", "inherited_from"}
] + ["match_id", "bot_version_id", "inherited_from_id"]


def _field_difference(want: Any, have: Any, fields: Iterable[str]) -> str:
    """Names the first field whose stored value differs from the recomputed one (exact equality)."""
    for name in fields:
        attname = f"{name}_id" if name == "inherited_from" else name
        expected, actual = getattr(want, attname), getattr(have, attname)
        if expected != actual:
            return f"{attname} is {actual!r} stored but {expected!r} recomputed"
    return ""
