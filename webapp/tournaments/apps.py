"""App configuration for ``webapp.tournaments``."""

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _organizer_group(sender: AppConfig, **kwargs: Any) -> None:
    from webapp.tournaments.roles import ensure_organizer_group

    ensure_organizer_group()


class TournamentsConfig(AppConfig):
    """The tournaments app."""

    name = "webapp.tournaments"
    label = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # After every migrate (and the test database's creation) the organizers group exists.
        post_migrate.connect(_organizer_group, sender=self, dispatch_uid="tournaments-organizer-group")
