"""App configuration for ``webapp.tournaments``."""

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """The tournaments app."""

    name = "webapp.tournaments"
    label = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"
