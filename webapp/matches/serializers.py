"""API shapes of matches and seats."""

# Django and DRF declare options as mutable class attributes (Meta.fields, permission_classes, list_display).
# ruff: noqa: RUF012

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from webapp.matches.models import Match, MatchSeat


class MatchSeatSerializer(serializers.ModelSerializer[MatchSeat]):
    """A seat: who played it and what the referee recorded."""

    bot_id = serializers.IntegerField(source="bot_version.bot_id", read_only=True)
    bot = serializers.CharField(source="bot_version.bot.name", read_only=True)
    owner = serializers.CharField(source="bot_version.bot.owner.username", read_only=True)
    version = serializers.IntegerField(source="bot_version.number", read_only=True)

    class Meta:
        model = MatchSeat
        fields = [
            "seat",
            "bot_id",
            "bot",
            "owner",
            "version",
            "bot_version",
            "rank",
            "score",
            "strikes",
            "timeouts",
            "illegal_answers",
            "mean_latency_ms",
        ]


class MatchSerializer(serializers.ModelSerializer[Match]):
    """A match as listed."""

    seats = MatchSeatSerializer(many=True, read_only=True)
    has_replay = serializers.SerializerMethodField(
        help_text="Whether the replay can be downloaded: stored, and the match's secrets revealed."
    )
    seed_commitment = serializers.CharField(
        read_only=True,
        help_text="SHA-256 commitment to the seed, published when the match is created "
        "(``referee.core.fairness.seed_commitment`` of the match id and the seed).",
    )

    class Meta:
        model = Match
        fields = [
            "id",
            "game",
            "status",
            "rated",
            "tournament",
            "tournament_round",
            "tournament_slot",
            "game_in_series",
            "created",
            "started_at",
            "finished_at",
            "outcome",
            "seats",
            "has_replay",
            "seed_commitment",
        ]

    def get_has_replay(self, obj: Match) -> bool:
        # A replay staged while the match (or a match sharing its seed) still runs holds the seed: not yet.
        if not obj.secrets_revealed():
            return False
        # Listing querysets defer the replay bytes and annotate this instead of loading them.
        annotated = getattr(obj, "replay_stored", None)
        return bool(annotated) if annotated is not None else obj.has_replay


class MatchDetailSerializer(MatchSerializer):
    """A match with everything the referee recorded; the seed only once the match's secrets are revealed."""

    seed = serializers.SerializerMethodField(
        help_text="The match seed, null until the match and every match sharing its seed have ended "
        "(check it against ``seed_commitment``)."
    )
    secrets_revealed = serializers.SerializerMethodField(
        help_text="Whether the seed and the replay are public (the match and every match sharing its seed ended)."
    )
    latency = serializers.SerializerMethodField(
        help_text='Think time per seat: {"0": {"mean_ms", "p95_ms", "max_ms", "decisions"}, ...}, milliseconds; '
        "{} for a seat with no timed decision (built from the seats, where latency is stored)."
    )

    class Meta(MatchSerializer.Meta):
        fields = [
            *MatchSerializer.Meta.fields,
            "config",
            "time_control",
            "seed",
            "secrets_revealed",
            "referee_id",
            "request_id",
            "incidents",
            "latency",
            "failure",
            "replaces",
        ]

    def get_seed(self, obj: Match) -> int | None:
        return obj.revealed_seed()

    def get_secrets_revealed(self, obj: Match) -> bool:
        return obj.secrets_revealed()

    def get_latency(self, obj: Match) -> dict[str, dict[str, float | int | None]]:
        return {str(seat.seat): seat.latency_summary() for seat in obj.seats.all()}


class FramesSerializer(serializers.Serializer[dict[str, Any]]):
    """Spectator frames of a replay (see ``matches.frames``)."""

    total = serializers.IntegerField()
    start = serializers.IntegerField()
    game = serializers.CharField()
    seats = serializers.ListField(child=serializers.CharField())
    frames = serializers.ListField(child=serializers.DictField())
    outcome = serializers.DictField(allow_null=True)
    incidents = serializers.ListField(child=serializers.DictField())
    board = serializers.DictField(allow_null=True, help_text="Fixed board layout (arena, statues, zones) or null.")
    cells = serializers.ListField(
        child=serializers.DictField(),
        help_text="The board's cells (id, shape, center, points...), which each frame's ``view`` leaves out while "
        "they are the same (referee/core/data/schema/board_view.schema.json).",
    )
    frames_version = serializers.IntegerField(
        help_text="2: each frame has the game's board ``view``, each event its ``text``, each decision its "
        "``targets`` (docs/web.md)."
    )


LIST_FIELDS = (
    "id",
    "game",
    "status",
    "rated",
    "tournament_id",
    "tournament_round",
    "tournament_slot",
    "game_in_series",
    "created",
    "started_at",
    "finished_at",
    "outcome",
    "seed_commitment",
    "secrets_open",
    "replay_stored",
)
"""Columns (and annotations of ``views.match_queryset``) a listed match is built from by :func:`match_list_rows`."""
SEAT_FIELDS = (
    "match_id",
    "seat",
    "bot_version__bot_id",
    "bot_version__bot__name",
    "bot_version__bot__owner__username",
    "bot_version__number",
    "bot_version_id",
    "rank",
    "score",
    "strikes",
    "timeouts",
    "illegal_answers",
    "mean_latency_ms",
)
"""Columns of a seat as listed."""


def match_list_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns exactly what :class:`MatchSerializer` makes of these matches, from ``.values(*LIST_FIELDS)`` rows.

    Builds plain dictionaries in one query for all the seats, without model instances or a
    serializer per field (``tests/webapp/test_pagination.py`` checks the two agree).
    """
    if not rows:
        return []
    when = serializers.DateTimeField().to_representation
    seats: dict[int, list[dict[str, Any]]] = {r["id"]: [] for r in rows}
    for s in MatchSeat.objects.filter(match_id__in=seats).order_by("match_id", "seat").values_list(*SEAT_FIELDS):
        seats[s[0]].append(
            {
                "seat": s[1],
                "bot_id": s[2],
                "bot": s[3],
                "owner": s[4],
                "version": s[5],
                "bot_version": s[6],
                "rank": s[7],
                "score": s[8],
                "strikes": s[9],
                "timeouts": s[10],
                "illegal_answers": s[11],
                "mean_latency_ms": s[12],
            }
        )
    return [
        {
            "id": r["id"],
            "game": r["game"],
            "status": r["status"],
            "rated": r["rated"],
            "tournament": r["tournament_id"],
            "tournament_round": r["tournament_round"],
            "tournament_slot": r["tournament_slot"],
            "game_in_series": r["game_in_series"],
            "created": when(r["created"]) if r["created"] else None,
            "started_at": when(r["started_at"]) if r["started_at"] else None,
            "finished_at": when(r["finished_at"]) if r["finished_at"] else None,
            "outcome": r["outcome"],
            "seats": seats[r["id"]],
            # The rule of MatchSerializer.get_has_replay: stored, and the match's secrets revealed.
            "has_replay": bool(r["secrets_open"]) and bool(r["replay_stored"]),
            "seed_commitment": r["seed_commitment"],
        }
        for r in rows
    ]
