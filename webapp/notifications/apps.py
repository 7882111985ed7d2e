"""App configuration for ``webapp.notifications``."""

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """Author notifications: per-bot events, webhooks and their deliveries."""

    name = "webapp.notifications"
    label = "notifications"
    default_auto_field = "django.db.models.BigAutoField"
