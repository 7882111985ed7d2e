"""API views for hosted uploads: upload a version, read its validation and its runs' logs (author only)."""

# Django and DRF declare options as mutable class attributes (parser_classes, permission_classes).
# ruff: noqa: RUF012

from __future__ import annotations

from typing import cast

from django.http import QueryDict
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from webapp.api import InvalidInput
from webapp.bots.models import Bot
from webapp.hosting import services
from webapp.hosting.models import HostedUpload
from webapp.hosting.serializers import (
    MatchLogsSerializer,
    UploadDetailSerializer,
    UploadFormSerializer,
    UploadSerializer,
)
from webapp.permissions import signed_in_user


def upload_json(row: HostedUpload, *, with_log: bool = False) -> dict[str, object]:
    """The upload as the author sees it."""
    body: dict[str, object] = {
        "id": row.pk,
        "bot": row.bot_id,
        "version": row.version.number if row.version is not None else None,
        "kind": row.kind,
        "entry": row.entry,
        "sha256": row.sha256,
        "size_bytes": row.size_bytes,
        "stored_bytes": row.stored_bytes,
        "status": row.status,
        "summary": row.summary,
        "created": row.created.isoformat(),
    }
    if with_log:
        body["validation_log"] = row.validation_log
        body["runs"] = [
            {
                "started": r.started.isoformat(),
                "ended": r.ended and r.ended.isoformat(),
                "verdict": r.verdict,
                "log": r.log,
            }
            for r in row.runs.all()[:20]
        ]
    return body


class UploadView(APIView):
    """``POST /api/v1/bots/<id>/upload/`` (multipart: ``file``, ``entry``, ``notes``): a new hosted version."""

    permission_classes = [permissions.IsAuthenticated]
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"multipart/form-data": UploadFormSerializer},
        responses={201: UploadSerializer},
        description="Checks and stores a new version of the bot (its author only); its status is pending until "
        "the bot host has validated it (docs/hosted-bots.md).",
    )
    def post(self, request: Request, bot_id: int) -> Response:
        """Checks and stores the upload; the bot host validates it next."""
        bot = get_object_or_404(Bot, pk=bot_id)
        upload = request.FILES.get("file")
        if upload is None:
            raise InvalidInput("send the bot as the multipart field 'file'")
        form = cast(QueryDict, request.data)  # multipart, the only parser of this view: a QueryDict
        entry = str(form.get("entry", ""))
        row = services.do_upload(
            signed_in_user(request),
            bot,
            upload.name or "bot",
            upload.read(),
            entry,
            str(form.get("notes", "")),
        )
        return Response(upload_json(row), status=status.HTTP_201_CREATED)


class UploadDetailView(APIView):
    """``GET /api/v1/hosted-uploads/<id>/``: status, validation log and run logs, for the bot's author only."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        responses={200: UploadDetailSerializer},
        description="The upload's status, validation log and last 20 runs; anyone but the bot's author gets a 404.",
    )
    def get(self, request: Request, upload_id: int) -> Response:
        """Returns the upload; anyone but the author gets a 404 (the logs are the author's)."""
        row = get_object_or_404(HostedUpload.objects.select_related("bot", "version"), pk=upload_id)
        if row.bot.owner_id != request.user.pk:
            return Response({"detail": "Not found.", "code": "not_found"}, status=status.HTTP_404_NOT_FOUND)
        return Response(upload_json(row, with_log=True))


class MatchLogsView(APIView):
    """``GET /api/v1/matches/<id>/hosted-logs/``: the requesting author's hosted runs during that match."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        responses={200: MatchLogsSerializer},
        description="What the requesting author's hosted versions wrote while they played the match; "
        "empty when none of them did.",
    )
    def get(self, request: Request, match_id: int) -> Response:
        """Returns ``{"runs": [...]}``: empty for anyone with no hosted version seated in the match."""
        from webapp.matches.models import Match

        get_object_or_404(Match, pk=match_id)
        return Response({"runs": services.match_logs(signed_in_user(request), match_id)})
