"""The dataset's API and download page: manifests, files, and a throttle on the downloads.

| path | answers |
| --- | --- |
| ``GET /api/v1/datasets/`` | every written dataset's manifest, with download links (``?game=`` for one game) |
| ``GET /api/v1/datasets/<game>/<month>/`` | one manifest with its links |
| ``GET /api/v1/datasets/<game>/<month>/<table>.<parquet, jsonl or jsonl.gz>`` | the file (``dataset`` rate) |
| ``GET /datasets/`` | the download page |

An unknown game, a malformed month or a month with no dataset is a 404 whose ``detail`` is one
sentence saying which. The files are written by ``workers.dataset`` (``webapp.datasets.export``);
these views only read them.
"""

# DRF declares options as mutable class attributes (permission_classes, throttle_classes).
# ruff: noqa: RUF012

from __future__ import annotations

import gzip
from collections.abc import Iterator
from typing import Any

from django.http import FileResponse, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from webapp.datasets import build, export
from webapp.datasets.export import DatasetError

SUFFIXES = {"parquet": "parquet", "jsonl": "jsonl", "jsonl.gz": "jsonl.gz"}
"""The file forms a download may ask for: Parquet, JSON Lines, and JSON Lines as stored (gzip)."""

CONTENT_TYPES = {
    "parquet": "application/vnd.apache.parquet",
    "jsonl": "application/jsonl",
    "jsonl.gz": "application/gzip",
}


class DatasetNotFound(NotFound):
    """An unknown game, a malformed month, or a month without a dataset."""

    default_code = "no_dataset"


class DatasetThrottle(SimpleRateThrottle):
    """Dataset files are large: the ``dataset`` rate per user or address (``BRAWL_THROTTLE_DATASET``)."""

    scope = "dataset"

    def get_cache_key(self, request: Request, view: object) -> str:
        ident = request.user.pk if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


def manifest_or_404(game: str, month: str) -> dict[str, Any]:
    """Returns the manifest of ``game``'s ``month``.

    Raises:
        DatasetNotFound: the game is unknown, the month malformed, or that month has no dataset.
    """
    try:
        found = export.read_manifest(game, month)
    except DatasetError as exc:
        raise DatasetNotFound(str(exc)) from None
    if found is None:
        written = [m["month"] for m in export.manifests(game)]
        have = f"; months with a dataset: {', '.join(written)}" if written else "; it has no dataset yet"
        raise DatasetNotFound(f"there is no {game} dataset for {month}{have}")
    return found


def with_links(request: HttpRequest, manifest: dict[str, Any]) -> dict[str, Any]:
    """Returns ``manifest`` with a ``downloads`` object: per table, the URL of each file form."""
    game, month = manifest["game"], manifest["month"]
    downloads = {
        table: {
            form: request.build_absolute_uri(
                reverse("dataset-file", kwargs={"game": game, "month": month, "table": table, "form": form})
            )
            for form in SUFFIXES
        }
        for table in build.TABLES
    }
    return {**manifest, "downloads": downloads}


class DatasetListView(APIView):
    """Every dataset written, by game and newest month first."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        operation_id="datasets_list",
        parameters=[OpenApiParameter("game", str, description="Only this game's datasets.")],
        responses={(200, "application/json"): OpenApiTypes.OBJECT},
    )
    def get(self, request: Request) -> Response:
        """Lists the manifests of every game and month, with download links."""
        game = request.query_params.get("game") or None
        try:
            found = export.manifests(game)
        except DatasetError as exc:
            raise DatasetNotFound(str(exc)) from None
        return Response({"results": [with_links(request, m) for m in found]})


class DatasetDetailView(APIView):
    """One game's month: its manifest."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(operation_id="datasets_retrieve", responses={(200, "application/json"): OpenApiTypes.OBJECT})
    def get(self, request: Request, game: str, month: str) -> Response:
        """Returns the manifest (counts, files, sizes, SHA-256) with download links."""
        return Response(with_links(request, manifest_or_404(game, month)))


class DatasetFileView(APIView):
    """One file of a dataset; throttled by the ``dataset`` rate."""

    permission_classes = [permissions.AllowAny]
    throttle_classes = [DatasetThrottle]

    @extend_schema(operation_id="datasets_file", responses={(200, "application/octet-stream"): OpenApiTypes.BINARY})
    def get(
        self, request: Request, game: str, month: str, table: str, form: str
    ) -> HttpResponse | StreamingHttpResponse:
        """Downloads a table as Parquet, as JSON Lines, or as the stored gzip of the JSON Lines."""
        manifest_or_404(game, month)
        if table not in build.TABLES or form not in SUFFIXES:
            raise DatasetNotFound(
                f"there is no file {table[:32]}.{form[:16]}; a dataset has the tables {', '.join(build.TABLES)} "
                f"as {', '.join(SUFFIXES)}"
            )
        base = export.folder(game, month)
        name = f"{game}-{month}-{table}.{form}"
        if form == "jsonl":
            response: HttpResponse | StreamingHttpResponse = StreamingHttpResponse(
                _unzipped(base / f"{table}.jsonl.gz"), content_type=CONTENT_TYPES[form]
            )
            response["Content-Disposition"] = f'attachment; filename="{name}"'
        else:
            stored = base / f"{table}{export.FORMATS['parquet' if form == 'parquet' else 'jsonl']}"
            response = FileResponse(stored.open("rb"), as_attachment=True, filename=name)
            response["Content-Type"] = CONTENT_TYPES[form]
        return response


def _unzipped(path: Any) -> Iterator[bytes]:
    with gzip.open(path, "rb") as f:
        yield from iter(lambda: f.read(1 << 16), b"")


def datasets_page(request: HttpRequest) -> HttpResponse:
    """The download page: every game's months, their counts and the links to each file."""
    rows = [with_links(request, m) for m in export.manifests()]
    return render(request, "datasets/index.html", {"datasets": rows, "tables": build.TABLES})
