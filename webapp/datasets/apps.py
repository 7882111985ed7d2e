"""App configuration for ``webapp.datasets``."""

from django.apps import AppConfig


class DatasetsConfig(AppConfig):
    """The learning dataset: no models; its files live under ``BRAWL_VAR_DIR/datasets`` (issue 28)."""

    name = "webapp.datasets"
    label = "datasets"
    default_auto_field = "django.db.models.BigAutoField"
