"""App configuration for ``webapp.matches``."""

from django.apps import AppConfig


class MatchesConfig(AppConfig):
    """The matches app."""

    name = "webapp.matches"
    label = "matches"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from webapp.matches.signals import match_finished
        from webapp.matches.stats import on_match_finished

        # The bots' counts (bot page, leaderboard) change with the result, in the transaction that records it.
        match_finished.connect(on_match_finished, dispatch_uid="matches-count-finished-match")
