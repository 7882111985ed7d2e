"""App configuration for ``webapp.rankings``."""

from typing import Any

from django.apps import AppConfig


def _rate(sender: Any, *, match: Any, seats: Any, **kwargs: Any) -> None:
    if match.rated:
        from webapp.rankings.services import do_apply_rated_match

        do_apply_rated_match(match, seats)


def _placeholder(sender: Any, *, version: Any, game: str, **kwargs: Any) -> None:
    from webapp.rankings.services import ratings_for

    ratings_for(game, [version.pk])


class RankingsConfig(AppConfig):
    """The rankings app."""

    name = "webapp.rankings"
    label = "rankings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from webapp.bots.signals import version_created
        from webapp.matches.signals import match_finished

        # A rated match is rated in the transaction that records its result.
        match_finished.connect(_rate, dispatch_uid="rankings-rate-finished-match")
        # A new version gets its placeholder rating row (the leaderboard lists it) in the same transaction.
        version_created.connect(_placeholder, dispatch_uid="rankings-new-version-row")
