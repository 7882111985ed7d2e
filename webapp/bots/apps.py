"""App configuration for ``webapp.bots``."""

from django.apps import AppConfig


class BotsConfig(AppConfig):
    """The bots app."""

    name = "webapp.bots"
    label = "bots"
    default_auto_field = "django.db.models.BigAutoField"
