"""The only write path for ratings: rating a match with ``ladder.history`` and storing exactly what it returns.

Ratings are a pure function of the rated results in match order (``docs/ladder.md``); this module
turns matches into ``ladder.results.GameResult``s, calls ``ladder.history.rate_game`` and stores its
``HistoryEntry`` rows and ``VersionRating``s unchanged, so :func:`verify_game` can recompute every
stored number with ``ladder.history.replay`` and demand exact equality.

*Match order* on the site is the order in which results were rated: matches are ordered by the id
of their first ``RatingHistory`` row (a match's rows are inserted together, after the ``Rating``
rows of its seats and their bots' other versions are locked, so two matches that share a version,
or a parent, are stored in the order they were rated); finished rated matches without history
come after them, by ``finished_at`` then id. Creation order (``docs/ladder.md``'s suggestion)
would need re-rating later games whenever an earlier match finishes late. A match's ``played_at``
is its ``finished_at``; a version's parent is the previous version of its bot, for the prior.

What this module is not: the arithmetic (``ladder/``), or the place that decides a match is rated
(``matches.services``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Min

from ladder.errors import InvalidResultError
from ladder.glicko2 import Glicko2Rating
from ladder.history import HistoryEntry, RatingConfig, Replay, VersionRating, prior, rate_game, replay
from ladder.ids import BotVersionId, GameName, MatchId
from ladder.results import GameResult
from referee.core.registry import UnknownGameError, get_game
from webapp.api import DomainError
from webapp.bots.models import BotVersion
from webapp.matches.models import Match, MatchSeat, MatchStatus
from webapp.rankings.models import (
    INITIAL_ELO,
    INITIAL_GLICKO,
    INITIAL_RD,
    INITIAL_VOLATILITY,
    Rating,
    RatingHistory,
)

log = logging.getLogger(__name__)

CONFIG = RatingConfig()
"""The rating constants of the site (``ladder``'s defaults); recomputation uses the same ones."""

K_SCHEDULE = CONFIG.k
"""The Elo K schedule of the ladder."""

RATING_FIELDS = [
    "elo",
    "peak_elo",
    "glicko_rating",
    "glicko_rd",
    "glicko_volatility",
    "games",
    "wins",
    "losses",
    "draws",
    "last_played",
    "inherited_from",
]
"""The ``Rating`` columns a rated match writes."""


class AlreadyRated(DomainError):
    """The match's rating changes are already recorded."""

    default_code = "already_rated"


class CorruptRating(DomainError):
    """A stored rating or history row holds a number the ratings refuse (NaN, infinity, volatility 0...)."""

    default_code = "corrupt_rating"


def match_teams(game: str, config: Mapping[str, Any], seats: int) -> tuple[int, ...]:
    """Returns the team of each seat for a team game, or ``()`` for a duel or free-for-all.

    The game says how its seats split into teams (``GameInfo.team_of``); an unknown game has no teams.
    """
    try:
        info = get_game(game).info
    except UnknownGameError:
        return ()
    return info.team_of(config, seats)


def game_result(
    match_id: int,
    game: str,
    config: Mapping[str, Any],
    played_at: datetime | None,
    seats: Sequence[tuple[int, int | None]],
) -> GameResult:
    """Returns the ``GameResult`` of a finished match from its seats' ``(bot version id, rank)`` in seat order.

    Raises:
        DomainError: a seat has no rank, the match has no finishing time, or the result is malformed.
    """
    ranks = [rank for _, rank in seats]
    if played_at is None or any(r is None for r in ranks):
        raise DomainError(f"match {match_id} cannot be rated: ranks {ranks}, finished at {played_at}")
    try:
        return GameResult(
            match_id=MatchId(str(match_id)),
            game=GameName(game),
            participants=tuple(BotVersionId(str(v)) for v, _ in seats),
            ranks=tuple(int(r) for r in ranks if r is not None),
            played_at=played_at,
            teams=match_teams(game, config, len(seats)),
        )
    except InvalidResultError as exc:
        raise DomainError(f"match {match_id} cannot be rated: {exc}") from exc


def parents_of(bot_ids: Iterable[int]) -> dict[BotVersionId, BotVersionId]:
    """Returns the previous version of every version of ``bot_ids`` (the prior's parent)."""
    rows = BotVersion.objects.filter(bot_id__in=set(bot_ids)).order_by("bot_id", "number").values_list("bot_id", "id")
    parents: dict[BotVersionId, BotVersionId] = {}
    previous: tuple[int, int] | None = None
    for bot_id, version_id in rows:
        if previous is not None and previous[0] == bot_id:
            parents[BotVersionId(str(version_id))] = BotVersionId(str(previous[1]))
        previous = (bot_id, version_id)
    return parents


def version_rating(row: Rating) -> VersionRating:
    """Returns the ``VersionRating`` a played ``Rating`` row stores.

    Raises:
        CorruptRating: the row holds a number ``ladder`` refuses (a NaN read back is never passed on).
    """
    try:
        return VersionRating(
            version=BotVersionId(str(row.bot_version_id)),
            game=GameName(row.game),
            elo=row.elo,
            games=row.games,
            glicko=Glicko2Rating(row.glicko_rating, row.glicko_rd, row.glicko_volatility),
            last_played_at=row.last_played,
            inherited_from=_version_id(row.inherited_from_id),
        )
    except InvalidResultError as exc:
        raise CorruptRating(
            f"the stored {row.game} rating of version {row.bot_version_id} is refused: {exc}; "
            f"run `brawl ratings recompute --game {row.game}`"
        ) from exc


def history_entry(row: RatingHistory) -> HistoryEntry:
    """Returns the ``HistoryEntry`` a ``RatingHistory`` row stores.

    Raises:
        DomainError: the row has no ``played_at`` (written before it was stored; recompute it).
        CorruptRating: the row holds a number ``ladder`` refuses.
    """
    if row.played_at is None:
        raise DomainError(f"rating history row {row.pk} has no played_at; run `brawl ratings recompute`")
    try:
        return _history_entry(row, row.played_at)
    except InvalidResultError as exc:
        raise CorruptRating(
            f"rating history row {row.pk} is refused: {exc}; run `brawl ratings recompute --game {row.game}`"
        ) from exc


def _history_entry(row: RatingHistory, played_at: datetime) -> HistoryEntry:
    return HistoryEntry(
        match_id=MatchId(str(row.match_id)),
        game=GameName(row.game),
        version=BotVersionId(str(row.bot_version_id)),
        seat=row.seat,
        rank=row.rank,
        score=row.score,
        played_at=played_at,
        k=row.k,
        games_before=row.games_before,
        elo_before=row.elo_before,
        elo_after=row.elo_after,
        glicko_before=Glicko2Rating(row.glicko_before, row.rd_before, row.volatility_before),
        glicko_after=Glicko2Rating(row.glicko_after, row.rd_after, row.volatility_after),
        inherited_from=_version_id(row.inherited_from_id),
    )


def history_row(entry: HistoryEntry) -> RatingHistory:
    """Returns an unsaved ``RatingHistory`` row holding exactly ``entry``."""
    return RatingHistory(
        match_id=int(entry.match_id),
        bot_version_id=int(entry.version),
        game=entry.game,
        seat=entry.seat,
        rank=entry.rank,
        score=entry.score,
        played_at=entry.played_at,
        k=entry.k,
        games_before=entry.games_before,
        elo_before=entry.elo_before,
        elo_after=entry.elo_after,
        glicko_before=entry.glicko_before.rating,
        glicko_after=entry.glicko_after.rating,
        rd_before=entry.glicko_before.deviation,
        rd_after=entry.glicko_after.deviation,
        volatility_before=entry.glicko_before.volatility,
        volatility_after=entry.glicko_after.volatility,
        inherited_from_id=None if entry.inherited_from is None else int(entry.inherited_from),
    )


def result_kind(result: GameResult, seat: int) -> str:
    """Returns ``"win"``, ``"draw"`` or ``"loss"`` for the W-L-D counters.

    A win is finishing ahead of every opponent (team-mates are not opponents), a draw is sharing
    first place with an opponent, anything else is a loss (2nd of four in a free-for-all included).
    """
    mine = result.ranks[seat]
    opponents = [
        r
        for j, r in enumerate(result.ranks)
        if j != seat and not (result.teams and result.teams[j] == result.teams[seat])
    ]
    best_opponent = min(opponents)
    if mine < best_opponent:
        return "win"
    if mine == best_opponent and mine == min(result.ranks):
        return "draw"
    return "loss"


def apply_entry(row: Rating, rating: VersionRating, entry: HistoryEntry, result: GameResult) -> None:
    """Writes a version's new rating and display counters (W-L-D, peak) into its ``Rating`` row."""
    if entry.games_before == 0:
        # A version's first game restarts the counters: the row may be a placeholder at the defaults.
        row.wins = row.losses = row.draws = 0
        row.peak_elo = entry.elo_before
    row.elo = rating.elo
    row.peak_elo = max(row.peak_elo, rating.elo)
    row.glicko_rating = rating.glicko.rating
    row.glicko_rd = rating.glicko.deviation
    row.glicko_volatility = rating.glicko.volatility
    row.games = rating.games
    row.last_played = rating.last_played_at
    row.inherited_from_id = None if rating.inherited_from is None else int(rating.inherited_from)
    kind = result_kind(result, entry.seat)
    if kind == "win":
        row.wins += 1
    elif kind == "draw":
        row.draws += 1
    else:
        row.losses += 1


def reset_row(row: Rating) -> None:
    """Puts a ``Rating`` row of a version that has not played back at the defaults."""
    row.elo = row.peak_elo = INITIAL_ELO
    row.glicko_rating, row.glicko_rd, row.glicko_volatility = INITIAL_GLICKO, INITIAL_RD, INITIAL_VOLATILITY
    row.games = row.wins = row.losses = row.draws = 0
    row.last_played = None
    row.inherited_from_id = None


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


def _version_id(pk: int | None) -> BotVersionId | None:
    return None if pk is None else BotVersionId(str(pk))


# Recomputation and verification.


@dataclass(frozen=True, slots=True)
class Recomputed:
    """Everything ``ladder.history.replay`` derives from a game's rated matches, in match order."""

    game: str
    """The game."""
    results: list[GameResult]
    """The rated results, in match order."""
    parents: dict[BotVersionId, BotVersionId]
    """Previous version of each version of the game's bots."""
    replayed: Replay
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
