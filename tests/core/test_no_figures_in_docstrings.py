"""Measurements live in docs/benchmarks.md, not in the code's docstrings and comments (issue 25).

A docstring says what the code does; a timing taken on one machine on one day ("about 6 ms",
"measured: ...", "17 ms through the serializer") goes stale the moment the code or the machine
changes, and nobody re-measures a docstring. This scans every docstring and comment of the
service's packages for the shapes such figures take. Limits the code enforces are stated in
other units (seconds, bytes, MiB of a limit) and do not match.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("referee", "ladder", "workers", "webapp")
FIGURE = re.compile(
    r"\b\d[\d,.]*\s?(?:-\s?\d[\d,.]*\s?)?(?:ms|us|µs)\b"  # 6 ms, 13 - 16 ms, 5 us
    r"|\bmeasured\s*[:,)]"  # "(measured: 0 objects ...", "..., measured)"
    r"|\b\d[\d.]*\s?x\s+(?:faster|slower)\b|\bfaster than\b"  # 3x faster, faster than X
    r"|\btimes the cost\b|\bload average\b",
    re.IGNORECASE,
)


def _texts(path: Path) -> list[tuple[int, str]]:
    """The docstrings (any string statement) and comments of a module, with their first line."""
    source = path.read_text()
    out = [
        (node.lineno, node.value.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    ]
    out += [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    ]
    return out


def test_no_docstring_or_comment_carries_a_measurement() -> None:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name.endswith("_pb2.py") or "migrations" in path.parts:
                continue
            for line, text in _texts(path):
                for m in FIGURE.finditer(text):
                    found.append(f"{path.relative_to(ROOT)}:{line}: {m.group(0)!r} in {text.strip()[:100]!r}")
    assert not found, "figures belong in docs/benchmarks.md:\n" + "\n".join(found)


def test_the_scan_sees_the_shapes_it_refuses() -> None:
    """The pattern is not vacuous: each kind of figure the issue named is caught."""
    for text in (
        "a digest takes about 6 ms",
        "young collections took 13 - 16 ms",
        "5 us per decision",
        "(measured: 0 objects collected)",
        "a 25 ms pause, measured)",
        "an order of magnitude faster than ParseDict",
        "3.5x faster",
        "5 to 15 times the cost of a warm request",
    ):
        assert FIGURE.search(text), text
    for text in ("at most 64 MiB", "decision_time of 2 s", "the measured round trip", "think_ms"):
        assert not FIGURE.search(text), text
