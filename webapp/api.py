"""API plumbing shared by every app: pagination, domain refusals and the error body format.

Every error body is ``{"detail": ..., "code": ...}``; a throttled or limited request adds
``retry_after`` (seconds, an integer) and the ``Retry-After`` header, so a client can wait
exactly as long as needed. This module holds no domain logic.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from rest_framework import exceptions, pagination, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class Pagination(pagination.PageNumberPagination):
    """Page-number pagination; ``?page_size=`` up to 200."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class DomainError(exceptions.APIException):
    """A request the domain refuses (a state transition that is not allowed, for example)."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state."
    default_code = "conflict"


class LimitReached(exceptions.APIException):
    """A per-author quota is spent; the body says when it resets."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_detail = "Limit reached."
    default_code = "limit_reached"

    def __init__(self, detail: str, resets_at: datetime, now: datetime) -> None:
        super().__init__(detail)
        self.resets_at = resets_at
        self.wait = max(1, math.ceil((resets_at - now).total_seconds()))


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Renders errors as ``{"detail", "code"}`` and adds retry information to 429 answers."""
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.APIException) and isinstance(response.data, dict) and "detail" in response.data:
        codes = exc.get_codes()
        response.data["code"] = codes if isinstance(codes, str) else exc.default_code
    elif isinstance(exc, exceptions.ValidationError):
        response.data = {"detail": response.data, "code": "invalid"}
    wait = getattr(exc, "wait", None)
    if response.status_code == status.HTTP_429_TOO_MANY_REQUESTS and wait is not None:
        seconds = max(1, math.ceil(wait))
        response["Retry-After"] = str(seconds)
        response.data["retry_after"] = seconds
        resets_at = getattr(exc, "resets_at", None)
        if resets_at is not None:
            response.data["resets_at"] = resets_at.isoformat()
    return response
