"""Compression of the spectator frames, the one large public JSON answer.

Frames of a long ScrumBrawl match are several megabytes of repetitive JSON that gzip shrinks about
tenfold. Only that path is compressed: pages carry CSRF tokens and some API answers carry a fresh
bot token, and compressing secrets next to attacker-chosen text invites BREACH-style attacks.
"""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse
from django.middleware.gzip import GZipMiddleware

FRAMES_PATH = re.compile(r"^/api/v1/matches/\d+/frames/$")
"""Paths whose answers are compressed."""


class FramesGZipMiddleware(GZipMiddleware):
    """Gzips the answers of the frames endpoint when the client accepts gzip."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if not FRAMES_PATH.match(request.path):
            return response
        return super().process_response(request, response)
