"""Benchmarks. Each module runs alone (``python -m bench.<name>``) and prints its figures as ratios
against a floor measured in the same run where one applies; ``python -m bench`` runs them all.
Results are recorded in ``docs/benchmarks.md``. Nothing here runs in the default test suite."""
