"""deploy/Dockerfile: its structure, and whether the image it builds would hold what the code needs.

The image cannot be built here (no container engine runs on CI), so two things are checked
instead. The Dockerfile's shape: multi-stage on python:3.11-slim, a non-root user, the ``brawl``
entry point, every package copied. And the image's contents: it installs pyproject.toml's
dependencies and nothing else, so every third-party module the code imports, or names in
INSTALLED_APPS, must come from a declared dependency or one of theirs; a package that happens to
be installed in the development venv would otherwise hide a crash at the container's start.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import tomllib
from importlib import metadata
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.deploy.helpers import CODE_DIRS, DEPLOY, DOCKERFILE, REPO, compose, option, port_of

OWN_PACKAGES = {"service", "common", "referee", "ladder", "workers", "webapp", "brawl", "tests"}
DEVELOPMENT_ONLY = {"referee/protogen.py": "regenerates the protobuf code (grpc_tools); never run in the image"}
"""Modules of ours that only a developer runs, whose imports the image need not satisfy."""


def pyproject() -> dict[str, Any]:
    with (REPO / "pyproject.toml").open("rb") as fh:
        return tomllib.load(fh)


def instructions() -> list[tuple[str, str]]:
    """Returns the Dockerfile's ``(INSTRUCTION, rest)`` pairs, continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            pairs.append((word.upper(), rest.strip()))
    return pairs


def stages() -> dict[str, list[tuple[str, str]]]:
    """Returns each stage's instructions by stage name."""
    out: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    for word, rest in instructions():
        if word == "FROM":
            current = []
            out[rest.split(" AS ")[1].strip()] = current
        current.append((word, rest))
    return out


def test_multi_stage_on_python_3_11_slim() -> None:
    args = dict(rest.split("=", 1) for word, rest in instructions() if word == "ARG" and "=" in rest)
    assert args["PYTHON_IMAGE"] == "python:3.11-slim"
    assert list(stages()) == ["build", "runtime"]
    for name, body in stages().items():
        assert body[0][1].startswith("${PYTHON_IMAGE} AS "), name
    assert pyproject()["project"]["requires-python"] == ">=3.11"


def test_runtime_runs_as_a_fixed_non_root_user() -> None:
    runtime = stages()["runtime"]
    [user] = [rest for word, rest in runtime if word == "USER"]
    uid, gid = (int(part) for part in user.split(":"))
    assert uid != 0 and gid != 0
    useradd = next(rest for word, rest in runtime if word == "RUN" and "useradd" in rest)
    assert f"--uid {uid}" in useradd and f"--gid {gid}" in useradd.replace("--gid brawl", f"--gid {gid}")
    # Everything after USER runs unprivileged: no RUN may follow it.
    after = runtime[[w for w, _ in runtime].index("USER") :]
    assert "RUN" not in [w for w, _ in after]


def test_entry_point_is_the_brawl_script() -> None:
    runtime = stages()["runtime"]
    [entrypoint] = [json.loads(rest) for word, rest in runtime if word == "ENTRYPOINT"]
    assert entrypoint == ["brawl"]
    assert pyproject()["project"]["scripts"] == {"brawl": "service.cli:main"}
    assert any(word == "COPY" and rest == "--from=build /opt/brawl /opt/brawl" for word, rest in runtime)


def test_build_copies_every_package_and_the_build_files() -> None:
    copied = {source for word, rest in stages()["build"] if word == "COPY" for source in rest.split()[:-1]}
    tool = pyproject()["tool"]["setuptools"]
    roots = {pattern.rstrip("*") for pattern in tool["packages"]["find"]["include"]}
    package_dirs = {tool["package-dir"].get(root, root).split("/")[0] for root in roots}
    assert package_dirs | {"pyproject.toml", "README.md"} == copied
    ignored = (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines()
    allowed = {line[1:].removesuffix("/**") for line in ignored if line.startswith("!")}
    assert allowed == copied, "the build context must hold exactly what the Dockerfile copies"


def test_exposed_ports_are_the_ones_the_services_listen_on() -> None:
    [expose] = [rest.split() for word, rest in stages()["runtime"] if word == "EXPOSE"]
    services = compose()["services"]
    listen = {port_of(option(services["referee-1"]["command"], "--listen"))}
    addr = {port_of(option(services["web"]["command"], "--addr"))}
    assert {int(p) for p in expose} == listen | addr


def declared_distributions() -> set[str]:
    """Returns the distributions ``pip install .`` brings: the dependencies and all of theirs."""
    deps = pyproject()["project"]["dependencies"]
    todo = [Requirement(text) for text in deps]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        req = todo.pop()
        key = (canonicalize_name(req.name), frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        for text in metadata.requires(req.name) or []:
            sub = Requirement(text)
            extras = req.extras or {""}
            if sub.marker is None or any(sub.marker.evaluate({"extra": extra}) for extra in extras):
                todo.append(sub)
    return {name for name, _ in seen}


def third_party_modules() -> dict[str, str]:
    """Returns each third-party top-level module the code imports or names in INSTALLED_APPS, with where."""
    from django.conf import settings

    found: dict[str, str] = {}
    for app in settings.INSTALLED_APPS:
        found.setdefault(app.split(".")[0], "INSTALLED_APPS")
    for folder in CODE_DIRS:
        for path in sorted((REPO / folder).rglob("*.py")):
            if str(path.relative_to(REPO)) in DEVELOPMENT_ONLY:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    found.setdefault(name.split(".")[0], str(path.relative_to(REPO)))
    return {
        module: where
        for module, where in found.items()
        if module not in sys.stdlib_module_names and module not in OWN_PACKAGES and module != "__future__"
    }


def test_every_third_party_module_comes_from_a_declared_dependency() -> None:
    declared = declared_distributions()
    providers = metadata.packages_distributions()
    undeclared = {
        module: where
        for module, where in third_party_modules().items()
        if not {canonicalize_name(d) for d in providers.get(module, [])} & declared
    }
    detail = ", ".join(f"{m} ({w}; from {providers.get(m, ['?'])})" for m, w in sorted(undeclared.items()))
    assert not undeclared, f"the image would lack: {detail}; add them to [project] dependencies"
