"""Runs the shell commands a document quotes, as written, and records how each went.

``tests/authors/test_doc_commands.py`` starts this file inside a network and mount namespace of
its own (``unshare --net --mount``), where loopback is up and ``/etc/hosts`` names
``referee.example.org`` as ``127.0.0.1``: the commands bind and dial the fixed ports and the
placeholder host the docs quote (``127.0.0.1:50051``, ``referee.example.org:443``) without
touching anything else on the machine, and without a single character of them rewritten.

What it does, block by block in the document's order (each block starts in the work folder, a
fresh copy of the repository):

- A ```` ```python ```` block whose first line is ``# NAME.py`` is written to ``NAME.py``: the file the
  doc tells the reader to create.
- Before a shell block that dials a referee it does not start itself (``--server ...``), the
  referee the reader is assumed to have is started (:data:`FIXTURES`): a standalone referee with
  its own token file, the bot's token in ``BRAWL_TOKEN``, and for TLS a certificate for
  ``referee.example.org`` and ``127.0.0.1`` in ``ca.pem``, which is also the "system" trust
  (``GRPC_DEFAULT_SSL_ROOTS_FILE_PATH``) for a ``--tls`` without ``--ca``.
- Each command runs with ``bash -c``: ``cd`` moves the block's folder; a command ending in ``&``
  runs in the background (what follows in the doc is its check); a long-running command (a
  referee, a bot without ``--matches``) runs in the background and is checked to come up: a
  referee answers on its ports, a bot plays a whole match that the fixture's referee starts for
  it; anything else must exit 0 within its timeout. ``brawl referee token --bot-id X`` prints a
  token: it becomes ``$X`` (upper case) for the commands after it, as the doc's ``$ALICE``.
- A command of a kit of another language (:data:`OTHER_KITS`) is not run, and says why.

Usage: ``python docrun.py DOC WORKDIR RESULTS.json`` (the test passes the tools' folder in PATH).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

FENCE = re.compile(r"^```([A-Za-z]*)[^\n]*\n(.*?)^```", re.S | re.M)
SHELL_LANGS = {"", "sh", "bash", "shell", "console"}

OTHER_KITS = re.compile(
    r"examples/(go|cpp|java)-bot|scripts/(kits|build-kit)\.sh|\bbuild/kits/"
    r"|\bgo (build|run)\b|\bcmake\b|\bmvn\b|\bjavac?\b|\bg\+\+"
)
"""Commands of the Go, C++ and Java starter kits (``scripts/kits.sh``, ``scripts/build-kit.sh``, the
``build/kits/`` bots): built and played with these commands by their own test
(``tests/kits/test_kits.py``), so not run here."""

OTHER_KITS_REASON = "a starter kit of another language: its own test builds it and plays matches with it"

COMMAND_TIMEOUT = 300.0
UP_TIMEOUT = 60.0


@dataclass
class Block:
    """One fenced block of the document."""

    lang: str
    text: str
    line: int


@dataclass
class Result:
    """How one quoted command went."""

    block_line: int
    command: str
    status: str  # "ok", "failed", "skipped"
    how: str
    detail: str = ""


@dataclass
class Fixture:
    """A referee the reader is assumed to have before a block: where it listens, with TLS or not."""

    listen: str
    tls: bool = False
    internal: str = ""
    process: subprocess.Popen[bytes] | None = None
    secret: str = field(default_factory=lambda: "fixture-" + secrets.token_urlsafe(24))
    """The fixture referee's internal credential (``BRAWL_INTERNAL_TOKEN``)."""


@dataclass
class State:
    """What carries from one command to the next."""

    root: Path
    env: dict[str, str]
    results: list[Result] = field(default_factory=list)
    background: list[subprocess.Popen[bytes]] = field(default_factory=list)
    fixtures: list[Fixture] = field(default_factory=list)
    doc_referees: set[str] = field(default_factory=set)
    """Ports of the referees the document's own commands started (no fixture is started there)."""


def blocks(doc: str) -> list[Block]:
    """Returns the fenced blocks of a Markdown document, with the line each starts on."""
    return [Block(m.group(1), m.group(2), doc.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(doc)]


def commands(block: Block) -> list[str]:
    """Returns a shell block's commands: continuation lines joined, comments and blank lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", block.text)
    out = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        out.append(_strip_comment(line).strip())
    return out


def _strip_comment(line: str) -> str:
    """Drops a trailing ``# comment`` outside quotes."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def shell_commands(doc: str) -> list[tuple[int, str]]:
    """Returns (block line, command) for every command of every shell block of ``doc``."""
    return [(b.line, c) for b in blocks(doc) if b.lang in SHELL_LANGS for c in commands(b)]


def _option(words: list[str], name: str) -> str | None:
    for i, w in enumerate(words):
        if w == name and i + 1 < len(words):
            return words[i + 1]
        if w.startswith(name + "="):
            return w.split("=", 1)[1]
    return None


def _port_open(address: str) -> bool:
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=1):
            return True
    except OSError:
        return False


