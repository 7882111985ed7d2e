# Django declares migration options as mutable class attributes.
# ruff: noqa: RUF012
"""Publishes a commitment to every match's seed and indexes seeds (matches sharing one reveal together)."""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

from referee.core.fairness import seed_commitment


def commit_existing(apps: Any, schema_editor: Any) -> None:
    """Fills the commitment of the rows made before it existed (the referee's match id is the row id)."""
    match_model = apps.get_model("matches", "Match")
    batch = []
    for m in match_model.objects.filter(seed_commitment="").only("id", "seed").iterator(chunk_size=2000):
        try:
            m.seed_commitment = seed_commitment(str(m.pk), m.seed)
        except ValueError:  # a seed outside 0..2**63-1 (hand-made rows) has no commitment to publish
            continue
        batch.append(m)
        if len(batch) >= 2000:
            match_model.objects.bulk_update(batch, ["seed_commitment"])
            batch = []
    if batch:
        match_model.objects.bulk_update(batch, ["seed_commitment"])


class Migration(migrations.Migration):
    dependencies = [("matches", "0002_match_time_control")]

    operations = [
        migrations.AddField(
            model_name="match",
            name="seed_commitment",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AlterField(model_name="match", name="seed", field=models.BigIntegerField(db_index=True)),
        migrations.RunPython(commit_existing, migrations.RunPython.noop),
    ]
