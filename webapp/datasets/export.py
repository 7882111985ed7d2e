"""The dataset files of one game and month: which matches go in, and writing them under ``BRAWL_VAR_DIR``.

A month's dataset holds every finished public match of the game that finished in that UTC month:
finished (not failed or cancelled), visible to an anonymous visitor (not a game of an unpublished
tournament, ``webapp.matches.views.visible_matches``) and with its secrets revealed (it and every
match sharing its seed are over, ``Match.secrets_revealed``). A mirrored twin that ends later
brings its pair in then; the sweep (:func:`stale_months`) sees the set of matches change and the
month is written again.

Files, in ``<BRAWL_VAR_DIR>/datasets/<game>/<YYYY-MM>/``: ``decisions.parquet``,
``decisions.jsonl.gz``, ``hidden.parquet``, ``hidden.jsonl.gz`` and ``manifest.json`` (counts,
sizes, SHA-256 of each file), each written to a temporary name and renamed, the manifest last.
The rows come from :mod:`webapp.datasets.build`. This module is not the web answers (``views``)
nor the Celery task (``workers.dataset``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import re
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db.models import QuerySet
from django.utils import timezone

from referee.core.errors import EngineError
from referee.core.registry import game_names, get_game
from referee.core.replay import Replay, ReplayError
from webapp.datasets import build
from webapp.matches.models import Match, MatchStatus

log = logging.getLogger("webapp.datasets")

MONTH = re.compile(r"(\d{4})-(0[1-9]|1[0-2])")
"""A month as the dataset names it: ``YYYY-MM``."""

FORMATS = {"parquet": ".parquet", "jsonl": ".jsonl.gz"}
"""The stored file of each format (JSON Lines are stored gzip-compressed)."""

SOURCE_CHUNK = 50
"""Matches read from the database at once."""

ROW_GROUP = 4096
"""Rows buffered before a Parquet row group is written (a month never sits in memory whole)."""


class DatasetError(ValueError):
    """A game or month the datasets do not have; the message is one sentence saying why."""


def check_game(game: str) -> str:
    """Returns ``game`` if the service knows it.

    Raises:
        DatasetError: no game of that name.
    """
    names = game_names()
    if game not in names:
        raise DatasetError(f"there is no game named {game[:64]!r}; datasets exist for: {', '.join(sorted(names))}")
    return game


def month_bounds(month: str) -> tuple[datetime, datetime]:
    """Returns the first instant of ``month`` and of the month after, in UTC.

    Raises:
        DatasetError: ``month`` is not ``YYYY-MM``.
    """
    found = MONTH.fullmatch(month)
    if found is None:
        raise DatasetError(f"{month[:32]!r} is not a month; write it as YYYY-MM, for example 2026-01")
    year, number = int(found[1]), int(found[2])
    start = datetime(year, number, 1, tzinfo=UTC)
    end = datetime(year + number // 12, number % 12 + 1, 1, tzinfo=UTC)
    return start, end


def month_of(when: datetime) -> str:
    """Returns the UTC month (``YYYY-MM``) of an instant."""
    return when.astimezone(UTC).strftime("%Y-%m")


def root() -> Path:
    """Returns the folder holding every dataset: ``<BRAWL_VAR_DIR>/datasets``."""
    return Path(settings.VAR_DIR) / "datasets"


def folder(game: str, month: str) -> Path:
    """Returns the folder of one game's month (checked names only: no path is built from raw input)."""
    month_bounds(month)
    return root() / check_game(game) / month


def public_finished(game: str) -> QuerySet[Match]:
    """The finished matches of ``game`` an anonymous visitor may see, with their secrets revealed."""
    shown = _visible(AnonymousUser()).filter(secrets_open=True)  # type: ignore[misc]  # with_secrets_state's annotation
    return shown.filter(game=game, status=MatchStatus.FINISHED, finished_at__isnull=False).exclude(
        replay_gz__isnull=True, replay_path=""
    )


def _visible(user: AnonymousUser) -> QuerySet[Match]:
    # The one visibility rule of the match pages and the API (its queryset annotates ``secrets_open``).
    from webapp.matches.views import visible_matches

    return visible_matches(user)


def month_matches(game: str, month: str) -> QuerySet[Match]:
    """The matches of ``game``'s dataset for ``month``, in the order they finished."""
    start, end = month_bounds(month)
    return (
        public_finished(check_game(game))
        .filter(finished_at__gte=start, finished_at__lt=end)
        .order_by("finished_at", "id")
    )


def ids_digest(ids: list[int]) -> str:
    """SHA-256 of the sorted match ids: the manifest's record of which matches a dataset holds."""
    return hashlib.sha256(",".join(str(i) for i in sorted(ids)).encode()).hexdigest()


def _sources(ids: list[int], skipped: list[dict[str, Any]]) -> Iterator[build.MatchSource]:
    # Plain rows, read in chunks: the listing queryset shadows ``Match.replay_stored`` with a flag.
    for at in range(0, len(ids), SOURCE_CHUNK):
        chunk = ids[at : at + SOURCE_CHUNK]
        rows = {m.pk: m for m in Match.objects.filter(pk__in=chunk).prefetch_related("seats__bot_version")}
        for pk in chunk:
            m = rows.get(pk)
            stored = m.replay_stored() if m is not None else None
            if m is None or stored is None or m.finished_at is None:
                continue
            try:
                replay = Replay.decode(stored)
            except ReplayError as exc:
                skipped.append({"match_id": pk, "reason": str(exc)})
                continue
            seats = sorted(m.seats.all(), key=lambda s: s.seat)
            yield build.MatchSource(
                match_id=pk,
                finished_at=m.finished_at,
                replay=replay,
                bot_ids=[s.bot_version.bot_id for s in seats],
                version_ids=[s.bot_version_id for s in seats],
            )


