"""Middleware: the client's address behind trusted proxies, bad-request guards, frames compression.

Frames of a long ScrumBrawl match are several megabytes of repetitive JSON that gzip shrinks about
tenfold. Only that path is compressed: pages carry CSRF tokens and some API answers carry a fresh
bot token, and compressing secrets next to attacker-chosen text invites BREACH-style attacks.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Sequence

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from rest_framework.exceptions import APIException

from webapp.errors import error_response, is_api

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

FRAMES_PATH = re.compile(r"^/api/v1/matches/\d+/frames/$")
"""Paths whose answers are compressed."""


class FramesGZipMiddleware(GZipMiddleware):
    """Gzips the answers of the frames endpoint when the client accepts gzip."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if not FRAMES_PATH.match(request.path):
            return response
        return super().process_response(request, response)


def client_address(peer: str, forwarded_for: str, trusted: Sequence[IPNetwork]) -> str:
    """Returns the address a request came from, believing ``X-Forwarded-For`` only as far as the proxies are trusted.

    Each proxy appends the address it received the request from, so the header is read from the
    right: while the hop is a trusted proxy, step left; the first untrusted hop is the client. A
    client can prepend anything it likes, but never past a trusted proxy, so with no trusted
    proxies (the default) the header is ignored and the peer address is the client.

    Args:
        peer: ``REMOTE_ADDR``, the address of the connection.
        forwarded_for: the ``X-Forwarded-For`` header ("" when absent).
        trusted: networks of the proxies in front of the site (``BRAWL_TRUSTED_PROXIES``).

    Returns:
        The client's address; the right-most trusted hop when a hop is not an address at all.
    """
    current = peer
    hops = [h.strip() for h in forwarded_for.split(",")] if forwarded_for else []
    while _trusted(current, trusted) and hops:
        hop = hops.pop()
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return current  # garbage a client wrote: the proxy that received it is all we know
        current = hop
    return current


def _trusted(address: str, trusted: Sequence[IPNetwork]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in trusted)


class ClientAddressMiddleware:
    """Sets ``REMOTE_ADDR`` to the client's address (see :func:`client_address`); the peer stays in ``BRAWL_PEER``.

    Everything that keys on the client (DRF throttles, login lockouts, the ``/metrics`` allow list)
    reads ``REMOTE_ADDR`` after this, and DRF's ``NUM_PROXIES`` is 0, so no code reads the
    forwarded header on its own.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.trusted = parse_networks(getattr(settings, "BRAWL_TRUSTED_PROXIES", ""))

    def __call__(self, request: HttpRequest) -> HttpResponse:
        peer = request.META.get("REMOTE_ADDR", "")
        request.META["BRAWL_PEER"] = peer
        request.META["REMOTE_ADDR"] = client_address(peer, request.META.get("HTTP_X_FORWARDED_FOR", ""), self.trusted)
        return self.get_response(request)


def parse_networks(raw: str) -> list[IPNetwork]:
    """Parses comma-separated addresses and networks.

    Raises:
        ValueError: an entry is not an address or network.
    """
    return [ipaddress.ip_network(part.strip(), strict=False) for part in raw.split(",") if part.strip()]


class ApiGuardMiddleware:
    """Keeps bad requests from becoming 500s or HTML errors.

    * An API request whose ``Content-Length`` is over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` gets a JSON
      413 before any view reads it (a body without a length that turns out too large gets the same
      from ``handler400``).
    * A query parameter holding a NUL character (``%00``) gets a 400 ``bad_parameter``: the
      database cannot compare text with NUL, so it would otherwise be a 500 wherever it is a filter.
    * A DRF exception raised by a page view (a bad filter, a refused action) gets its status as an
      HTML page, as it would on the API as JSON.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # PostgreSQL cannot store or compare text with NUL: a filter value holding one would be a 500.
        if "\x00" in request.META.get("QUERY_STRING", "") or any(
            "\x00" in key or any("\x00" in v for v in values) for key, values in request.GET.lists()
        ):
            return error_response(request, 400, "query parameters may not contain NUL characters", "bad_parameter")
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if is_api(request) and limit is not None:
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                return error_response(request, 400, "Content-Length is not a number")
            if length > limit:
                return error_response(request, 413, f"the request body is over the limit of {limit} bytes")
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, RequestDataTooBig):
            return error_response(request, 413)
        if isinstance(exception, APIException) and not is_api(request):
            detail = exception.detail
            if isinstance(detail, dict):
                detail = detail.get("detail", detail)
            codes = exception.get_codes()
            code = codes if isinstance(codes, str) else exception.default_code
            return error_response(request, exception.status_code, str(detail), str(code))
        return None