def _wait(condition: object, what: str, proc: subprocess.Popen[bytes] | None, timeout: float = UP_TIMEOUT) -> str:
    """Polls ``condition`` until it holds; returns "" or why not (the process ended, or the timeout)."""
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if proc is not None and proc.poll() is not None:
            return f"{what}: the process ended with status {proc.returncode}"
        if time.monotonic() > deadline:
            return f"{what}: not after {timeout:g} s"
        time.sleep(0.05)
    return ""


def _brawl(state: State, *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120) -> str:
    """Runs ``brawl ARGS`` for the runner's own set-up or checks; returns its stdout or raises with its stderr."""
    done = subprocess.run(
        ["brawl", *args], cwd=cwd, env=env or state.env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"brawl {' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-600:]}")
    return done.stdout


FIXTURE_BOT = "mybot"
"""The bot id the fixture referees issue ``BRAWL_TOKEN`` for."""


def start_fixtures(state: State, block: Block, cmds: list[str]) -> str:
    """Starts the referees a block dials but does not start; returns "" or why they did not come up."""
    if any(shlex.split(c)[:2] == ["brawl", "referee"] and "--listen" in c for c in cmds):
        return ""  # the block starts its own referee
    wanted: list[Fixture] = []
    for c in cmds:
        words = shlex.split(c)
        server = _option(words, "--server")
        if server is None or OTHER_KITS.search(c):
            continue
        port = server.rpartition(":")[2]
        if port in state.doc_referees:
            continue
        tls = "--tls" in words
        if not any(f.listen.endswith(":" + port) and f.tls == tls for f in wanted):
            wanted.append(Fixture(f"127.0.0.1:{port}", tls, internal=f"127.0.0.1:{50060 + len(wanted)}"))
    if not wanted:
        return ""
    folder = state.root.parent / f"fixture-{block.line}"
    folder.mkdir()
    token = _brawl(
        state, "referee", "token", "--tokens", "tokens.json", "--bot-id", FIXTURE_BOT, "--games", "scrumbrawl",
        cwd=folder,
    ).strip()  # fmt: skip
    state.env["BRAWL_TOKEN"] = token
    if any(f.tls for f in wanted):
        make_certificate(folder)
        (state.root / "ca.pem").write_bytes((folder / "cert.pem").read_bytes())
        state.env["GRPC_DEFAULT_SSL_ROOTS_FILE_PATH"] = str(folder / "cert.pem")
    for f in wanted:
        argv = ["brawl", "referee", "--listen", f.listen, "--internal-listen", f.internal, "--tokens", "tokens.json"]
        if f.tls:
            argv += ["--tls-cert", "cert.pem", "--tls-key", "key.pem"]
        env = dict(state.env, BRAWL_INTERNAL_TOKEN=f.secret)
        log = open(folder / f"referee-{f.listen.rpartition(':')[2]}.log", "wb")  # noqa: SIM115 (kept by the process)
        f.process = subprocess.Popen(argv, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
        state.fixtures.append(f)
        why = _wait(lambda f=f: _port_open(f.listen) and _port_open(f.internal), f"referee {f.listen}", f.process)
        if why:
            return why
    return ""


def make_certificate(folder: Path) -> None:
    """Writes ``cert.pem`` and ``key.pem``: self-signed for referee.example.org, localhost and 127.0.0.1."""
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem"), "-days", "2",
            "-subj", "/CN=referee.example.org",
            "-addext", "subjectAltName=DNS:referee.example.org,DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip


def fixture_for(state: State, server: str, tls: bool) -> Fixture | None:
    """The running fixture referee a ``--server`` address reaches, if the runner started it."""
    port = server.rpartition(":")[2]
    for f in state.fixtures:
        if f.listen.endswith(":" + port) and f.tls == tls and f.process is not None and f.process.poll() is None:
            return f
    return None


def plays_a_match(state: State, fixture: Fixture, game: str, proc: subprocess.Popen[bytes]) -> str:
    """Has the fixture referee start a match of the connected bot against a house bot; "" when it ends well."""
    env = dict(state.env, BRAWL_INTERNAL_TOKEN=fixture.secret)
    argv = ["brawl", "referee", "start", "--internal", fixture.internal, "--game", game]
    argv += ["--bot", FIXTURE_BOT, "--bot", "house:random", "--join-timeout", str(UP_TIMEOUT)]
    done = subprocess.run(argv, cwd=state.root, env=env, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        return f"the match against it did not end well ({done.returncode}): {done.stderr.strip()[-400:]}"
    if proc.poll() is not None:
        return f"the bot exited ({proc.returncode}) instead of staying connected"
    return ""


def long_running(words: list[str]) -> str:
    """What kind of long-running command this is ("referee", "bot"), or ""."""
    if words[:2] == ["brawl", "referee"] and (len(words) == 2 or words[2].startswith("-")):
        return "referee"
    is_bot = words[:3] == ["brawl", "bot", "run"] or (words[:1] == ["node"] and words[1:2] == ["bot.js"])
    if is_bot and "--matches" not in words:
        return "bot"
    return ""


def run_command(state: State, cwd: Path, command: str) -> Result | Path:
    """Runs one command; returns its result, or the new folder for a ``cd``."""
    words = shlex.split(command)
    if words[0] == "cd":
        target = (cwd / words[1]).resolve()
        return target if target.is_dir() else Result(0, command, "failed", "cd", f"no folder {target}")
    background = command.endswith("&")
    line = command.removesuffix("&").strip()
    words = shlex.split(line)
    kind = long_running(words)
    if background or kind:
        log = open(state.root.parent / f"bg-{len(state.background)}.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen(["bash", "-c", line], cwd=cwd, env=state.env, stdout=log, stderr=subprocess.STDOUT)
        state.background.append(proc)
        if kind == "referee":
            listen = _option(words, "--listen") or "127.0.0.1:50051"
            internal = _option(words, "--internal-listen") or "127.0.0.1:50052"
            why = _wait(lambda: _port_open(listen) and _port_open(internal), f"referee on {listen}", proc)
            why = why or _wait(lambda: (cwd / "var" / "internal-token").is_file(), "var/internal-token", proc)
            state.doc_referees.add(listen.rpartition(":")[2])
            return Result(0, command, "failed" if why else "ok", "background: referee answers", why)
        if background:
            why = "" if proc.poll() is None else f"exited at once with {proc.returncode}"
            return Result(0, command, "failed" if why else "ok", "background (&): what follows checks it", why)
        server = _option(words, "--server") or "127.0.0.1:50051"
        fixture = fixture_for(state, server, "--tls" in words)
        if fixture is None:
            return Result(0, command, "failed", "background: bot", f"no referee of the runner's at {server}")
        games = _option(words, "--games") or "scrumbrawl"
        why = plays_a_match(state, fixture, games, proc)
        proc.send_signal(signal.SIGINT)
        return Result(0, command, "failed" if why else "ok", f"background: bot plays a {games} match", why)
    try:
        done = subprocess.run(
            ["bash", "-c", line], cwd=cwd, env=state.env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        return Result(0, command, "failed", "run", f"still running after {COMMAND_TIMEOUT:g} s")
    if words[:3] == ["brawl", "referee", "token"] and done.returncode == 0:
        bot_id = _option(words, "--bot-id") or ""
        state.env[bot_id.upper()] = done.stdout.strip()
    ok = done.returncode == 0
    detail = "" if ok else f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[-800:]}"
    return Result(0, command, "ok" if ok else "failed", "run: exit 0", detail)


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def run_doc(doc_path: Path, root: Path) -> list[Result]:
    """Runs every command ``doc_path`` quotes, from ``root``; returns one result per command."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR", "npm_config_cache")}
    env["npm_config_offline"] = "true"  # no network in here: npm installs from the cache the test filled
    state = State(root, env)
    for block in blocks(doc_path.read_text(encoding="utf-8")):
        first = block.text.splitlines()[0] if block.text else ""
        if block.lang == "python" and re.fullmatch(r"#\s*[\w.]+\.py\s*", first):
            (root / first.lstrip("#").strip()).write_text(block.text, encoding="utf-8")
            continue
        if block.lang not in SHELL_LANGS:
            continue
        cmds = commands(block)
        cwd = root
        why = start_fixtures(state, block, cmds)
        skipping = ""
        for command in cmds:
            if OTHER_KITS.search(command):
                skipping = OTHER_KITS_REASON
            if skipping:
                state.results.append(Result(block.line, command, "skipped", "allow-list", skipping))
                continue
            if why:
                state.results.append(Result(block.line, command, "failed", "fixture", why))
                continue
            outcome = run_command(state, cwd, command)
            if isinstance(outcome, Path):
                cwd = outcome
                state.results.append(Result(block.line, command, "ok", "cd"))
                continue
            outcome.block_line = block.line
            state.results.append(outcome)
        stop([f.process for f in state.fixtures if f.process is not None])
        state.fixtures.clear()
    stop(state.background)
    return state.results


def main(argv: list[str]) -> int:
    doc, root, out = Path(argv[0]), Path(argv[1]), Path(argv[2])
    results = run_doc(doc, root)
    out.write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