class _TableWriter:
    """One table's Parquet and JSON Lines files, written as rows arrive."""

    def __init__(self, folder: Path, table: str) -> None:
        self.table = table
        # A name of its own per writer: two exports of one month at once never share a file.
        tag = uuid.uuid4().hex[:12]
        self.paths = {fmt: folder / f".{table}{suffix}.{tag}.tmp" for fmt, suffix in FORMATS.items()}
        self.parquet = pq.ParquetWriter(self.paths["parquet"], build.SCHEMAS[table], compression="zstd")
        self._raw = open(self.paths["jsonl"], "wb")  # noqa: SIM115  (closed in close())
        self.jsonl = gzip.GzipFile(fileobj=self._raw, mode="wb", mtime=0)
        self.buffer: list[dict[str, Any]] = []
        self.rows = 0

    def add(self, rows: list[dict[str, Any]]) -> None:
        for line in build.jsonl_lines(self.table, rows):
            self.jsonl.write(line)
        self.buffer.extend(rows)
        self.rows += len(rows)
        if len(self.buffer) >= ROW_GROUP:
            self.flush()

    def flush(self) -> None:
        if self.buffer:
            self.parquet.write_table(build.to_table(self.table, self.buffer))
            self.buffer = []

    def close(self) -> None:
        self.flush()
        self.parquet.close()
        self.jsonl.close()
        self._raw.close()

    def discard(self) -> None:
        for closer in (self.parquet.close, self.jsonl.close, self._raw.close):
            try:
                closer()
            except Exception:
                log.debug("closing a discarded dataset file failed", exc_info=True)
        for path in self.paths.values():
            path.unlink(missing_ok=True)


def sha256_file(path: Path) -> str:
    """Returns the SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_dataset(game: str, month: str) -> dict[str, Any]:
    """Writes ``game``'s dataset for ``month`` and returns its manifest (also written as ``manifest.json``).

    Safe to run twice: the same matches give the same rows. A month without matches gets empty
    tables and a manifest saying so. A match whose replay does not re-play is left out and named
    in the manifest's ``skipped``.

    Raises:
        DatasetError: an unknown game or a malformed month.
    """
    ids = list(month_matches(game, month).values_list("id", flat=True))
    target = folder(game, month)
    target.mkdir(parents=True, exist_ok=True)
    engine = get_game(game)
    skipped: list[dict[str, Any]] = []
    done: list[int] = []
    rules: set[str] = set()
    writers = {table: _TableWriter(target, table) for table in build.TABLES}
    try:
        for source in _sources(ids, skipped):
            try:
                decisions, hidden = build.match_rows(source, engine)
            except (EngineError, ValueError) as exc:
                skipped.append({"match_id": source.match_id, "reason": str(exc)})
                log.warning("dataset %s %s: match %s left out: %s", game, month, source.match_id, exc)
                continue
            writers["decisions"].add(decisions)
            writers["hidden"].add(hidden)
            done.append(source.match_id)
            rules.add(source.replay.rules_version)
        for w in writers.values():
            w.close()
    except BaseException:
        for w in writers.values():
            w.discard()
        raise
    files: dict[str, dict[str, Any]] = {}
    for table, w in writers.items():
        for fmt, suffix in FORMATS.items():
            name = f"{table}{suffix}"
            final = target / name
            os.replace(w.paths[fmt], final)
            files[name] = {"table": table, "format": fmt, "rows": w.rows, "bytes": final.stat().st_size}
            files[name]["sha256"] = sha256_file(final)
    manifest: dict[str, Any] = {
        "format": build.FORMAT,
        "version": build.VERSION,
        "game": game,
        "month": month,
        "built_at": timezone.now().astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "rules_versions": sorted(rules),
        "matches": len(done),
        "matches_digest": ids_digest(ids),
        "decisions": writers["decisions"].rows,
        "hidden": writers["hidden"].rows,
        "skipped": skipped,
        "files": files,
    }
    tmp = target / f".manifest.json.{uuid.uuid4().hex[:12]}.tmp"
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, target / "manifest.json")
    log.info("dataset %s %s: %d matches, %d decisions", game, month, len(done), manifest["decisions"])
    return manifest


def read_manifest(game: str, month: str) -> dict[str, Any] | None:
    """Returns the manifest of ``game``'s ``month``, or ``None`` when that dataset was never written.

    Raises:
        DatasetError: an unknown game or a malformed month.
    """
    path = folder(game, month) / "manifest.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    return data


def manifests(game: str | None = None) -> list[dict[str, Any]]:
    """Returns every written manifest (of ``game`` only when given), by game then newest month first.

    Raises:
        DatasetError: ``game`` is not a known game.
    """
    games = [check_game(game)] if game else sorted(game_names())
    out: list[dict[str, Any]] = []
    for name in games:
        base = root() / name
        if not base.is_dir():
            continue
        for month in sorted((p.name for p in base.iterdir() if MONTH.fullmatch(p.name)), reverse=True):
            found = read_manifest(name, month)
            if found is not None:
                out.append(found)
    return out


def months_with_matches(game: str) -> list[str]:
    """Returns the months in which public finished matches of ``game`` ended, oldest first."""
    months = {month_of(t) for t in public_finished(check_game(game)).values_list("finished_at", flat=True) if t}
    return sorted(months)


def stale_months(game: str) -> list[str]:
    """Returns the months of ``game`` whose dataset is missing or holds another set of matches than now."""
    out = []
    for month in months_with_matches(game):
        ids = list(month_matches(game, month).values_list("id", flat=True))
        found = read_manifest(game, month)
        if found is None or found.get("matches_digest") != ids_digest(ids) or found.get("version") != build.VERSION:
            out.append(month)
    return out
