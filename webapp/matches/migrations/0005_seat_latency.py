# Django declares migration options as mutable class attributes.
# ruff: noqa: RUF012
"""Latency is stored once, on the seat: ``MatchSeat`` gains p95, max and the timed decisions;
``Match.latency`` (the same figures as JSON per seat) is copied onto the seats, then dropped."""

from typing import Any

from django.db import migrations, models


def copy_to_seats(apps: Any, schema_editor: Any) -> None:
    Match = apps.get_model("matches", "Match")
    MatchSeat = apps.get_model("matches", "MatchSeat")
    for match_id, latency in Match.objects.exclude(latency={}).values_list("id", "latency").iterator():
        for seat, figures in (latency or {}).items():
            if not figures:
                continue
            MatchSeat.objects.filter(match_id=match_id, seat=int(seat)).update(
                p95_latency_ms=figures.get("p95_ms"),
                max_latency_ms=figures.get("max_ms"),
                timed_decisions=figures.get("decisions", 0),
            )


def copy_to_match(apps: Any, schema_editor: Any) -> None:
    Match = apps.get_model("matches", "Match")
    MatchSeat = apps.get_model("matches", "MatchSeat")
    latency: dict[int, dict[str, Any]] = {}
    for s in MatchSeat.objects.exclude(mean_latency_ms=None).iterator():
        latency.setdefault(s.match_id, {})[str(s.seat)] = {
            "mean_ms": round(s.mean_latency_ms, 1),
            "p95_ms": s.p95_latency_ms,
            "max_ms": s.max_latency_ms,
            "decisions": s.timed_decisions,
        }
    for match_id, figures in latency.items():
        Match.objects.filter(pk=match_id).update(latency=figures)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0004_match_frames"),
    ]

    operations = [
        migrations.AddField(
            model_name="matchseat",
            name="p95_latency_ms",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="matchseat",
            name="max_latency_ms",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="matchseat",
            name="timed_decisions",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(copy_to_seats, copy_to_match),
        migrations.RemoveField(model_name="match", name="latency"),
    ]
