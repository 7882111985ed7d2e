"""The learning dataset: finished public matches, one row per decision as the deciding seat saw it (docs/dataset.md)."""
