"""Ratings per bot version and game, and the append-only history that produced them.

``Rating`` is the current value (``ladder.history.VersionRating`` plus display counters, a cache of
the history for fast leaderboards); ``RatingHistory`` has one row per rated match and seat holding
exactly one ``ladder.history.HistoryEntry``, unique on (match, bot version), so a result can never
be counted twice even if the finishing task runs twice. The arithmetic lives in ``ladder/``; rows
are written by ``rankings.services`` only, and ``brawl ratings verify`` checks them against a
recomputation from the results.
"""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

from django.db import models

from ladder.glicko2 import conservative
from webapp import refs

INITIAL_ELO = 1500.0
"""Elo of a version that has not played."""
INITIAL_GLICKO = 1500.0
"""Glicko-2 rating of a version that has not played."""
INITIAL_RD = 350.0
"""Glicko-2 rating deviation of a version that has not played."""
INITIAL_VOLATILITY = 0.06
"""Glicko-2 volatility of a version that has not played."""
INITIAL_SKILL_MU = 25.0
"""OpenSkill mean of a first version (``ladder.plackett_luce.DEFAULT_MU``)."""
INITIAL_SKILL_SIGMA = 25.0 / 3.0
"""OpenSkill deviation of a first version (``ladder.plackett_luce.DEFAULT_SIGMA``)."""


class Rating(models.Model):
    """The current rating of one bot version in one game."""

    bot_version = models.ForeignKey(refs.BOT_VERSION, on_delete=models.CASCADE, related_name="ratings")
    """The rated bot version."""
    game = models.CharField(max_length=64)
    """Registry name of the game."""
    elo = models.FloatField(default=INITIAL_ELO)
    """Elo rating."""
    glicko_rating = models.FloatField(default=INITIAL_GLICKO)
    """Glicko-2 rating (Glicko scale)."""
    glicko_rd = models.FloatField(default=INITIAL_RD)
    """Glicko-2 rating deviation: the uncertainty shown as ±."""
    glicko_volatility = models.FloatField(default=INITIAL_VOLATILITY)
    """Glicko-2 volatility."""
    skill_mu = models.FloatField(default=INITIAL_SKILL_MU)
    """OpenSkill (Plackett-Luce) skill mean (``ladder.plackett_luce``)."""
    skill_sigma = models.FloatField(default=INITIAL_SKILL_SIGMA)
    """OpenSkill skill deviation; the conservative rating is ``skill_mu - 3 skill_sigma``."""
    games = models.PositiveIntegerField(default=0)
    """Rated matches played."""
    wins = models.PositiveIntegerField(default=0)
    """Rated matches won (ranked first alone)."""
    losses = models.PositiveIntegerField(default=0)
    """Rated matches lost (not ranked first)."""
    draws = models.PositiveIntegerField(default=0)
    """Rated matches in which the version shared first place."""
    last_played = models.DateTimeField(null=True, blank=True)
    """When the last rated match finished."""
    peak_elo = models.FloatField(default=INITIAL_ELO)
    """Highest Elo held: the prior and every rating after a game."""
    inherited_from = models.ForeignKey(
        refs.BOT_VERSION, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    """The parent version whose rating was this version's prior; ``None`` for a default prior."""

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot_version", "game"], name="rating_unique_per_version_game")]
        indexes = [models.Index(fields=["game", "-elo"], name="rating_game_elo")]
        ordering = ["-elo"]

    def __str__(self) -> str:
        return f"{self.bot_version} {self.game}: {self.elo:.0f}"

    @property
    def published(self) -> float:
        """The published, conservative rating: Glicko-2 ``r - 2 RD`` (``ladder.glicko2.conservative``)."""
        return conservative(self.glicko_rating, self.glicko_rd)


class RatingHistory(models.Model):
    """One rating change: a rated match's effect on one bot version. Never updated or deleted."""

    match = models.ForeignKey(refs.MATCH, on_delete=models.PROTECT, related_name="rating_changes")
    """The rated match."""
    bot_version = models.ForeignKey(refs.BOT_VERSION, on_delete=models.CASCADE, related_name="rating_history")
    """The bot version whose rating changed."""
    game = models.CharField(max_length=64)
    """Registry name of the game."""
    elo_before = models.FloatField()
    """Elo before the match."""
    elo_after = models.FloatField()
    """Elo after the match."""
    glicko_before = models.FloatField()
    """Glicko-2 rating before the match."""
    glicko_after = models.FloatField()
    """Glicko-2 rating after the match."""
    rd_before = models.FloatField()
    """Glicko-2 deviation before the match, before its growth for idle time."""
    rd_after = models.FloatField()
    """Glicko-2 deviation after the match."""
    rank = models.PositiveSmallIntegerField()
    """The version's rank in the match, 1 best."""
    seat = models.PositiveSmallIntegerField(default=0)
    """The version's seat in the match, from 0."""
    score = models.FloatField(default=0.0)
    """Pairwise score: mean of 1/0.5/0 against every opponent (the team's, in team games)."""
    played_at = models.DateTimeField(null=True, blank=True)
    """When the match was played (its ``finished_at``): drives the deviation's idle growth."""
    k = models.FloatField(default=0.0)
    """The Elo K used."""
    games_before = models.PositiveIntegerField(default=0)
    """Rated games of the version before this one."""
    volatility_before = models.FloatField(default=INITIAL_VOLATILITY)
    """Glicko-2 volatility before the match."""
    volatility_after = models.FloatField(default=INITIAL_VOLATILITY)
    """Glicko-2 volatility after the match."""
    skill_mu_before = models.FloatField(default=INITIAL_SKILL_MU)
    """OpenSkill skill mean before the match (the prior, on a version's first)."""
    skill_sigma_before = models.FloatField(default=INITIAL_SKILL_SIGMA)
    """OpenSkill skill deviation before the match."""
    skill_mu_after = models.FloatField(default=INITIAL_SKILL_MU)
    """OpenSkill skill mean after the match."""
    skill_sigma_after = models.FloatField(default=INITIAL_SKILL_SIGMA)
    """OpenSkill skill deviation after the match."""
    inherited_from = models.ForeignKey(
        refs.BOT_VERSION, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    """On a version's first rated match, the parent whose rating was the prior."""
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    """When the change was recorded."""

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "rating history"
        constraints = [
            models.UniqueConstraint(fields=["match", "bot_version"], name="rating_history_once_per_match_version")
        ]
        indexes = [
            models.Index(fields=["bot_version", "id"], name="rating_history_version_id"),
            # The newest change of one game, read on every leaderboard request (webapp.rankings.views_pages).
            models.Index(fields=["game", "id"], name="rating_history_game_id"),
        ]

    def __str__(self) -> str:
        return f"{self.bot_version_id} in match {self.match_id}: {self.elo_before:.0f} -> {self.elo_after:.0f}"
