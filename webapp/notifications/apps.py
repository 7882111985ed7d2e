"""App configuration for ``webapp.notifications``."""

from typing import Any

from django.apps import AppConfig


def _finished(sender: Any, *, match: Any, replay: Any, **kwargs: Any) -> None:
    from webapp.notifications.services import on_match_finished

    on_match_finished(match, replay)


def _failed(sender: Any, *, match: Any, **kwargs: Any) -> None:
    from webapp.notifications.services import on_match_failed

    on_match_failed(match)


class NotificationsConfig(AppConfig):
    """Author notifications: per-bot events, webhooks and their deliveries."""

    name = "webapp.notifications"
    label = "notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from webapp.matches.signals import match_failed, match_finished

        # Author notifications of a match's end, in the transaction that records it (after ratings and tournaments).
        match_finished.connect(_finished, dispatch_uid="notifications-match-finished")
        match_failed.connect(_failed, dispatch_uid="notifications-match-failed")
