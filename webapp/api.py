"""API plumbing shared by every app: pagination, domain refusals and the error body format.

Every error body is ``{"detail": ..., "code": ...}``; a throttled or limited request adds
``retry_after`` (seconds, an integer) and the ``Retry-After`` header, so a client can wait
exactly as long as needed. This module holds no domain logic.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions, pagination, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

MAX_ID = 2**63 - 1
"""The largest id any table holds (a signed 64-bit column); larger numbers are refused, not sent to the database."""


class Pagination(pagination.PageNumberPagination):
    """Page-number pagination; ``?page_size=`` up to 200."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class BadParameter(exceptions.ValidationError):
    """A query parameter is not a number in its range."""

    default_code = "bad_parameter"

    def __init__(self, detail: str) -> None:
        super().__init__({"detail": detail}, code="bad_parameter")


def bounded_int(raw: str | None, name: str, *, default: Any, low: int = 0, high: int = MAX_ID) -> Any:
    """Parses an integer query parameter within ``low..high``; ``default`` when absent or empty.

    Raises:
        BadParameter: not an integer, or outside the range (a 400 with code ``bad_parameter``).
    """
    if raw is None or raw == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise BadParameter(f"{name} must be an integer, got {raw[:40]!r}") from None
    if not low <= value <= high:
        raise BadParameter(f"{name} must be between {low} and {high}, got {raw[:40]}")
    return value


def query_id(raw: str | None, name: str) -> int | None:
    """Parses an id query parameter (``1..MAX_ID``); ``None`` when absent or empty.

    Raises:
        BadParameter: not an id.
    """
    return bounded_int(raw, name, default=None, low=1)  # type: ignore[no-any-return]


class DomainError(exceptions.APIException):
    """A request the domain refuses (a state transition that is not allowed, for example)."""

    status_code: int = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state."
    default_code = "conflict"


class InvalidInput(DomainError):
    """A value outside what the service accepts (too long, out of bounds); nothing was written."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid_input"


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
    # DRF turns these into NotFound/PermissionDenied inside its handler; convert first so they get a code too.
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.APIException) and isinstance(response.data, dict) and "detail" in response.data:
        codes = exc.get_codes()
        if isinstance(codes, dict):  # a ValidationError raised as {"detail": ...}: its code sits under "detail"
            detail_codes = codes.get("detail")
            codes = detail_codes[0] if isinstance(detail_codes, list) and detail_codes else detail_codes
        response.data["code"] = codes if isinstance(codes, str) else exc.default_code
        if isinstance(response.data["detail"], list) and len(response.data["detail"]) == 1:
            response.data["detail"] = response.data["detail"][0]
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
