"""Shared readers for the deployment checks: the compose file, the Kubernetes manifests, the CLI.

This module loads files and answers questions about the code (which environment variables it
reads, whether a command line parses); it asserts nothing itself. No container engine or cluster
is involved: everything here is parsing.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
K8S = DEPLOY / "k8s"
COMPOSE = DEPLOY / "compose.yaml"
CADDYFILE = DEPLOY / "Caddyfile"
DOCKERFILE = DEPLOY / "Dockerfile"

CODE_DIRS = ("service", "common", "referee", "workers", "webapp", "ladder")
"""Packages whose environment reads are the settings a deployment may set."""

EXTERNAL_ENV = {"DJANGO_SETTINGS_MODULE": "read by Django itself to find webapp.settings"}
"""Variables the image sets that our code does not read through a helper, with who reads them."""


def load_yaml_documents(path: Path) -> list[dict[str, Any]]:
    """Returns the non-empty YAML documents of ``path``."""
    with path.open(encoding="utf-8") as fh:
        return [doc for doc in yaml.safe_load_all(fh) if doc]


@cache
def compose() -> dict[str, Any]:
    """Returns deploy/compose.yaml as plain data (anchors and ``<<`` merges resolved)."""
    [doc] = load_yaml_documents(COMPOSE)
    return doc


def k8s_files() -> list[Path]:
    """Returns every Kubernetes manifest file (kustomization.yaml is Kustomize's, not the API's)."""
    return sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")


@cache
def k8s_objects() -> tuple[tuple[str, dict[str, Any]], ...]:
    """Returns ``(file name, object)`` for every object in every manifest."""
    return tuple((path.name, obj) for path in k8s_files() for obj in load_yaml_documents(path))


def k8s_of_kind(kind: str) -> list[dict[str, Any]]:
    """Returns every manifest object of ``kind``."""
    return [obj for _, obj in k8s_objects() if obj["kind"] == kind]


def k8s_named(kind: str, name: str) -> dict[str, Any]:
    """Returns the one object of ``kind`` called ``name``.

    Raises:
        LookupError: there is none.
    """
    for obj in k8s_of_kind(kind):
        if obj["metadata"]["name"] == name:
            return obj
    raise LookupError(f"no {kind} named {name!r} in deploy/k8s")


def compose_schema() -> dict[str, Any]:
    """Returns the Compose Specification JSON schema that check-jsonschema ships (offline)."""
    text = (resources.files("check_jsonschema.builtin_schemas.vendor") / "compose-spec.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def parse_brawl(argv: list[str]) -> argparse.Namespace:
    """Parses ``argv`` with the real ``brawl`` parser, as the container's entry point would.

    Raises:
        AssertionError: the parser rejects the command line (its message is included).
    """
    from service.cli import build_parser

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return build_parser().parse_args(argv)
    except SystemExit as exc:
        raise AssertionError(f"`brawl {' '.join(argv)}` does not parse: {err.getvalue().strip()}") from exc


def port_of(address: str) -> int:
    """Returns the port of ``host:port``."""
    return int(address.rsplit(":", 1)[1])


def option(argv: list[str], name: str) -> str:
    """Returns the value after option ``name`` in ``argv``.

    Raises:
        LookupError: the option is absent.
    """
    for i, arg in enumerate(argv[:-1]):
        if arg == name:
            return argv[i + 1]
    raise LookupError(f"{name} not in {argv}")


_ENV_HELPER = re.compile(r"(^|_)env$")


def _string_arg(call: ast.Call) -> str | None:
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def _is_os_environ(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name)


def _reads_env(func: ast.expr, name: str) -> bool:
    if isinstance(func, ast.Name):
        return bool(_ENV_HELPER.search(func.id)) and name.isupper()
    if isinstance(func, ast.Attribute):
        if _ENV_HELPER.search(func.attr) and name.isupper():  # settings.env("NAME", ...)
            return True
        return func.attr == "getenv" or (func.attr in ("get", "setdefault") and _is_os_environ(func.value))
    return False


def env_reads_in(source: str) -> Iterator[str]:
    """Yields the names of the environment variables ``source`` reads.

    Counted: ``env("NAME", ...)`` and any helper named ``*_env`` (webapp.config's ``env``, the
    workers' ``_float_env``) given an upper-case name, ``os.environ.get("NAME")``,
    ``os.environ["NAME"]``, ``os.environ.setdefault("NAME", ...)`` and ``os.getenv("NAME")``.
    """
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = _string_arg(node)
            if name is not None and _reads_env(node.func, name):
                yield name
        elif isinstance(node, ast.Subscript) and _is_os_environ(node.value):
            key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                yield key.value


@cache
def env_reads() -> dict[str, frozenset[str]]:
    """Returns each environment variable the code reads, with the files that read it."""
    found: dict[str, set[str]] = {}
    for folder in CODE_DIRS:
        for path in sorted((REPO / folder).rglob("*.py")):
            for name in env_reads_in(path.read_text(encoding="utf-8")):
                found.setdefault(name, set()).add(str(path.relative_to(REPO)))
    return {name: frozenset(files) for name, files in found.items()}


def known_env_names() -> set[str]:
    """Returns every variable a deployment may meaningfully set for a Brawl container."""
    return set(env_reads()) | set(EXTERNAL_ENV)


_VARIABLE = re.compile(r"\$\{(\w+)(?:(:?[-?])([^}]*))?\}")


def interpolate(value: str, given: dict[str, str]) -> str:
    """Returns ``value`` with compose's ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?message}`` filled.

    A ``:?`` variable missing from ``given`` becomes ``placeholder-<var>`` (a required value the
    operator supplies); a ``:-`` one takes its default; ``$$`` is a literal ``$``.
    """

    def fill(match: re.Match[str]) -> str:
        name, op, arg = match.group(1), match.group(2) or "", match.group(3) or ""
        if name in given:
            return given[name]
        if op.endswith("?"):
            return f"placeholder-{name.lower()}"
        return arg if op.endswith("-") else ""

    return "$".join(_VARIABLE.sub(fill, part) for part in value.split("$$"))


def load_settings_in_subprocess(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Imports the Django settings in a fresh interpreter with exactly ``env`` (plus PATH and HOME).

    Nothing is connected to: importing settings builds configuration only.
    """
    base = {k: os.environ[k] for k in ("PATH", "HOME", "SYSTEMROOT") if k in os.environ}
    code = (
        "import django; from django.conf import settings; django.setup(set_prefix=False); "
        "print(settings.DATABASES['default']['ENGINE'], settings.DEBUG)"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**base, "DJANGO_SETTINGS_MODULE": "webapp.settings", **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def product_games() -> set[str]:
    """Returns the registered games that ship with the product (``referee.games``).

    Other suites register test-only games (``tinygame``) in the same process; a deployment never
    knows them, so the manifests are checked against the product's games only.
    """
    from referee.core.registry import game_names, get_game

    return {g for g in game_names() if type(get_game(g)).__module__.startswith("referee.games.")}
