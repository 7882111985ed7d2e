"""The OpenAPI schema: generated with no error or warning, every operation's answer described, and the
hosted-upload operations described as they answer.

The schema is generated the way an operator does, ``python -m django spectacular --validate`` in a
process of its own (so that nothing this test process imported or generated before hides a warning
that drf-spectacular reports only once per process), and read back from the file it wrote.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from rest_framework.test import APIClient

from webapp.bots.models import Bot
from webapp.hosting import services as hosting_services
from webapp.hosting.models import HostedUpload
from webapp.matches.models import Match

ROOT = Path(__file__).resolve().parents[2]
UPLOAD_PATH = "/api/v1/bots/{bot_id}/upload/"
BOT_PY = b"class Bot:\n    def choose(self, decision, observation, options):\n        return options[0].id\n"


@pytest.fixture(scope="module")
def generation(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Runs schema generation with validation once; returns the finished process and the schema it wrote."""
    out = tmp_path_factory.mktemp("openapi") / "schema.json"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "webapp.settings"}
    done = subprocess.run(
        [sys.executable, "-m", "django", "spectacular", "--validate", "--format", "openapi-json", "--file", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    schema = json.loads(out.read_text()) if out.exists() else {}
    return done, schema


def component(schema: dict[str, Any], ref: str) -> dict[str, Any]:
    """The component a ``$ref`` names."""
    assert ref.startswith("#/components/schemas/"), ref
    found: dict[str, Any] = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    return found


def answer_schema(schema: dict[str, Any], path: str, method: str, status: str) -> dict[str, Any]:
    """The JSON schema component of one operation's answer with ``status``."""
    content = schema["paths"][path][method]["responses"][status]["content"]
    assert list(content) == ["application/json"], content
    return component(schema, content["application/json"]["schema"]["$ref"])


def test_schema_generation_reports_no_error_or_warning(
    generation: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    done, schema = generation
    report = done.stdout + done.stderr
    # drf-spectacular prints each problem as a line with "Error" or "Warning", then a summary with counts.
    problems = [line for line in report.splitlines() if "Error" in line or "Warning" in line]
    assert done.returncode == 0 and problems == [], report
    assert schema["openapi"].startswith("3.") and len(schema["paths"]) >= 25


def test_every_operation_describes_its_answer(
    generation: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    _, schema = generation
    undescribed = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            answers = {code: body for code, body in operation["responses"].items() if code.startswith("2")}
            described = [code for code, body in answers.items() if code == "204" or body.get("content")]
            if not described:
                undescribed.append(f"{method.upper()} {path}: {sorted(operation['responses'])}")
    assert undescribed == []


def test_the_upload_operation_describes_its_multipart_body(
    generation: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    _, schema = generation
    body = schema["paths"][UPLOAD_PATH]["post"]["requestBody"]
    assert body["required"] is True and list(body["content"]) == ["multipart/form-data"], body
    form = component(schema, body["content"]["multipart/form-data"]["schema"]["$ref"])
    fields = form["properties"]
    assert set(fields) == {"file", "entry", "notes"}
    assert fields["file"] == {**fields["file"], "type": "string", "format": "binary"}
    assert fields["entry"]["type"] == "string" and fields["entry"]["maxLength"] == 200
    assert fields["notes"]["maxLength"] == 200
    assert sorted(form["required"]) == ["entry", "file"]
    assert set(schema["paths"][UPLOAD_PATH]["post"]["responses"]) == {"201"}


@pytest.fixture
def var_dir(tmp_path: Path) -> Iterator[Path]:
    """A ``BRAWL_VAR_DIR`` of the test's own: uploads are stored under its ``hosted`` folder."""
    var = tmp_path / "var"
    var.mkdir()
    with override_settings(VAR_DIR=var, BRAWL_HOSTED_DIR=""):
        yield var
    for folder in var.rglob("*"):
        if folder.is_dir():
            folder.chmod(0o755)


def test_the_hosted_upload_answers_have_the_fields_the_schema_describes(
    generation: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
    var_dir: Path,
    author: User,
    make_bot: Callable[..., Bot],
    rated_match: Match,
) -> None:
    _, schema = generation
    bot = make_bot(author, "uploaded")
    client = APIClient()
    client.force_authenticate(author)
    created = client.post(
        f"/api/v1/bots/{bot.pk}/upload/",
        {"file": SimpleUploadedFile("bot.py", BOT_PY), "entry": "bot:Bot", "notes": "first"},
        format="multipart",
    )
    assert created.status_code == 201, created.content
    assert set(created.json()) == set(answer_schema(schema, UPLOAD_PATH, "post", "201")["properties"])

    row = HostedUpload.objects.get(pk=created.json()["id"])
    hosting_services.do_record_run(row, datetime.now(UTC), "stopped by the host", "hello\n")
    detail = client.get(f"/api/v1/hosted-uploads/{row.pk}/")
    assert detail.status_code == 200, detail.content
    described = answer_schema(schema, "/api/v1/hosted-uploads/{upload_id}/", "get", "200")
    assert set(detail.json()) == set(described["properties"])
    run = component(schema, described["properties"]["runs"]["items"]["$ref"])
    assert [set(r) for r in detail.json()["runs"]] == [set(run["properties"])]

    logs = client.get(f"/api/v1/matches/{rated_match.pk}/hosted-logs/")
    assert logs.status_code == 200, logs.content
    described = answer_schema(schema, "/api/v1/matches/{match_id}/hosted-logs/", "get", "200")
    assert set(logs.json()) == set(described["properties"]) == {"runs"}
