"""Ratings as a pure function of results in match order, with an append-only history.

A version's rating is never edited in place: every rated game appends one :class:`HistoryEntry`
per participant with the values before and after, and the current :class:`VersionRating` is the
fold of :func:`rate_game` over the results in match order. :func:`replay` recomputes everything
from the results and reproduces the stored numbers exactly (same floats), which is how the site
can rebuild ratings after a fix, and how the tests check the stored history.

New versions: a version's first rated game starts from a prior. A version with a parent (the
previous version of the same bot, given in ``parents``) inherits the parent's current Elo and
Glicko rating with its deviation widened to at least ``RatingConfig.new_version_deviation`` and
its game count reset, so it plays with provisional K and is favoured by matchmaking until it
settles. A version without a parent starts at 1500 Elo, Glicko 1500/350/0.06.

Beside them every version carries an OpenSkill Plackett-Luce skill (:mod:`ladder.plackett_luce`):
no drift between games (tau = 0, so no idle growth either), a new version starting from its
parent's skill with sigma widened (:func:`ladder.plackett_luce.new_version_prior`), a first one
from 25 / 8.33. It is part of the fold like the rest: replay reproduces it exactly.

What "match order" means is the caller's decision (the order matches were created, as on
Battlecode, so that the published list never reshuffles); ``played_at`` only drives deviation
growth, and a game that appears to predate the previous one grows nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ladder import elo, glicko2
from ladder import plackett_luce as pl
from ladder.errors import InvalidResultError, require_number
from ladder.ids import BotVersionId, GameName, MatchId
from ladder.results import GameResult, pairwise_score


@dataclass(frozen=True, slots=True)
class RatingConfig:
    """Every constant the ratings depend on; recomputation must use the same values.

    Raises:
        InvalidResultError: naming the value, if ``initial_elo`` is not finite or a deviation is
            not a finite positive number.
    """

    k: elo.KSchedule = field(default_factory=elo.KSchedule)
    """The Elo K schedule."""
    glicko: glicko2.Glicko2Config = field(default_factory=glicko2.Glicko2Config)
    """The Glicko-2 constants for the deviation."""
    initial_elo: float = elo.DEFAULT_RATING
    """Elo of a version with no parent."""
    new_version_deviation: float = 200.0
    """A new version inherits its parent's deviation widened to at least this much."""
    provisional_deviation: float = 110.0
    """A version is shown as provisional while its deviation is above this (lichess's threshold)."""
    skill: pl.SkillConfig = field(default_factory=pl.SkillConfig)
    """The OpenSkill (Plackett-Luce) constants of the skill kept beside Elo and Glicko-2."""

    def __post_init__(self) -> None:
        require_number("RatingConfig.initial_elo", self.initial_elo)
        require_number("RatingConfig.new_version_deviation", self.new_version_deviation, minimum=0.0, exclusive=True)
        require_number("RatingConfig.provisional_deviation", self.provisional_deviation, minimum=0.0, exclusive=True)


