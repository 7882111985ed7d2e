# Django declares migration options as mutable class attributes.
# ruff: noqa: RUF012
"""``MatchSeat.strikes`` is recounted from each finished match's stored incidents.

The seats' strikes used to count incidents named ``"strike"``, a kind the referee never records,
so every stored count was 0. A strike is one incident of a strike kind; the kinds are written out
here as they were when this migration was written (``referee.core.replay.STRIKE_KINDS``), so the
migration means the same whatever the code becomes.
"""

from collections import Counter
from typing import Any

from django.db import migrations

STRIKE_KINDS = frozenset({"timeout", "illegal_answer", "malformed_answer"})


def recount(apps: Any, schema_editor: Any) -> None:
    Match = apps.get_model("matches", "Match")
    MatchSeat = apps.get_model("matches", "MatchSeat")
    rows = Match.objects.exclude(incidents=[]).values_list("id", "incidents").iterator(chunk_size=2000)
    for match_id, incidents in rows:
        counts = Counter(
            int(i["seat"]) for i in incidents or [] if isinstance(i, dict) and i.get("kind") in STRIKE_KINDS
        )
        for seat in MatchSeat.objects.filter(match_id=match_id):
            if seat.strikes != counts.get(seat.seat, 0):
                seat.strikes = counts.get(seat.seat, 0)
                seat.save(update_fields=["strikes"])


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0005_seat_latency"),
    ]

    operations = [
        migrations.RunPython(recount, migrations.RunPython.noop),
    ]
