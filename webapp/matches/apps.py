"""App configuration for ``webapp.matches``."""

from django.apps import AppConfig


class MatchesConfig(AppConfig):
    """The matches app."""

    name = "webapp.matches"
    label = "matches"
    default_auto_field = "django.db.models.BigAutoField"
