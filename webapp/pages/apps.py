"""App configuration for ``webapp.pages``."""

from django.apps import AppConfig


class PagesConfig(AppConfig):
    """The pages app.

    A result's leaderboard and bot pages are refreshed by a worker once it commits
    (``webapp.results.after_commit`` calls ``webapp.pages.refresh.request_refresh``).
    """

    name = "webapp.pages"
    label = "pages"
    default_auto_field = "django.db.models.BigAutoField"
