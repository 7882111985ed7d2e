"""Between the stored rows and ``ladder``'s values: ``Match`` rows to ``GameResult``s, ``Rating`` and
``RatingHistory`` rows to and from ``VersionRating``s and ``HistoryEntry``s, and the site's rating
constants.

Pure conversions over rows already read (except :func:`parents_of`, one query); nothing here
writes. The write path is ``services``; recomputation and verification are ``audit``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ladder import plackett_luce as pl
from ladder.errors import InvalidResultError
from ladder.glicko2 import Glicko2Rating
from ladder.history import HistoryEntry, RatingConfig, VersionRating
from ladder.ids import BotVersionId, GameName, MatchId
from ladder.results import GameResult
from referee.core.registry import UnknownGameError, get_game
from webapp.api import DomainError
from webapp.bots.models import BotVersion
from webapp.rankings.models import (
    INITIAL_ELO,
    INITIAL_GLICKO,
    INITIAL_RD,
    INITIAL_VOLATILITY,
    Rating,
    RatingHistory,
)

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
    "skill_mu",
    "skill_sigma",
    "games",
    "wins",
    "losses",
    "draws",
    "last_played",
    "inherited_from",
]
"""The ``Rating`` columns a rated match writes."""


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
            skill=pl.Skill(row.skill_mu, row.skill_sigma),
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
        skill_before=pl.Skill(row.skill_mu_before, row.skill_sigma_before),
        skill_after=pl.Skill(row.skill_mu_after, row.skill_sigma_after),
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
        skill_mu_before=entry.skill_before.mu,
        skill_sigma_before=entry.skill_before.sigma,
        skill_mu_after=entry.skill_after.mu,
        skill_sigma_after=entry.skill_after.sigma,
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
    row.skill_mu, row.skill_sigma = rating.skill.mu, rating.skill.sigma
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
    row.skill_mu, row.skill_sigma = pl.DEFAULT_MU, pl.DEFAULT_SIGMA
    row.games = row.wins = row.losses = row.draws = 0
    row.last_played = None
    row.inherited_from_id = None


def _version_id(pk: int | None) -> BotVersionId | None:
    return None if pk is None else BotVersionId(str(pk))
