"""App configuration for ``webapp.rankings``."""

from typing import Any

from django.apps import AppConfig


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

        # A rated match is rated in the transaction that records its result, by webapp.results.
        # A new version gets its placeholder rating row (the leaderboard lists it) in the same transaction.
        version_created.connect(_placeholder, dispatch_uid="rankings-new-version-row")