@dataclass(frozen=True, slots=True)
class VersionRating:
    """A version's current rating in its game.

    Raises:
        InvalidResultError: naming the value, if the Elo is not a finite number or the game count
            is negative (the Glicko-2 state checks its own numbers), so a NaN read from storage is
            refused instead of spreading to every opponent.
    """

    version: BotVersionId
    """The rated version."""
    game: GameName
    """The game it plays."""
    elo: float
    """The published Elo rating."""
    games: int
    """Rated games played by this version (drives the K schedule)."""
    glicko: glicko2.Glicko2Rating
    """The Glicko-2 state behind the deviation."""
    last_played_at: datetime | None = None
    """When its last rated game was played; ``None`` before the first."""
    inherited_from: BotVersionId | None = None
    """The parent version whose rating was the prior, if any."""
    skill: pl.Skill = field(default_factory=pl.Skill)
    """The OpenSkill (Plackett-Luce) skill: mean and deviation, no drift between games."""

    def __post_init__(self) -> None:
        require_number(f"Elo of {self.version!r}", self.elo)
        if self.games < 0:
            raise InvalidResultError(f"games of {self.version!r} must not be negative, got {self.games!r}")

    @property
    def deviation(self) -> float:
        """The rating deviation (uncertainty), in rating points, as of the last game."""
        return self.glicko.deviation

    def deviation_at(self, now: datetime, config: RatingConfig = RatingConfig()) -> float:
        """The deviation grown for the time idle until ``now`` (what the site shows today)."""
        if self.last_played_at is None:
            return self.glicko.deviation
        periods = max(0.0, (now - self.last_played_at).total_seconds() / config.glicko.period_seconds)
        return glicko2.idle(self.glicko, periods, config.glicko).deviation

    def is_provisional(self, config: RatingConfig = RatingConfig()) -> bool:
        """Whether the rating is still provisional: few games or a wide deviation."""
        return config.k.is_provisional(self.games) or self.deviation > config.provisional_deviation

    def to_json(self) -> dict[str, Any]:
        """Returns the rating as plain JSON data; floats round-trip exactly through ``json``."""
        return {
            "version": self.version,
            "game": self.game,
            "elo": self.elo,
            "games": self.games,
            "glicko_rating": self.glicko.rating,
            "deviation": self.glicko.deviation,
            "volatility": self.glicko.volatility,
            "last_played_at": None if self.last_played_at is None else self.last_played_at.isoformat(),
            "inherited_from": self.inherited_from,
            "skill": self.skill.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> VersionRating:
        """Builds a rating from :meth:`to_json` data.

        Data written before the OpenSkill skill was kept has no ``"skill"``: it reads as the first
        version prior, and ``replay`` from the results gives the real one.
        """
        last = data.get("last_played_at")
        parent = data.get("inherited_from")
        return cls(
            version=BotVersionId(str(data["version"])),
            game=GameName(str(data["game"])),
            elo=float(data["elo"]),
            games=int(data["games"]),
            glicko=glicko2.Glicko2Rating(
                float(data["glicko_rating"]), float(data["deviation"]), float(data["volatility"])
            ),
            last_played_at=None if last is None else datetime.fromisoformat(str(last)),
            inherited_from=None if parent is None else BotVersionId(str(parent)),
            skill=pl.Skill.from_json(data["skill"]) if "skill" in data else pl.Skill(),
        )


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One rated game of one participant: the append-only record behind every rating.

    Raises:
        InvalidResultError: naming the value, if a number is not finite or out of range.
    """

    match_id: MatchId
    """The rated match."""
    game: GameName
    """Its game."""
    version: BotVersionId
    """The participant."""
    seat: int
    """Its seat in the match."""
    rank: int
    """Its rank (1 best)."""
    score: float
    """Its pairwise score: the mean of 1/0.5/0 against every opponent (team score in team games)."""
    played_at: datetime
    """When the match was played."""
    k: float
    """The K used."""
    games_before: int
    """Rated games before this one."""
    elo_before: float
    """Elo before the game (the prior, on a version's first game)."""
    elo_after: float
    """Elo after the game."""
    glicko_before: glicko2.Glicko2Rating
    """Glicko-2 state before the game, before idle growth."""
    glicko_after: glicko2.Glicko2Rating
    """Glicko-2 state after the game."""
    inherited_from: BotVersionId | None = None
    """On a version's first game, the parent whose rating was the prior."""
    skill_before: pl.Skill = field(default_factory=pl.Skill)
    """OpenSkill skill before the game (the prior, on a version's first game)."""
    skill_after: pl.Skill = field(default_factory=pl.Skill)
    """OpenSkill skill after the game."""

    def __post_init__(self) -> None:
        where = f"{self.version!r} in match {self.match_id!r}"
        require_number(f"Elo before, {where}", self.elo_before)
        require_number(f"Elo after, {where}", self.elo_after)
        require_number(f"K, {where}", self.k, minimum=0.0)
        if not 0.0 <= self.score <= 1.0:
            raise InvalidResultError(f"score of {where} must lie in 0..1, got {self.score!r}")
        if self.games_before < 0:
            raise InvalidResultError(f"games before, {where}, must not be negative, got {self.games_before!r}")

    @property
    def elo_change(self) -> float:
        """How much the Elo moved in this game."""
        return self.elo_after - self.elo_before

    def to_json(self) -> dict[str, Any]:
        """Returns the row as plain JSON data; floats round-trip exactly through ``json``."""
        return {
            "match_id": self.match_id,
            "game": self.game,
            "version": self.version,
            "seat": self.seat,
            "rank": self.rank,
            "score": self.score,
            "played_at": self.played_at.isoformat(),
            "k": self.k,
            "games_before": self.games_before,
            "elo_before": self.elo_before,
            "elo_after": self.elo_after,
            "glicko_before": _glicko_json(self.glicko_before),
            "glicko_after": _glicko_json(self.glicko_after),
            "inherited_from": self.inherited_from,
            "skill_before": self.skill_before.to_json(),
            "skill_after": self.skill_after.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HistoryEntry:
        """Builds a row from :meth:`to_json` data."""
        parent = data.get("inherited_from")
        return cls(
            match_id=MatchId(str(data["match_id"])),
            game=GameName(str(data["game"])),
            version=BotVersionId(str(data["version"])),
            seat=int(data["seat"]),
            rank=int(data["rank"]),
            score=float(data["score"]),
            played_at=datetime.fromisoformat(str(data["played_at"])),
            k=float(data["k"]),
            games_before=int(data["games_before"]),
            elo_before=float(data["elo_before"]),
            elo_after=float(data["elo_after"]),
            glicko_before=_glicko_from_json(data["glicko_before"]),
            glicko_after=_glicko_from_json(data["glicko_after"]),
            inherited_from=None if parent is None else BotVersionId(str(parent)),
            skill_before=pl.Skill.from_json(data["skill_before"]) if "skill_before" in data else pl.Skill(),
            skill_after=pl.Skill.from_json(data["skill_after"]) if "skill_after" in data else pl.Skill(),
        )


def _glicko_json(state: glicko2.Glicko2Rating) -> dict[str, float]:
    return {"rating": state.rating, "deviation": state.deviation, "volatility": state.volatility}


def _glicko_from_json(data: Mapping[str, Any]) -> glicko2.Glicko2Rating:
    return glicko2.Glicko2Rating(float(data["rating"]), float(data["deviation"]), float(data["volatility"]))


@dataclass(frozen=True, slots=True)
class RatedGame:
    """What :func:`rate_game` returns: the new ratings of the participants and their history rows."""

    ratings: tuple[VersionRating, ...]
    """New rating per seat."""
    entries: tuple[HistoryEntry, ...]
    """History row per seat, to append."""


def prior(
    version: BotVersionId,
    game: GameName,
    current: Mapping[BotVersionId, VersionRating],
    parents: Mapping[BotVersionId, BotVersionId],
    config: RatingConfig = RatingConfig(),
) -> VersionRating:
    """Returns the starting rating of a version that has not played yet.

    The parent chain is followed until a rated ancestor is found; a chain without one gives the
    default prior. A version inherits Elo and Glicko rating and volatility, resets its game count
    and widens its deviation to at least ``config.new_version_deviation``.

    Raises:
        InvalidResultError: if the parent chain loops.
    """
    seen = {version}
    parent = parents.get(version)
    while parent is not None:
        if parent in current:
            base = current[parent]
            widened = glicko2.Glicko2Rating(
                base.glicko.rating,
                max(base.glicko.deviation, config.new_version_deviation),
                base.glicko.volatility,
            )
            skill = pl.new_version_prior(base.skill, config.skill)
            return VersionRating(version, game, base.elo, 0, widened, None, parent, skill)
        if parent in seen:
            raise InvalidResultError(f"the parent chain of {version!r} loops at {parent!r}")
        seen.add(parent)
        parent = parents.get(parent)
    return VersionRating(
        version, game, config.initial_elo, 0, glicko2.Glicko2Rating(), None, None, pl.initial(config.skill)
    )


def rate_game(
    result: GameResult,
    current: Mapping[BotVersionId, VersionRating],
    parents: Mapping[BotVersionId, BotVersionId] | None = None,
    config: RatingConfig = RatingConfig(),
) -> RatedGame:
    """Rates one game from the participants' current ratings.

    Every participant is updated from the values before the game (the game is simultaneous for
    all of them). ``current`` must hold every participant that has played before and, for new
    versions, their rated ancestors; other entries are ignored.

    Args:
        result: the game.
        current: current ratings by version.
        parents: previous version of each version, for priors.
        config: rating constants.

    Returns:
        The participants' new ratings and their history rows, in seat order.

    Raises:
        InvalidResultError: if a participant is rated in another game, or the ratings are so far
            apart that an update overflows (no rating that is not a finite number can come out).
    """
    parents = parents or {}
    before: list[VersionRating] = []
    for version in result.participants:
        rating = current.get(version)
        if rating is None:
            rating = prior(version, result.game, current, parents, config)
        elif rating.game != result.game:
            raise InvalidResultError(f"{version!r} is rated in {rating.game!r}, not {result.game!r}")
        before.append(rating)

    ks = [config.k.k(r.games) for r in before]
    changes = elo.rating_changes([r.elo for r in before], result.ranks, ks, result.teams)

    grown = [_grown(r, result.played_at, config) for r in before]
    scores = _scores(result)
    new_glicko = [glicko2.rate(grown[i], _opponents(result, grown, i), config.glicko) for i in range(len(before))]
    # No idle growth: a version's skill does not drift between its games (tau = 0).
    new_skill = pl.rate([r.skill for r in before], result.ranks, result.teams, config.skill)

    ratings = []
    entries = []
    for seat, (old, version) in enumerate(zip(before, result.participants, strict=True)):
        new = VersionRating(
            version=version,
            game=result.game,
            elo=old.elo + changes[seat],
            games=old.games + 1,
            glicko=new_glicko[seat],
            last_played_at=result.played_at,
            inherited_from=old.inherited_from,
            skill=new_skill[seat],
        )
        ratings.append(new)
        entries.append(
            HistoryEntry(
                match_id=result.match_id,
                game=result.game,
                version=version,
                seat=seat,
                rank=result.ranks[seat],
                score=scores[seat],
                played_at=result.played_at,
                k=ks[seat],
                games_before=old.games,
                elo_before=old.elo,
                elo_after=new.elo,
                glicko_before=old.glicko,
                glicko_after=new.glicko,
                inherited_from=old.inherited_from if old.games == 0 else None,
                skill_before=old.skill,
                skill_after=new.skill,
            )
        )
    return RatedGame(tuple(ratings), tuple(entries))


def _grown(rating: VersionRating, now: datetime, config: RatingConfig) -> glicko2.Glicko2Rating:
    """The Glicko-2 state grown for the idle time before this game (none for a first game)."""
    if rating.last_played_at is None:
        return rating.glicko
    periods = max(0.0, (now - rating.last_played_at).total_seconds() / config.glicko.period_seconds)
    return glicko2.idle(rating.glicko, periods, config.glicko)


def _scores(result: GameResult) -> list[float]:
    """Mean pairwise score per seat against opponents (team score in team games)."""
    n = len(result.participants)
    scores = []
    for i in range(n):
        others = [j for j in range(n) if j != i and not (result.teams and result.teams[j] == result.teams[i])]
        scores.append(sum(pairwise_score(result.ranks[i], result.ranks[j]) for j in others) / len(others))
    return scores


def _opponents(
    result: GameResult, states: list[glicko2.Glicko2Rating], i: int
) -> list[tuple[glicko2.Glicko2Rating, float]]:
    """Glicko-2 games for seat ``i``: one per opponent in free-for-all, one team composite in 2v2."""
    n = len(result.participants)
    if result.teams:
        opposing = [j for j in range(n) if result.teams[j] != result.teams[i]]
        rival_rank = result.ranks[opposing[0]]
        return [(glicko2.composite([states[j] for j in opposing]), pairwise_score(result.ranks[i], rival_rank))]
    return [(states[j], pairwise_score(result.ranks[i], result.ranks[j])) for j in range(n) if j != i]


@dataclass(slots=True)
class ReplayedRatings:
    """The outcome of :func:`replay`: final ratings by version and the full history.

    (Not a match replay: that is ``referee.core.replay.Replay``, a match's decision log.)
    """

    ratings: dict[BotVersionId, VersionRating]
    """Every version that played, with its current rating."""
    entries: list[HistoryEntry]
    """Every history row, in match order then seat order."""


def replay(
    results: Iterable[GameResult],
    parents: Mapping[BotVersionId, BotVersionId] | None = None,
    config: RatingConfig = RatingConfig(),
    start: Mapping[BotVersionId, VersionRating] | None = None,
) -> ReplayedRatings:
    """Recomputes ratings by folding :func:`rate_game` over ``results`` in the given order.

    Args:
        results: rated games in match order.
        parents: previous version of each version, for priors.
        config: rating constants.
        start: ratings to continue from (empty for a full recomputation).

    Returns:
        Final ratings and the history rows appended along the way.

    Raises:
        InvalidResultError: if a match id repeats or a participant changes game.
    """
    ratings: dict[BotVersionId, VersionRating] = dict(start or {})
    entries: list[HistoryEntry] = []
    seen: set[MatchId] = set()
    for result in results:
        if result.match_id in seen:
            raise InvalidResultError(f"match {result.match_id!r} is rated twice")
        seen.add(result.match_id)
        rated = rate_game(result, ratings, parents, config)
        for rating in rated.ratings:
            ratings[rating.version] = rating
        entries.extend(rated.entries)
    return ReplayedRatings(ratings, entries)


def ratings_from_history(entries: Iterable[HistoryEntry]) -> dict[BotVersionId, VersionRating]:
    """Rebuilds current ratings from stored history rows alone (the last row of each version).

    This is what a site can show without recomputing, and what :func:`replay` must agree with.
    """
    ratings: dict[BotVersionId, VersionRating] = {}
    for entry in entries:
        previous = ratings.get(entry.version)
        ratings[entry.version] = VersionRating(
            version=entry.version,
            game=entry.game,
            elo=entry.elo_after,
            games=entry.games_before + 1,
            glicko=entry.glicko_after,
            last_played_at=entry.played_at,
            inherited_from=entry.inherited_from if previous is None else previous.inherited_from,
            skill=entry.skill_after,
        )
    return ratings
