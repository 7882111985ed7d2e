"""``/healthz``: the liveness answer probed by compose, Caddy and Kubernetes.

It answers 200 ``ok`` after a ``SELECT 1`` on the default database, and 503 when the database
does not answer, so a web process that lost its database is taken out of rotation. It reads
nothing else and is never cached.
"""

from __future__ import annotations

from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache


@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """Returns 200 when the database answers, 503 otherwise."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        return HttpResponse(f"database unavailable: {exc.__class__.__name__}", status=503, content_type="text/plain")
    return HttpResponse("ok", content_type="text/plain")
