"""App configuration for ``webapp.notifications``."""

from typing import Any

from django.apps import AppConfig


def _failed(sender: Any, *, match: Any, **kwargs: Any) -> None:
    from webapp.notifications.services import on_match_failed

    on_match_failed(match)


class NotificationsConfig(AppConfig):
    """Author notifications: per-bot events, webhooks and their deliveries."""

    name = "webapp.notifications"
    label = "notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from webapp.matches.signals import match_failed

        # Author notifications of a match that ends without a result, in the transaction that ends it.
        # A result's are emitted once it has committed (webapp.results.after_commit).
        match_failed.connect(_failed, dispatch_uid="notifications-match-failed")
