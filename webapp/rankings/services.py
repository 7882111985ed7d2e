"""The only write path for ratings: applying a rated match, once, with the maths from ``ladder/``.

:func:`do_apply_rated_match` locks the seats' ``Rating`` rows, computes the Elo changes with
``ladder.elo.rating_changes`` and a Glicko-2 update per seat with ``ladder.glicko2.rate`` (each
game its own rating period, scored pairwise from ranks), appends one ``RatingHistory`` row per
seat and updates the ratings. The unique (match, bot version) constraint on the history makes a
second application fail in the database even if the caller's check were bypassed.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from ladder.elo import KSchedule, rating_changes
from ladder.glicko2 import Glicko2Rating, rate
from ladder.results import pairwise_score
from webapp.api import DomainError
from webapp.matches.models import Match, MatchSeat
from webapp.rankings.models import Rating, RatingHistory

K_SCHEDULE = KSchedule()
"""The Elo K schedule of the ladder (ladder's defaults)."""


class AlreadyRated(DomainError):
    """The match's rating changes are already recorded."""

    default_code = "already_rated"


def ratings_for(game: str, version_ids: Sequence[int], *, lock: bool = False) -> dict[int, Rating]:
    """Returns the ratings of ``version_ids`` in ``game``, creating missing rows at the defaults."""
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
    """Records the rating changes of a finished, rated match.

    Raises:
        AlreadyRated: the match already has rating history.
        DomainError: a seat has no rank, or one version sits in two seats.
    """
    if RatingHistory.objects.filter(match=match).exists():
        raise AlreadyRated(f"match {match.pk} is already rated")
    versions = [s.bot_version_id for s in seats]
    ranks = [s.rank for s in seats]
    if any(r is None for r in ranks) or len(set(versions)) != len(versions):
        raise DomainError(f"match {match.pk} cannot be rated: ranks {ranks}, versions {versions}")
    ranks_i = [int(r) for r in ranks if r is not None]
    current = ratings_for(match.game, versions, lock=True)
    before = [current[v] for v in versions]
    elo_delta = rating_changes([r.elo for r in before], ranks_i, [K_SCHEDULE.k(r.games) for r in before])
    glicko_before = [Glicko2Rating(r.glicko_rating, r.glicko_rd, r.glicko_volatility) for r in before]
    history: list[RatingHistory] = []
    when = match.finished_at
    for i, rating in enumerate(before):
        games = [(glicko_before[j], pairwise_score(ranks_i[i], ranks_i[j])) for j in range(len(before)) if j != i]
        new_glicko = rate(glicko_before[i], games)
        history.append(
            RatingHistory(
                match=match,
                bot_version_id=versions[i],
                game=match.game,
                elo_before=rating.elo,
                elo_after=rating.elo + elo_delta[i],
                glicko_before=rating.glicko_rating,
                glicko_after=new_glicko.rating,
                rd_before=rating.glicko_rd,
                rd_after=new_glicko.deviation,
                rank=ranks_i[i],
            )
        )
        best = min(ranks_i)
        shared = ranks_i.count(best) > 1
        rating.elo += elo_delta[i]
        rating.peak_elo = max(rating.peak_elo, rating.elo)
        rating.glicko_rating = new_glicko.rating
        rating.glicko_rd = new_glicko.deviation
        rating.glicko_volatility = new_glicko.volatility
        rating.games += 1
        if ranks_i[i] == best and shared:
            rating.draws += 1
        elif ranks_i[i] == best:
            rating.wins += 1
        else:
            rating.losses += 1
        rating.last_played = when
    RatingHistory.objects.bulk_create(history)
    Rating.objects.bulk_update(
        before,
        [
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
        ],
    )
    return history
