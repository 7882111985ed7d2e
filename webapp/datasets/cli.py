"""``brawl dataset``: list, fetch and read the learning dataset, or write it from the local database.

- ``brawl dataset list [--game G]``: the site's datasets (game, month, matches, decisions).
- ``brawl dataset fetch GAME MONTH [--table T] [--format F] [--out PATH]``: downloads a file and
  checks its SHA-256 against the manifest.
- ``brawl dataset read FILE [--limit N] [--match ID]``: prints a Parquet or JSON Lines file's rows
  as JSON, nested columns parsed.
- ``brawl dataset export [--game G] [--month M]``: writes the files from ``DATABASE_URL`` (what the
  workers' task does).

``list`` and ``fetch`` talk to the site at ``--api`` (``BRAWL_API``, ``http://127.0.0.1:8000``). This
module parses arguments and prints; the rows are ``webapp.datasets.build``'s, the files ``export``'s.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from common.settings import env

STORED = {"parquet": "parquet", "jsonl": "jsonl.gz"}
"""What ``fetch`` downloads for each ``--format``: the stored file, so its SHA-256 can be checked."""


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl dataset``."""
    ds = subparsers.add_parser("dataset", help="fetch and read the learning dataset (one row per decision)")
    sub = ds.add_subparsers(dest="dataset_command", metavar="ACTION", required=True)
    api = env("BRAWL_API", str, "http://127.0.0.1:8000")
    ls = sub.add_parser("list", help="the site's datasets by game and month")
    ls.add_argument("--game", help="only this game")
    ls.add_argument("--api", default=api, help="the web site's URL")
    ls.set_defaults(func=cmd_list)
    fetch = sub.add_parser("fetch", help="download one table of a game's month and check it against the manifest")
    fetch.add_argument("game")
    fetch.add_argument("month", help="YYYY-MM (UTC)")
    fetch.add_argument("--table", choices=["decisions", "hidden"], default="decisions")
    fetch.add_argument("--format", choices=sorted(STORED), default="parquet", dest="form")
    fetch.add_argument("--out", type=Path, help="file to write (default GAME-MONTH-TABLE.parquet or .jsonl.gz)")
    fetch.add_argument("--api", default=api, help="the web site's URL")
    fetch.set_defaults(func=cmd_fetch)
    read = sub.add_parser("read", help="print a dataset file's rows as JSON lines, nested columns parsed")
    read.add_argument("file", type=Path)
    read.add_argument("--limit", type=int, default=10, help="rows to print (0: none, only the summary; -1: all)")
    read.add_argument("--match", type=int, help="only this match's rows")
    read.set_defaults(func=cmd_read)
    ex = sub.add_parser("export", help="write the dataset files from the database (DATABASE_URL)")
    ex.add_argument("--game", help="one game (default: every game)")
    ex.add_argument("--month", help="one month, YYYY-MM (default: every month with finished public matches)")
    ex.set_defaults(func=cmd_export)


def _get(url: str) -> bytes:
    """Returns the body of a GET, or raises SystemExit with the site's one-sentence reason."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url), timeout=120) as response:
            body: bytes = response.read()
            return body
    except urllib.error.HTTPError as exc:
        try:
            detail = json.loads(exc.read()).get("detail", "")
        except ValueError:
            detail = ""
        raise SystemExit(f"error: {url}: {exc.code} {detail or exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise SystemExit(f"error: cannot reach {url}: {getattr(exc, 'reason', exc)}") from None


def _api(base: str, path: str) -> str:
    return base.rstrip("/") + "/api/v1/datasets/" + path


def cmd_list(args: argparse.Namespace) -> int:
    """Prints one line per dataset."""
    query = f"?{urllib.parse.urlencode({'game': args.game})}" if args.game else ""
    data = json.loads(_get(_api(args.api, query)))
    rows = data.get("results", [])
    for m in rows:
        print(f"{m['game']} {m['month']}: {m['matches']} matches, {m['decisions']} decisions (built {m['built_at']})")
    if not rows:
        print("no dataset has been written yet")
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    """Downloads a table and checks it against the manifest's SHA-256."""
    quoted = f"{urllib.parse.quote(args.game)}/{urllib.parse.quote(args.month)}/"
    manifest = json.loads(_get(_api(args.api, quoted)))
    suffix = STORED[args.form]
    body = _get(_api(args.api, f"{quoted}{args.table}.{suffix}"))
    expected = manifest["files"][f"{args.table}.{suffix}"]["sha256"]
    if hashlib.sha256(body).hexdigest() != expected:
        print(
            "error: the file's SHA-256 differs from the manifest's (it was rewritten meanwhile?); try again",
            file=sys.stderr,
        )
        return 1
    out: Path = args.out or Path(f"{args.game}-{args.month}-{args.table}.{suffix}")
    out.write_bytes(body)
    rows = manifest["files"][f"{args.table}.{suffix}"]["rows"]
    print(f"{out}: {rows} rows of {manifest['matches']} matches, SHA-256 checked")
    return 0


def read_rows(path: Path) -> Iterator[dict[str, Any]]:
    """Yields a dataset file's rows with their nested columns parsed: Parquet, JSON Lines or gzipped JSON Lines.

    Raises:
        ValueError: the file is neither, or names no table this reader knows.
    """
    from webapp.datasets import build

    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(path)
        names = set(parquet.schema_arrow.names)
        table = next((t for t, schema in build.SCHEMAS.items() if set(schema.names) == names), None)
        if table is None:
            raise ValueError(f"{path} is not a table of the dataset (columns {sorted(names)[:6]}...)")
        for batch in parquet.iter_batches():
            for row in batch.to_pylist():
                yield build.decode_row(table, row)
        return
    opener: Any = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{path}: line {number} is not JSON: {exc}") from None
            if not isinstance(row, dict):
                raise ValueError(f"{path}: line {number} is not a JSON object")
            yield row


def cmd_read(args: argparse.Namespace) -> int:
    """Prints rows as JSON lines, then a summary on standard error."""
    count, matches = 0, set()
    try:
        for row in read_rows(args.file):
            if args.match is not None and row.get("match_id") != args.match:
                continue
            if args.limit < 0 or count < args.limit:
                print(json.dumps(row, sort_keys=True, default=str))
            count += 1
            matches.add(row.get("match_id"))
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{args.file}: {count} rows of {len(matches)} matches", file=sys.stderr)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Writes the chosen months' files; prints one line per month."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    import django

    django.setup()
    from referee.core.registry import game_names
    from webapp.datasets.export import DatasetError, check_game, months_with_matches, write_dataset

    try:
        games = [check_game(args.game)] if args.game else sorted(game_names())
        for game in games:
            for month in [args.month] if args.month else months_with_matches(game):
                m = write_dataset(game, month)
                print(
                    f"{game} {month}: {m['matches']} matches, {m['decisions']} decisions, {len(m['skipped'])} left out"
                )
    except DatasetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
