"""App configuration for ``webapp.accounts``."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """The accounts app."""

    name = "webapp.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
