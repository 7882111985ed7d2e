"""App configuration for ``webapp.matches``."""

from django.apps import AppConfig


class MatchesConfig(AppConfig):
    """The matches app.

    The bots' counts change with a result in the transaction that records it
    (``webapp.results.do_finish_match`` calls ``webapp.matches.stats.add_result``).
    """

    name = "webapp.matches"
    label = "matches"
    default_auto_field = "django.db.models.BigAutoField"
