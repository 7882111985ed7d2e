"""App configuration for ``webapp.tournaments``."""

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _organizer_group(sender: AppConfig, **kwargs: Any) -> None:
    from webapp.roles import ensure_organizer_group

    ensure_organizer_group()


def _advance(sender: Any, *, match: Any, **kwargs: Any) -> None:
    if match.tournament_id is not None:
        from webapp.tournaments.services import on_match_final

        on_match_final(match)


class TournamentsConfig(AppConfig):
    """The tournaments app."""

    name = "webapp.tournaments"
    label = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # After every migrate (and the test database's creation) the organizers group exists.
        post_migrate.connect(_organizer_group, sender=self, dispatch_uid="tournaments-organizer-group")
        from webapp.matches.signals import match_failed

        # A tournament match that ends without a result advances its tournament, in the same
        # transaction; one with a result is fed to it by webapp.results, after the ratings.
        match_failed.connect(_advance, dispatch_uid="tournaments-advance-failed")
