"""App configuration for ``webapp.accounts``."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """The accounts app."""

    name = "webapp.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Connects the sign-in failure counters (user_login_failed, user_logged_in).
        from webapp.accounts import lockout  # noqa: F401
