"""The learning dataset over recorded matches: rows, files, selection, API, page, throttle and ``brawl dataset``.

The matches are real plays of the test-only ``tinygame`` recorded through ``matches.services``
(``tests/webapp/conftest.py``); the files are written by ``webapp.datasets.export`` into the test's
own var folder and read back with pyarrow. The real games, played through a real referee, are in
``test_dataset_referee.py``.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from referee.core.chance import SeededChance
from referee.core.contract import EVERYONE
from referee.core.ids import Seat
from referee.core.replay import Replay, initial_match, steps
from service import cli as brawl_cli
from tests.webapp.conftest import GAME
from webapp.bots.models import Bot
from webapp.datasets import build, export
from webapp.datasets.cli import read_rows
from webapp.matches import services as match_services
from webapp.matches.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def var_dir(settings: Any, tmp_path: Path) -> Path:
    """Each test writes its datasets in a folder of its own."""
    settings.VAR_DIR = tmp_path
    return tmp_path


@pytest.fixture
def ladder(make_bot: Callable[..., Bot], author: User, other: User, finish: Callable[..., Match]) -> list[Match]:
    """Four finished matches of a small ladder, played for real."""
    a, b, c = make_bot(author, "alpha"), make_bot(other, "beta"), make_bot(other, "gamma")
    pairs = [(a, b), (b, c), (c, a), (a, c)]
    out = []
    for i, (x, y) in enumerate(pairs):
        m = match_services.do_queue_match(GAME, [x.latest_version, y.latest_version], rated=True, seed=100 + i)
        out.append(finish(m, seed_policy=i + 1))
    return out


def month(m: Match) -> str:
    assert m.finished_at is not None
    return export.month_of(m.finished_at)


def test_rows_read_back_with_pyarrow_and_match_the_replays_decision_for_decision(ladder: list[Match]) -> None:
    manifest = export.write_dataset(GAME, month(ladder[0]))
    folder = export.folder(GAME, month(ladder[0]))
    table = pq.read_table(folder / "decisions.parquet")
    assert table.schema.names == build.DECISIONS_SCHEMA.names
    assert table.cast(build.DECISIONS_SCHEMA).equals(
        pq.read_table(folder / "decisions.parquet").cast(build.DECISIONS_SCHEMA)
    )
    assert all(
        f.type == table.schema.field(f.name).type and f.nullable == table.schema.field(f.name).nullable
        for f in build.DECISIONS_SCHEMA
        if not str(f.type).startswith("list")
    )
    rows = [build.decode_row("decisions", r) for r in table.to_pylist()]
    replays = {
        m.pk: Replay.decode(m.replay_stored() or b"") for m in Match.objects.filter(pk__in=[m.pk for m in ladder])
    }
    assert manifest["matches"] == 4 and manifest["decisions"] == sum(len(r.decisions) for r in replays.values()) > 0
    assert [r["match_id"] for r in rows] == sorted(
        (r["match_id"] for r in rows), key=lambda pk: [m.pk for m in ladder].index(pk)
    )
    by_match: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_match.setdefault(row["match_id"], []).append(row)
    for pk, replay in replays.items():
        got = by_match[pk]
        assert [r["decision"] for r in got] == list(range(len(replay.decisions)))
        for seat in range(len(replay.seats)):  # each seat's own count, as its requests carried it
            assert [r["seat_decision"] for r in got if r["seat"] == seat] == list(
                range(sum(d.seat == seat for d in replay.decisions))
            )
        # An independent walk of the replay: every row holds the decision and the seat's view before it.
        for step in steps(replay):
            if step.index >= len(replay.decisions):
                break
            row, record = got[step.index], replay.decisions[step.index]
            seat = record.seat
            assert (row["seat"], row["choice"], row["source"], row["think_ms"], row["note"]) == (
                seat,
                record.option_id,
                record.source,
                record.think_ms,
                record.note,
            )
            assert row["observation"] == step.match.observe(seat)  # tinygame travels as JSON: equal as it is
            assert row["option_ids"] == [o.id for o in step.match.legal_options()]
            assert row["options"][row["choice_index"]]["id"] == record.option_id
            assert row["ranks"] == list(replay.outcome.ranks) and row["rank"] == replay.outcome.ranks[seat]
        assert all(r["bot"] == replay.seats[r["seat"]] for r in got)
    # JSON Lines hold the same rows, nested columns as values.
    with gzip.open(folder / "decisions.jsonl.gz", "rt") as f:
        lines = [json.loads(line) for line in f]
    assert [(r["match_id"], r["decision"], r["observation"], r["options"]) for r in lines] == [
        (r["match_id"], r["decision"], r["observation"], r["options"]) for r in rows
    ]
    for name, entry in manifest["files"].items():
        assert export.sha256_file(folder / name) == entry["sha256"]


def test_each_row_shows_only_what_its_seat_could_see_and_the_hidden_table_the_rest(ladder: list[Match]) -> None:
    export.write_dataset(GAME, month(ladder[0]))
    folder = export.folder(GAME, month(ladder[0]))
    decisions = [build.decode_row("decisions", r) for r in pq.read_table(folder / "decisions.parquet").to_pylist()]
    hidden = [build.decode_row("hidden", r) for r in pq.read_table(folder / "hidden.parquet").to_pylist()]
    assert [(r["match_id"], r["decision"], r["seat"]) for r in hidden] == [
        (r["match_id"], r["decision"], r["seat"]) for r in decisions
    ]
    redealt = 0
    for pk in {r["match_id"] for r in decisions}:
        replay = Replay.decode(Match.objects.get(pk=pk).replay_stored() or b"")
        mine = [r for r in decisions if r["match_id"] == pk]
        secret = [r for r in hidden if r["match_id"] == pk]
        setup = [e.to_json() for e in initial_match(replay).events(0, EVERYONE) if e.visible_to is not None]
        for step in steps(replay):
            if (
                step.index > 0
            ):  # the events decision n caused: the seat's share in its row, the private ones after the end
                row, after = mine[step.index - 1], secret[step.index - 1]
                caused = step.events
                # Numbered in the seat's own sequence (docs/bot-protocol.md, "Numbering"): the event's
                # place among every event of the match that seat may see.
                own = [e.index for e in step.match.events(0, Seat(row["seat"]))]
                assert row["events"] == [
                    {"i": own.index(e.index), "kind": e.kind, "data": e.data} for e in caused if e.visible(row["seat"])
                ]
                before = setup if step.index == 1 else []
                assert after["hidden_events"] == before + [e.to_json() for e in caused if e.visible_to is not None]
                assert after["seed"] == replay.seed
            if step.index == len(replay.decisions):
                break
            # The row is a function of the seat's information alone: with every other seat's cards dealt
            # anew, the seat's observation and options (all a row holds of the position) are unchanged.
            row = mine[step.index]
            seat = Seat(row["seat"])
            world = step.match.determinize(seat, SeededChance(step.index + 1))
            assert row["observation"] == world.observe(seat)
            assert row["options"] == [o.to_json() for o in world.legal_options()]
            others = [s for s in range(len(replay.seats)) if s != seat]
            redealt += any(world.observe(Seat(s)) != step.match.observe(Seat(s)) for s in others)
            assert secret[step.index]["observations"] == [step.match.observe(Seat(s)) for s in range(len(replay.seats))]
        assert [r["observations"][r["seat"]] for r in secret] == [r["observation"] for r in mine]
    assert redealt > 0  # other seats held hidden cards the redeal changed: the check above could fail


def test_a_match_whose_twin_still_runs_is_left_out_until_the_twin_ends(
    make_bot: Callable[..., Bot], author: User, other: User, finish: Callable[..., Match]
) -> None:
    a, b = make_bot(author, "alpha"), make_bot(other, "beta")
    first = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=True, seed=77)
    twin = match_services.do_queue_match(GAME, [b.latest_version, a.latest_version], rated=True, seed=77)
    first = finish(first)
    manifest = export.write_dataset(GAME, month(first))
    assert manifest["matches"] == 0 and manifest["decisions"] == 0 and manifest["hidden"] == 0
    assert pq.read_table(export.folder(GAME, month(first)) / "hidden.parquet").num_rows == 0
    assert export.stale_months(GAME) == []  # nothing public yet: the written month is current
    finish(twin)
    assert export.stale_months(GAME) == [month(first)]
    manifest = export.write_dataset(GAME, month(first))
    assert manifest["matches"] == 2
    assert export.stale_months(GAME) == []


def test_games_of_an_unpublished_tournament_and_unfinished_matches_are_left_out(
    ladder: list[Match], make_bot: Callable[..., Bot], author: User, other: User
) -> None:
    a, b = make_bot(author, "delta"), make_bot(other, "epsilon")
    queued = match_services.do_queue_match(GAME, [a.latest_version, b.latest_version], rated=True, seed=5)
    manifest = export.write_dataset(GAME, month(ladder[0]))
    assert manifest["matches"] == len(ladder)
    ids = set(pq.read_table(export.folder(GAME, month(ladder[0])) / "decisions.parquet").column("match_id").to_pylist())
    assert ids == {m.pk for m in ladder} and queued.pk not in ids


def test_the_api_lists_serves_and_describes_the_files(ladder: list[Match], anon: APIClient) -> None:
    when = month(ladder[0])
    export.write_dataset(GAME, when)
    listing = anon.get("/api/v1/datasets/").json()["results"]
    assert [(d["game"], d["month"], d["matches"]) for d in listing] == [(GAME, when, 4)]
    detail = anon.get(f"/api/v1/datasets/{GAME}/{when}/").json()
    assert detail["decisions"] == listing[0]["decisions"]
    parquet = anon.get(f"/api/v1/datasets/{GAME}/{when}/decisions.parquet")
    assert parquet.status_code == 200
    body = b"".join(parquet.streaming_content)
    assert len(body) == detail["files"]["decisions.parquet"]["bytes"]
    jsonl = anon.get(f"/api/v1/datasets/{GAME}/{when}/hidden.jsonl")
    lines = b"".join(jsonl.streaming_content).decode().splitlines()
    assert len(lines) == detail["hidden"] and all(json.loads(line)["seed"] for line in lines)
    assert detail["downloads"]["decisions"]["parquet"].endswith(f"/api/v1/datasets/{GAME}/{when}/decisions.parquet")


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/api/v1/datasets/nosuchgame/2026-01/", "there is no game named 'nosuchgame'"),
        (f"/api/v1/datasets/{GAME}/2026-13/", "'2026-13' is not a month; write it as YYYY-MM"),
        (f"/api/v1/datasets/{GAME}/january/decisions.parquet", "'january' is not a month"),
        (f"/api/v1/datasets/{GAME}/1999-01/", f"there is no {GAME} dataset for 1999-01"),
        (f"/api/v1/datasets/{GAME}/1999-01/decisions.parquet", f"there is no {GAME} dataset for 1999-01"),
        ("/api/v1/datasets/?game=nosuchgame", "there is no game named 'nosuchgame'"),
    ],
)
def test_an_unknown_game_or_month_is_a_404_with_a_sentence(anon: APIClient, path: str, words: str) -> None:
    r = anon.get(path)
    assert r.status_code == 404
    assert words in r.json()["detail"] and r.json()["code"] == "no_dataset"


def test_an_unknown_table_is_a_404_naming_the_tables(ladder: list[Match], anon: APIClient) -> None:
    export.write_dataset(GAME, month(ladder[0]))
    r = anon.get(f"/api/v1/datasets/{GAME}/{month(ladder[0])}/seeds.parquet")
    assert r.status_code == 404 and "decisions, hidden" in r.json()["detail"]


def test_downloads_are_throttled(ladder: list[Match], anon: APIClient) -> None:
    from webapp.datasets.views import DatasetThrottle

    when = month(ladder[0])
    export.write_dataset(GAME, when)
    old = DatasetThrottle.THROTTLE_RATES
    DatasetThrottle.THROTTLE_RATES = {**old, "dataset": "2/hour"}
    try:
        codes = [anon.get(f"/api/v1/datasets/{GAME}/{when}/decisions.parquet").status_code for _ in range(3)]
        manifest = anon.get(f"/api/v1/datasets/{GAME}/{when}/")  # the manifest is not a download
    finally:
        DatasetThrottle.THROTTLE_RATES = old
    assert codes == [200, 200, 429] and manifest.status_code == 200


def test_the_download_page_links_every_file(ladder: list[Match]) -> None:
    when = month(ladder[0])
    empty = Client().get("/datasets/")
    assert empty.status_code == 200 and "No dataset has been written yet" in empty.content.decode()
    export.write_dataset(GAME, when)
    page = Client().get("/datasets/").content.decode()
    for table in build.TABLES:
        for form in ("parquet", "jsonl", "jsonl.gz"):
            assert f"/api/v1/datasets/{GAME}/{when}/{table}.{form}" in page


def test_brawl_dataset_fetches_checks_and_reads(
    ladder: list[Match], live_server: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    when = month(ladder[0])
    assert brawl_cli.main(["dataset", "export", "--game", GAME, "--month", when]) == 0
    out = tmp_path / "d.parquet"
    assert brawl_cli.main(["dataset", "fetch", GAME, when, "--api", live_server.url, "--out", str(out)]) == 0
    assert "SHA-256 checked" in capsys.readouterr().out
    fetched = pq.read_table(out)
    assert fetched.num_rows == export.read_manifest(GAME, when)["decisions"]  # type: ignore[index]
    assert brawl_cli.main(["dataset", "read", str(out), "--limit", "2", "--match", str(ladder[1].pk)]) == 0
    printed = capsys.readouterr()
    rows = [json.loads(line) for line in printed.out.splitlines()]
    assert len(rows) == 2 and all(r["match_id"] == ladder[1].pk and isinstance(r["observation"], dict) for r in rows)
    gz = tmp_path / "h.jsonl.gz"
    hidden_args = ["--table", "hidden", "--format", "jsonl", "--api", live_server.url, "--out", str(gz)]
    assert brawl_cli.main(["dataset", "fetch", GAME, when, *hidden_args]) == 0
    assert len(list(read_rows(gz))) == export.read_manifest(GAME, when)["hidden"]  # type: ignore[index]
    assert brawl_cli.main(["dataset", "list", "--api", live_server.url]) == 0
    assert f"{GAME} {when}: 4 matches" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="there is no game named 'nosuchgame'"):
        brawl_cli.main(["dataset", "fetch", "nosuchgame", when, "--api", live_server.url, "--out", str(out)])


def test_docs_describe_every_column_of_both_tables() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "dataset.md").read_text()
    for table, schema in build.SCHEMAS.items():
        section = doc.split(f"### `{table}`", 1)[1].split("\n### ", 1)[0]
        described = {
            name.strip("` ")
            for row in section.splitlines()
            if row.startswith("| `")
            for name in row.split("|")[1].split(",")
        }
        assert set(schema.names) <= described, (table, sorted(set(schema.names) - described))


def test_bad_input_to_brawl_dataset_is_a_sentence_and_writes_nothing(
    tmp_path: Path, var_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert brawl_cli.main(["dataset", "export", "--game", GAME, "--month", "2026-13"]) == 2
    assert "'2026-13' is not a month; write it as YYYY-MM" in capsys.readouterr().err
    assert brawl_cli.main(["dataset", "export", "--game", "nosuchgame"]) == 2
    assert "there is no game named 'nosuchgame'" in capsys.readouterr().err
    assert not (var_dir / "datasets").exists()
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"match_id": 1}\nnot json\n')
    assert brawl_cli.main(["dataset", "read", str(junk)]) == 1
    assert "line 2 is not JSON" in capsys.readouterr().err
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1]}), other)
    assert brawl_cli.main(["dataset", "read", str(other)]) == 1
    assert "is not a table of the dataset" in capsys.readouterr().err


def test_a_replay_that_does_not_replay_is_left_out_and_named(ladder: list[Match]) -> None:
    broken = ladder[1]
    replay = Replay.decode(broken.replay_stored() or b"")
    replay.rules_version = "0.0.1"
    Match.objects.filter(pk=broken.pk).update(replay_gz=replay.encode())
    manifest = export.write_dataset(GAME, month(ladder[0]))
    assert manifest["matches"] == len(ladder) - 1
    assert [s["match_id"] for s in manifest["skipped"]] == [broken.pk]
    assert "'0.0.1'" in manifest["skipped"][0]["reason"]
    ids = set(pq.read_table(export.folder(GAME, month(ladder[0])) / "decisions.parquet").column("match_id").to_pylist())
    assert ids == {m.pk for m in ladder} - {broken.pk}
    assert export.stale_months(GAME) == []  # the skipped match counts as considered: no rewrite every sweep
