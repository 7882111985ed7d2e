"""docs/deploy.md keeps up with the code and the manifests.

The environment reference must list every variable the code reads, and the file tables every
manifest, so a new setting or manifest cannot ship undocumented.
"""

from __future__ import annotations

import re

from tests.deploy.helpers import REPO, env_reads, k8s_files

DOC = REPO / "docs" / "deploy.md"


def reference_rows() -> dict[str, str]:
    """Returns the environment reference table's rows by variable name."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Environment variables", 1)[1].split("\n## ", 1)[0]
    return {m.group(1): m.group(0) for m in re.finditer(r"^\| `(\w+)` \|.*$", section, re.MULTILINE)}


def test_every_variable_the_code_reads_is_documented() -> None:
    missing = sorted(set(env_reads()) - set(reference_rows()))
    assert not missing, f"add to the table in docs/deploy.md: {missing}"


def test_the_reference_documents_no_variable_the_code_does_not_read() -> None:
    stale = sorted(set(reference_rows()) - set(env_reads()) - {"DJANGO_SETTINGS_MODULE"})
    assert not stale, f"docs/deploy.md documents variables nothing reads: {stale}"


def test_production_secrets_are_marked_required() -> None:
    rows = reference_rows()
    for name in ("SECRET_KEY", "ALLOWED_HOSTS"):
        assert "**yes**" in rows[name], name


def test_every_manifest_is_described() -> None:
    text = DOC.read_text(encoding="utf-8")
    for path in k8s_files():
        assert f"| `{path.name}` |" in text, path.name
