"""API shapes of hosted uploads, for the OpenAPI schema: the upload form, an upload, its runs' logs.

The views build their answers with :func:`webapp.hosting.views.upload_json` and
``services.match_logs``; these serializers describe those answers (and the multipart form the
upload takes) field for field. They do not validate the upload: ``services.do_upload`` does.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from webapp.hosting.models import UploadStatus


class UploadFormSerializer(serializers.Serializer[dict[str, Any]]):
    """The multipart form of an upload: the bot's files and how to start it."""

    file = serializers.FileField(
        help_text="One Python file, a .zip of a Python package, or an executable (alone or in a .zip): at most "
        "2 MiB as sent and 16 MiB unpacked (docs/hosted-bots.md)."
    )
    entry = serializers.CharField(
        max_length=200,
        help_text="module:Class of an SDK bot (e.g. mybot:MyBot), or the relative path of the executable in the "
        "upload (e.g. bin/bot).",
    )
    notes = serializers.CharField(
        required=False, allow_blank=True, max_length=200, help_text="The new version's notes, at most 200 characters."
    )


class UploadSerializer(serializers.Serializer[dict[str, Any]]):
    """An upload as its author sees it."""

    id = serializers.IntegerField()
    bot = serializers.IntegerField(help_text="Id of the bot it is a version of.")
    version = serializers.IntegerField(
        allow_null=True, help_text="The bot version's number once validated; null before."
    )
    kind = serializers.CharField(help_text='"python" (an SDK class) or "exec" (an executable).')
    entry = serializers.CharField(help_text="module:Class, or the executable's path inside the upload.")
    sha256 = serializers.CharField(help_text="SHA-256 of the bytes as uploaded, in hex.")
    size_bytes = serializers.IntegerField(help_text="Bytes uploaded.")
    stored_bytes = serializers.IntegerField(help_text="Bytes of the unpacked files, counted against the quota.")
    status = serializers.ChoiceField(choices=UploadStatus.choices)
    summary = serializers.CharField(help_text="One line: why the upload passed or failed; empty while pending.")
    created = serializers.DateTimeField()


class HostedRunSerializer(serializers.Serializer[dict[str, Any]]):
    """One run of the upload in the sandbox."""

    started = serializers.DateTimeField()
    ended = serializers.DateTimeField(allow_null=True, help_text="Null while it runs.")
    verdict = serializers.CharField(help_text="How it ended (stopped by the host, out of memory, crashed, ...).")
    log = serializers.CharField(help_text="The run's output, bounded.")


class UploadDetailSerializer(UploadSerializer):
    """An upload with its validation log and its latest runs."""

    validation_log = serializers.CharField(help_text="The import check's and validation match's output, bounded.")
    runs = HostedRunSerializer(many=True, help_text="The last 20 runs, newest first.")


class MatchLogSerializer(serializers.Serializer[dict[str, Any]]):
    """What one of the author's hosted runs wrote while it played the match."""

    version = serializers.IntegerField(allow_null=True, help_text="Number of the bot version that ran.")
    upload = serializers.IntegerField(help_text="Id of the upload that ran.")
    run = serializers.IntegerField(help_text="Id of the run.")
    started = serializers.DateTimeField()
    ended = serializers.DateTimeField(allow_null=True)
    verdict = serializers.CharField(help_text="How the run ended during the match, or that it played to its end.")
    run_verdict = serializers.CharField(help_text="How the whole run ended.")
    whole_run = serializers.BooleanField(
        help_text="True when the run carries no match marks (an executable, a cluster pod): the log is the whole run's."
    )
    log = serializers.CharField()


class MatchLogsSerializer(serializers.Serializer[dict[str, Any]]):
    """The requesting author's hosted runs during a match: empty when none of their hosted versions played."""

    runs = MatchLogSerializer(many=True)
