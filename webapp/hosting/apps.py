"""App configuration for ``webapp.hosting``."""

from django.apps import AppConfig


class HostingConfig(AppConfig):
    """Hosted bots: uploads, their validation and the logs of their runs (issue 16)."""

    name = "webapp.hosting"
    label = "hosting"
    default_auto_field = "django.db.models.BigAutoField"
