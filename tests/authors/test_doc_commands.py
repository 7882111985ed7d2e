"""Every shell command quoted in the bot authors' docs runs as written, from a fresh copy of the repository.

For each document the fenced shell blocks are run by ``tests/authors/docrun.py`` (see there for
how each kind of command is run and checked) inside a network and mount namespace of their own:
the docs quote fixed ports (``127.0.0.1:50051``, the internal API's ``50052``) and a placeholder
host (``referee.example.org``), which there are free and resolve to loopback, so no command is
rewritten and nothing on the machine (another referee on 50051) is touched. The folder is a fresh
copy of the repository's files (tracked and new, not ignored), with the ``brawl`` that
``pip install -e .`` put on PATH; the doc's ``mybot.py`` is written there from its block.

``npm ci`` has no network in the namespace: the test first runs it outside, in the copy (which
fills npm's cache from the registry), and inside it installs from that cache
(``npm_config_offline``), so the command itself runs unchanged.

Commands that are not run are on an explicit allow-list with the reason
(:data:`docrun.OTHER_KITS`: the Go, C++ and Java kits, which their own test builds and plays), and
the test checks that every skipped command is one of those. Inline commands (``brawl host
--server REFEREE:PORT``) are templates, not commands: each is parsed by the real ``brawl`` parser
with its placeholders filled, so an option a doc names that does not exist fails; a span that only
names a subcommand (``brawl bot run``) must name one that exists.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import build_parser
from tests.authors import docrun

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("docs/writing-a-bot.md", "docs/hosted-bots.md")
DOCRUN = Path(docrun.__file__)


def fresh_copy(dest: Path) -> Path:
    """Copies the repository's tracked and new (not ignored) files to ``dest``, as a fresh clone would hold them."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        src = ROOT / name
        if src.is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
    return dest


def fill_npm_cache(copy: Path) -> None:
    """Runs ``npm ci`` for the Node example outside the namespace, so the doc's own ``npm ci`` finds its cache."""
    npm = shutil.which("npm")
    assert npm and shutil.which("node"), "node and npm are required for the Node example's commands"
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund"],
        cwd=copy / "examples" / "node-bot",
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"


def in_namespace(argv: list[str], hosts: Path) -> list[str]:
    """``argv`` run in a new network and mount namespace with loopback up and ``hosts`` as ``/etc/hosts``."""
    unshare = shutil.which("unshare")
    assert unshare, "unshare (util-linux) is required to run the docs' commands on their own ports"
    own = [] if os.geteuid() == 0 else ["--map-root-user"]
    inner = f"ip link set lo up && mount --bind {hosts} /etc/hosts && exec {' '.join(map(str, argv))}"
    return [unshare, "--net", "--mount", *own, "sh", "-c", inner]


def run_doc(doc: str, tmp_path: Path) -> list[dict[str, str]]:
    copy = fresh_copy(tmp_path / "clone")
    hosts = tmp_path / "hosts"
    original = Path("/etc/hosts").read_text(encoding="utf-8") if Path("/etc/hosts").exists() else ""
    hosts.write_text(original + "\n127.0.0.1 referee.example.org\n", encoding="utf-8")
    if "npm ci" in (ROOT / doc).read_text(encoding="utf-8"):
        fill_npm_cache(copy)
    out = tmp_path / "results.json"
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    argv = in_namespace([sys.executable, DOCRUN, copy / doc, copy, out], hosts)
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1500, check=False)
    assert done.returncode == 0, f"the doc runner failed ({done.returncode}):\n{done.stderr[-3000:]}"
    results: list[dict[str, str]] = json.loads(out.read_text(encoding="utf-8"))
    return results


@pytest.mark.parametrize("doc", DOCS)
def test_every_quoted_command_runs_as_written(doc: str, tmp_path: Path) -> None:
    quoted = docrun.shell_commands((ROOT / doc).read_text(encoding="utf-8"))
    results = run_doc(doc, tmp_path)
    assert [(r["block_line"], r["command"]) for r in results] == quoted, "every quoted command has a result"
    failed = [
        f"line {r['block_line']}: {r['command']}\n    {r['how']}: {r['detail']}"
        for r in results
        if r["status"] == "failed"
    ]
    assert failed == [], f"{doc}: commands that do not run as written:\n" + "\n".join(failed)
    for r in results:
        if r["status"] == "skipped":
            assert docrun.OTHER_KITS.search(r["command"]) or r["detail"] == docrun.OTHER_KITS_REASON, r
    if doc == "docs/writing-a-bot.md":
        ran = {r["command"].split()[0] for r in results if r["status"] == "ok"}
        assert {"brawl", "cd", "npm", "node"} <= ran


PLACEHOLDERS = {
    "BOT_ID": "7",
    "FILE": "mybot.py",
    "REFEREE:PORT": "127.0.0.1:50051",
    "HOST:PORT": "127.0.0.1:50051",
    "NEW": "mybot:MyBot",
    "OLD": "examples.python_bots.greedy:GreedyBot",
    "GAME": "scrumbrawl",
    "N": "4",
}


def inline_commands(doc: str) -> list[str]:
    """Returns the inline code spans of ``doc`` that are ``brawl`` commands."""
    text = re.sub(r"^```.*?^```", "", doc, flags=re.S | re.M)
    return [m.group(1) for m in re.finditer(r"`(brawl [^`]+)`", text)]


@pytest.mark.parametrize("doc", DOCS)
def test_every_inline_brawl_command_parses(doc: str) -> None:
    spans = inline_commands((ROOT / doc).read_text(encoding="utf-8"))
    assert spans, f"{doc} quotes no inline brawl command"
    parser = build_parser()
    bad = []
    for span in spans:
        words = re.sub(r"\[[^\]]*\]", "", span).replace("...", "").split()[1:]
        words = [PLACEHOLDERS.get(w, w) for w in words]
        named_only = all(re.fullmatch(r"[a-z][a-z-]*", w) for w in words)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                # A span naming a subcommand in prose (`brawl bot run`) must name one that exists.
                parser.parse_args([*words, "--help"] if named_only else words)
        except SystemExit as exc:
            if exc.code != 0 or not named_only:
                bad.append(span)
        else:
            if named_only:
                bad.append(span)
    assert bad == [], f"{doc}: inline commands the brawl parser refuses: {bad}"
