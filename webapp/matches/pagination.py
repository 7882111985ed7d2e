"""Keyset (cursor) pagination of match lists, for the matches API and the match-list pages.

A page of matches is "the ``size`` matches with the highest ids below (or above) an id", read
straight off the primary-key index: its cost does not grow with the page's depth, there is no
``COUNT`` of the whole list, and a match that arrives while someone pages never shifts the pages
(it has a higher id than every match already listed, so it can only show up on the first page, or
on a ``previous`` page). Page-number pagination recounted the list on every request and moved every
row down one place per new match, so a reader paging through while matches finished saw rows twice.

The order is newest first by id, the order matches were created in. A cursor is opaque to
clients: ``b<id>`` (older than ``id``) or ``a<id>`` (newer than ``id``) in URL-safe base64.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db.models import Model, QuerySet
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from webapp.api import MAX_ID, BadParameter, Pagination, bounded_int

CURSOR_PARAM = "cursor"
"""Query parameter carrying the cursor."""
PAGE_SIZE = 50
"""Matches per API page unless ``page_size`` says otherwise."""
MAX_PAGE_SIZE = 200
"""Most matches per API page."""

M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class Cursor:
    """A position in an id-ordered list: the rows older (``before``) or newer than ``id``."""

    before: bool
    """True: the rows with lower ids than ``id`` (the next page); false: with higher ids (the previous page)."""
    id: int
    """The id the page starts after, not included."""

    def encode(self) -> str:
        """Returns the opaque string form."""
        raw = f"{'b' if self.before else 'a'}{self.id}".encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str | None) -> Cursor | None:
        """Parses the opaque form; ``None`` for an absent or empty cursor (the first page).

        Raises:
            BadParameter: not a cursor this server issued (a 400 with code ``bad_parameter``).
        """
        if not text:
            return None
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("ascii")
            kind, number = raw[:1], int(raw[1:])
        except (binascii.Error, UnicodeDecodeError, ValueError):
            raise BadParameter(f"cursor {text[:40]!r} is not a cursor from a next or previous link") from None
        if kind not in ("a", "b") or not 0 <= number <= MAX_ID or not raw[1:].isdigit():
            raise BadParameter(f"cursor {text[:40]!r} is not a cursor from a next or previous link")
        return cls(before=kind == "b", id=number)


@dataclass
class KeysetPage(Generic[M]):
    """One page of rows, newest first, with the cursors of its neighbours (``None`` at either end)."""

    object_list: list[M]
    """The rows, highest id first."""
    next_cursor: Cursor | None
    """Where the older rows start; ``None`` on the last page."""
    previous_cursor: Cursor | None
    """Where the newer rows start; ``None`` on the first page."""

    @property
    def has_next(self) -> bool:
        return self.next_cursor is not None

    @property
    def has_previous(self) -> bool:
        return self.previous_cursor is not None

    @property
    def has_other_pages(self) -> bool:
        return self.has_next or self.has_previous


def row_id(row: Any) -> int:
    """The id of a model instance or of a ``.values()`` row."""
    return int(row["id"] if isinstance(row, dict) else row.pk)


def keyset_page(qs: QuerySet[Any], cursor: Cursor | None, size: int) -> KeysetPage[Any]:
    """Returns the page of ``qs`` (any filters; its ordering is replaced by id) at ``cursor``, in one query.

    ``qs`` may be of models or of ``.values()`` rows (which then include ``id``). One row more than
    the page is read to learn whether another page follows; the first page has no previous page,
    and a page reached by a cursor has one in the direction it came from.
    """
    if cursor is None or cursor.before:
        older = qs.order_by("-pk") if cursor is None else qs.filter(pk__lt=cursor.id).order_by("-pk")
        rows = list(older[: size + 1])
        more = len(rows) > size
        rows = rows[:size]
        next_cursor = Cursor(before=True, id=row_id(rows[-1])) if more else None
        previous_cursor = Cursor(before=False, id=row_id(rows[0])) if cursor is not None and rows else None
        return KeysetPage(rows, next_cursor, previous_cursor)
    newer = list(qs.filter(pk__gt=cursor.id).order_by("pk")[: size + 1])
    more = len(newer) > size
    rows = newer[:size][::-1]
    previous_cursor = Cursor(before=False, id=row_id(rows[0])) if more else None
    next_cursor = Cursor(before=True, id=row_id(rows[-1]) if rows else cursor.id + 1)
    return KeysetPage(rows, next_cursor, previous_cursor)


class MatchCursorPagination(BasePagination):
    """The matches API's pagination: keyset by default, page numbers when ``?page=`` is given.

    Keyset answers ``{"next", "previous", "results"}`` (links carry ``cursor``); ``?page=N`` keeps
    the older page-number form (``{"count", "next", "previous", "results"}``) for clients written
    against it, at the cost of a count of the whole list per request.
    """

    def __init__(self) -> None:
        self.page: KeysetPage[Any] | None = None
        self.legacy: Pagination | None = None
        self.request: Request | None = None

    # A queryset only (the base class also takes a list): the pages are keyset queries over it.
    def paginate_queryset(  # type: ignore[override]
        self, queryset: QuerySet[Any], request: Request, view: object = None
    ) -> list[Any] | None:
        self.request = request
        if request.query_params.get("page"):
            self.legacy = Pagination()
            return self.legacy.paginate_queryset(queryset.order_by("-pk"), request, view)  # type: ignore[arg-type]
        size = bounded_int(request.query_params.get("page_size"), "page_size", default=PAGE_SIZE, low=1)
        self.page = keyset_page(
            queryset, Cursor.decode(request.query_params.get(CURSOR_PARAM)), min(size, MAX_PAGE_SIZE)
        )
        return self.page.object_list

    def _link(self, cursor: Cursor | None) -> str | None:
        if cursor is None or self.request is None:
            return None
        url = remove_query_param(self.request.build_absolute_uri(), "page")
        return replace_query_param(url, CURSOR_PARAM, cursor.encode())

    def get_paginated_response(self, data: Any) -> Response:
        if self.legacy is not None:
            return self.legacy.get_paginated_response(data)
        assert self.page is not None
        return Response(
            {
                "next": self._link(self.page.next_cursor),
                "previous": self._link(self.page.previous_cursor),
                "results": data,
            }
        )

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        link = {"type": "string", "nullable": True, "format": "uri"}
        return {
            "type": "object",
            "required": ["results"],
            "properties": {
                "count": {"type": "integer", "description": "Only in the page-number form (``?page=``)."},
                "next": {**link, "description": "The older matches (``cursor`` link); null on the last page."},
                "previous": {**link, "description": "The newer matches; null on the first page."},
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view: object) -> list[dict[str, Any]]:
        return [
            {
                "name": CURSOR_PARAM,
                "required": False,
                "in": "query",
                "description": "Opaque position from a ``next`` or ``previous`` link; absent for the newest matches.",
                "schema": {"type": "string"},
            },
            {
                "name": "page_size",
                "required": False,
                "in": "query",
                "description": f"Matches per page, 1 to {MAX_PAGE_SIZE} (default {PAGE_SIZE}).",
                "schema": {"type": "integer"},
            },
            {
                "name": "page",
                "required": False,
                "in": "query",
                "description": "Page number: selects the older page-number form, which also counts the list.",
                "schema": {"type": "integer"},
            },
        ]


def page_cursor(text: str | None) -> Cursor | None:
    """The cursor of a page's ``?cursor=``; an unreadable one shows the first page (pages do not answer 400s)."""
    try:
        return Cursor.decode(text)
    except BadParameter:
        return None


def lazy_keyset_page(qs: QuerySet[Any], cursor: Cursor | None, size: int) -> tuple[KeysetPage[Any], str]:
    """A keyset page whose rows are read only when iterated, and a key naming what they show.

    The page's ids and statuses come first, from one narrow query; ``object_list`` is then a lazy
    queryset of those matches (with whatever ``qs`` prefetches), so a template fragment cached under
    the key skips it entirely. A listed match's row shows nothing that changes without a change of
    status (seats, ranks and outcome are set when it ends), so ids and statuses name the rows.
    """
    head = keyset_page(qs.prefetch_related(None).values("id", "status"), cursor, size)
    ids = [r["id"] for r in head.object_list]
    key = hashlib.sha256(repr([(r["id"], r["status"]) for r in head.object_list]).encode()).hexdigest()[:32]
    rows = qs.filter(pk__in=ids).order_by("-pk") if ids else qs.none()
    return KeysetPage(rows, head.next_cursor, head.previous_cursor), key  # type: ignore[arg-type]
