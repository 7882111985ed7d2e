"""The rule-by-rule traces stay true: every test a trace names exists, and every row says how it is enforced.

Each game has a trace, ``docs/rules/<game>-trace.md``: one table row per rule sentence of the seeds
(and per ruling taken from elsewhere, with its source). The format the checker reads:

- a table row is a line starting with ``|``; the header row of a table is the row right above its
  ``|---|`` separator line and is not checked;
- the **last cell** of every other row names the tests that enforce the rule, each written as a
  node id in backticks, ``tests/games/<game>/test_x.py::test_name`` (optionally
  ``::Class::test_name`` or with a parameter id ``::test_name[2-7]``), or it starts with
  ``not enforced`` followed by the reason.

The test fails when a trace is missing, when a row names no test and gives no reason, or when a
named test no longer exists (the module, the function or the parameter id). Plain names are looked
up by importing the module; parameter ids by collecting those files with pytest in a subprocess,
so the ids are pytest's own.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRACES = {
    "superfantasybrawl": ROOT / "docs" / "rules" / "superfantasybrawl-trace.md",
    "scrumbrawl": ROOT / "docs" / "rules" / "scrumbrawl-trace.md",
}
NODE = re.compile(r"`(tests/[\w/]+\.py)((?:::\w+)+)(\[[^\]`]*\])?`")
SEPARATOR = re.compile(r"^\|\s*:?-{3,}")


@dataclass(frozen=True)
class Ref:
    """One test named by a trace row."""

    line: int
    path: str
    names: tuple[str, ...]
    param: str | None

    @property
    def node_id(self) -> str:
        """The pytest node id the row names."""
        return self.path + "".join(f"::{n}" for n in self.names) + (self.param or "")


def parse_trace(text: str) -> tuple[list[Ref], list[str]]:
    """Returns the test references of a trace and the problems with its rows.

    Args:
        text: The markdown of a trace document.

    Returns:
        ``(refs, problems)``: every node id named in a row's last cell, and one message per row
        whose last cell neither names a test nor starts with ``not enforced``.
    """
    lines = text.splitlines()
    header_rows = {i - 1 for i, line in enumerate(lines) if SEPARATOR.match(line.strip())}
    refs: list[Ref] = []
    problems: list[str] = []
    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line.startswith("|") or i in header_rows or SEPARATOR.match(line):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        last = cells[-1] if cells else ""
        found = [Ref(i + 1, m.group(1), tuple(m.group(2).split("::")[1:]), m.group(3)) for m in NODE.finditer(last)]
        if found:
            refs += found
        elif not last.lower().startswith("not enforced"):
            problems.append(f"line {i + 1}: the last cell names no test and does not say 'not enforced': {last!r}")
        elif len(last) < len("not enforced") + 5:
            problems.append(f"line {i + 1}: 'not enforced' without a reason")
    return refs, problems


def missing_refs(refs: list[Ref]) -> list[str]:
    """Returns one message per reference whose module, function or parameter id does not exist."""
    out: list[str] = []
    parametrized: list[Ref] = []
    for ref in refs:
        file = ROOT / ref.path
        if not file.is_file():
            out.append(f"line {ref.line}: {ref.node_id}: no such file")
            continue
        module = importlib.import_module(ref.path[: -len(".py")].replace("/", "."))
        obj: object = module
        for name in ref.names:
            obj = getattr(obj, name, None)
            if obj is None:
                break
        if obj is None or not callable(obj):
            out.append(f"line {ref.line}: {ref.node_id}: no such test in {ref.path}")
        elif not ref.names[-1].startswith("test"):
            out.append(f"line {ref.line}: {ref.node_id}: {ref.names[-1]} is not a test (pytest collects test*)")
        elif ref.param is not None:
            parametrized.append(ref)
    if parametrized:
        collected = _collect({r.path for r in parametrized})
        out += [f"line {r.line}: {r.node_id}: no such parameter id" for r in parametrized if r.node_id not in collected]
    return out


def _collect(paths: set[str]) -> set[str]:
    """The node ids pytest collects from ``paths`` (slow tests included)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *sorted(paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    ids = {line.strip() for line in proc.stdout.splitlines() if "::" in line}
    assert ids, f"collecting {sorted(paths)} gave no tests:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return ids


@pytest.mark.parametrize("game", sorted(TRACES))
def test_every_test_a_trace_names_exists(game: str) -> None:
    """A rules test named in a trace that no longer exists fails here; so does a missing trace or a row with no test."""
    path = TRACES[game]
    assert path.is_file(), f"the trace {path.relative_to(ROOT)} is missing"
    refs, problems = parse_trace(path.read_text(encoding="utf-8"))
    assert refs, f"{path.name} names no test at all"
    problems += missing_refs(refs)
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


def test_the_checker_catches_a_vanished_test_a_bad_row_and_a_wrong_parameter() -> None:
    """The checker itself: a renamed test, a row with no test or reason, and an unknown parameter id all fail."""
    doc = "\n".join(
        [
            "| rule | enforced by |",
            "|---|---|",
            "| kept | `tests/games/test_traces.py::test_every_test_a_trace_names_exists` |",
            "| gone | `tests/games/test_traces.py::test_that_was_renamed` |",
            "| blank | to do |",
            "| lazy | not enforced |",
            "| reason | not enforced: the rule is about the table's physical layout |",
            "| param | `tests/games/test_traces.py::test_every_test_a_trace_names_exists[chess]` |",
            "| param ok | `tests/games/test_traces.py::test_every_test_a_trace_names_exists[scrumbrawl]` |",
        ]
    )
    refs, problems = parse_trace(doc)
    assert [r.names[-1] for r in refs] == ["test_every_test_a_trace_names_exists", "test_that_was_renamed"] + [
        "test_every_test_a_trace_names_exists"
    ] * 2
    assert len(problems) == 2 and "line 5" in problems[0] and "line 6" in problems[1]
    missing = missing_refs(refs)
    assert len(missing) == 2
    assert "test_that_was_renamed" in missing[0] and "[chess]" in missing[1]
