"""App configuration for ``webapp.rankings``."""

from django.apps import AppConfig


class RankingsConfig(AppConfig):
    """The rankings app."""

    name = "webapp.rankings"
    label = "rankings"
    default_auto_field = "django.db.models.BigAutoField"
