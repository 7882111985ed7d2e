"""App configuration for ``webapp.tables``."""

from django.apps import AppConfig


class TablesConfig(AppConfig):
    """The tables app; a match that ends without a result ends its table (``matches.signals.match_failed``)."""

    name = "webapp.tables"
    label = "tables"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from typing import Any

        from webapp.matches.signals import match_failed
        from webapp.tables import services

        def on_failed(sender: Any, match: Any, **kwargs: Any) -> None:
            services.on_match_failed(match)

        match_failed.connect(on_failed, dispatch_uid="tables.on_match_failed", weak=False)
