"""App configuration for ``webapp.pages``."""

from django.apps import AppConfig


class PagesConfig(AppConfig):
    """The pages app."""

    name = "webapp.pages"
    label = "pages"
    default_auto_field = "django.db.models.BigAutoField"
