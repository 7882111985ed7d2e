"""No module imports the project's own modules by string, so the import contracts see every arrow.

``lint-imports`` reads ``import`` statements; ``importlib.import_module("workers.refhost")`` is an
arrow it cannot see. This scan parses every module of the project's packages and flags a call to
``import_module``, ``__import__``, ``import_string`` or ``load_object`` whose module argument is a
string literal or an f-string starting with one of the project's packages. A module the user names
(``brawl bot run module:Class``, ``brawl play --game module:Class``) reaches ``load_object`` as a
variable and is not flagged; a dotted path a framework demands in its configuration (Django's
settings, Celery's ``include``) is data, not a call. The few calls allowed are listed below with why.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("service", "common", "referee", "ladder", "workers", "webapp", "bench", "examples")
"""Folders whose modules are scanned (tests may load their own fixtures by name)."""

PROJECT = ("service", "common", "referee", "ladder", "workers", "webapp", "brawl", "bench", "examples")
"""Top-level packages of the project, the generated protocol code (``brawl``) included."""

LOADERS = {"import_module", "__import__", "import_string", "load_object"}

ALLOWED: dict[tuple[str, str], str] = {}
"""(file, module named) pairs that may stay, each with its reason; none today."""


def _literal_lists(tree: ast.AST) -> dict[str, list[str]]:
    """Returns the string literals each name may hold: a constant bound to it, or a loop over literals.

    A name bound to a literal (``_PACKAGE = "referee.games"``) holds it; a loop variable holds the
    strings of its list, written in the loop (``for m in ("a", "b")``) or bound to a name first
    (``MODULES = [...]`` then ``for m in MODULES``), as the old ``brawl`` parser did.
    """
    named: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        value = getattr(node, "value", None)
        strings = _strings(value)
        for target in targets:
            if isinstance(target, ast.Name) and strings:
                named[target.id] = strings
    loops: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
            source = node.iter
            strings = named.get(source.id, []) if isinstance(source, ast.Name) else _strings(source)
            if strings:
                loops[node.target.id] = strings
    return named | loops


def _strings(node: ast.AST | None) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _loaded_names(call: ast.Call, loops: dict[str, list[str]]) -> list[str]:
    """Returns the modules a loader call names: a literal, an f-string's head, or a loop over literals."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name not in LOADERS or not call.args:
        return []
    arg = call.args[0]
    if isinstance(arg, ast.Name):
        return loops.get(arg.id, [])
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [arg.value]
    if isinstance(arg, ast.JoinedStr):
        # The literal head of the f-string: what a package name would be spelled in.
        head = ""
        for part in arg.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                break
            head += part.value
        return [head + "{...}" if len(arg.values) > 1 or not head else head]
    return []


def string_imports(source: str) -> list[tuple[int, str]]:
    """Returns (line, module) for each loader call in ``source`` that names a project package."""
    tree = ast.parse(source)
    loops = _literal_lists(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for named in _loaded_names(node, loops):
                top = named.split(".", 1)[0].split(":", 1)[0]
                if top in PROJECT or top.startswith("{"):
                    found.append((node.lineno, named))
    return sorted(found)


def test_the_scan_finds_each_way_of_importing_by_string() -> None:
    """The scan is honest: each spelling it must catch is caught, and a user-named module is not."""
    code = (
        "import importlib\n"
        "from importlib import import_module\n"
        'importlib.import_module("workers.refhost")\n'
        'import_module(f"referee.games.{name}")\n'
        '__import__("webapp.cli")\n'
        'import_string("service.cli.main")\n'
        'load_object("referee.sdk.house:RandomBot")\n'
        'importlib.import_module(f"{package}.bots")\n'
        "load_object(spec)\n"
        'importlib.import_module("json")\n'
        'importlib.import_module(f"tests.games.{game}")\n'
        'SUBCOMMANDS = ["json", "workers.supervise"]\n'
        "for module_name in SUBCOMMANDS:\n"
        "    importlib.import_module(module_name).add_parser(subparsers)\n"
        'parsers = [import_module(m) for m in ("webapp.cli",)]\n'
        "for entry in entries:\n"
        "    load_object(entry)\n"
        '_PACKAGE = "referee.games"\n'
        "importlib.import_module(_PACKAGE)\n"
    )
    assert [line for line, _ in string_imports(code)] == [3, 4, 5, 6, 7, 8, 14, 15, 19]


@pytest.mark.parametrize("folder", SCANNED)
def test_no_module_imports_the_project_by_string(folder: str) -> None:
    offenders = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        if "_pb2" in path.name:
            continue
        name = str(path.relative_to(ROOT))
        for line, module in string_imports(path.read_text(encoding="utf-8")):
            if (name, module) not in ALLOWED:
                offenders.append(f"{name}:{line} loads {module!r}")
    assert offenders == [], "import these with an import statement (or pass the object in):\n" + "\n".join(offenders)
