# Django declares migration options as mutable class attributes.
# ruff: noqa: RUF012
"""The viewer's spectator frames, computed once per replay and stored (``MatchFrames``)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0003_seed_commitment"),
    ]

    operations = [
        migrations.CreateModel(
            name="MatchFrames",
            fields=[
                (
                    "match",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="frames_store",
                        serialize=False,
                        to="matches.match",
                    ),
                ),
                ("replay_digest", models.CharField(max_length=64)),
                ("frames_gz", models.BinaryField()),
                ("created", models.DateTimeField(auto_now_add=True)),
            ],
        ),
    ]
