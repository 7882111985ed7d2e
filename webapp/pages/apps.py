"""App configuration for ``webapp.pages``."""

from typing import Any

from django.apps import AppConfig


def _refresh(sender: Any, *, match: Any, **kwargs: Any) -> None:
    from webapp.pages.refresh import after_result

    after_result(sender, match=match, **kwargs)


class PagesConfig(AppConfig):
    """The pages app."""

    name = "webapp.pages"
    label = "pages"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from webapp.matches.signals import match_finished

        # A result's leaderboard and bot pages are refreshed by a worker after the commit (webapp.pages.refresh).
        match_finished.connect(_refresh, dispatch_uid="pages-refresh-after-result")
