"""App configuration for ``webapp.rankings``."""

from typing import Any

from django.apps import AppConfig


def _rate(sender: Any, *, match: Any, seats: Any, **kwargs: Any) -> None:
    if match.rated:
        from webapp.rankings.services import do_apply_rated_match

        do_apply_rated_match(match, seats)


class RankingsConfig(AppConfig):
    """The rankings app."""

    name = "webapp.rankings"
    label = "rankings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from webapp.matches.signals import match_finished

        # A rated match is rated in the transaction that records its result.
        match_finished.connect(_rate, dispatch_uid="rankings-rate-finished-match")
