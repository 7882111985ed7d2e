"""API shapes of the current user."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class MeSerializer(serializers.Serializer[dict[str, Any]]):
    """Who the caller is and what they may still do today."""

    id = serializers.IntegerField()
    username = serializers.CharField()
    is_organizer = serializers.BooleanField()
    challenges_left = serializers.IntegerField()
    challenges_reset_at = serializers.DateTimeField()


class ApiTokenSerializer(serializers.Serializer[dict[str, Any]]):
    """A freshly issued API token, shown once."""

    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`; shown only in this response.")
