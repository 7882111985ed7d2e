"""Error answers: JSON with a stable code on the API, HTML pages elsewhere, never a debug page.

Django calls the ``handler400``/``403``/``404``/``500`` named in ``webapp.urls`` for errors no view
answered itself (an unknown URL, a refused CSRF token, a body over the upload limit, an exception
nobody caught). Under ``/api/`` they answer ``{"detail", "code"}`` like every DRF error
(``webapp.api.exception_handler``); elsewhere a page from ``templates/errors/``. The 500 page is
rendered without the request context, so it does not depend on the database that may have failed.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader

API_PREFIX = "/api/"
"""Paths answered with JSON errors."""

CODES = {
    400: ("bad_request", "The request could not be understood."),
    403: ("forbidden", "You may not do that."),
    404: ("not_found", "Nothing is here."),
    405: ("method_not_allowed", "That method is not allowed here."),
    413: ("too_large", "The request body is too large."),
    429: ("throttled", "Too many requests; slow down."),
    500: ("server_error", "Something went wrong on our side; it has been logged."),
}
"""Stable code and default message per status."""


def is_api(request: HttpRequest) -> bool:
    """Whether ``request`` is for the JSON API (its errors are JSON)."""
    return request.path.startswith(API_PREFIX)


def error_response(
    request: HttpRequest, status: int, detail: str | None = None, code: str | None = None, *, context: bool = True
) -> HttpResponse:
    """Returns the error answer for ``status``: JSON under ``/api/``, an HTML page elsewhere.

    Args:
        request: the request being answered.
        status: the HTTP status.
        detail: the message for people (a default per status otherwise).
        code: the stable machine code (a default per status otherwise).
        context: render the page with the request context (off for 500: it may need the database).
    """
    default_code, default_detail = CODES.get(status, ("error", "The request failed."))
    detail = detail or default_detail
    if is_api(request):
        return JsonResponse({"detail": detail, "code": code or default_code}, status=status)
    template = loader.select_template([f"errors/{status}.html", "errors/error.html"])
    html = template.render(
        {"status": status, "detail": detail, "code": code or default_code}, request if context else None
    )
    return HttpResponse(html, status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler400``: malformed requests, suspicious operations, bodies over the limit."""
    from django.core.exceptions import RequestDataTooBig

    if isinstance(exception, RequestDataTooBig):
        return error_response(request, 413)
    return error_response(request, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler403``."""
    return error_response(request, 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler404``."""
    return error_response(request, 404)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: rendered without the request context (the database may be what failed)."""
    return error_response(request, 500, context=False)
