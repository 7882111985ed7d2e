"""No randomness a participant can observe is derived from a match seed, but the match's own dice.

The match seed decides every die, shuffle and draw, and stays secret until the match is over. Any
other generator seeded from it leaks it: a house bot whose picks came from ``(seed * 31 + seat) &
0xFFFFFFFF`` gave the seed's low 32 bits away after 16 decisions (issue 24, finding 2). So outside
the places that build the match's own chance stream, no generator and no bot may be built from an
expression that holds a match seed. Checked on the source of ``referee/``, ``workers/`` and
``webapp/``, so a new call site cannot slip past.

What counts, read from the AST:

- a *generator or bot maker*: a call of ``SeededChance``, ``random.Random``, ``random.seed``,
  numpy's ``default_rng``/``RandomState``/bit generators, a ``*Policy`` class, ``RandomBot``,
  ``house_factory`` or ``bot_factory``;
- *seed-derived*: an argument that mentions a name, attribute or ``["..."]`` key holding ``seed``
  (``seed``, ``replay.seed``, ``record["seed"]``, ``policy_seed``), directly or through a local
  variable assigned from one, hashes included. Names of a bot's own seed (``bot_seed``) and of the
  fresh draws (``new_seed()``, ``new_bot_seed()``) are not match seeds.

Not counted: the body of a bot class (one that defines ``choose`` or ``choose_turn``), whose
``seed`` is its own (a bot is never given the match seed: the protocol does not carry it; who
builds the bot is checked where it does), and a maker wrapper (``bot_factory``) handing its own
``seed`` parameter on unchanged (its callers are checked).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("referee", "workers", "webapp")

GENERATORS = {
    "SeededChance", "Random", "seed", "default_rng", "RandomState", "Generator",
    "PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64",
}  # fmt: skip
BOT_MAKERS = {"house_factory", "bot_factory", "RandomBot"}
"""Makers of bots beside every ``*Policy`` class; each takes a bot's own seed."""
NOT_MATCH_SEEDS = {"new_seed", "new_bot_seed"}
"""Fresh draws from the OS (``common/seeding.py``): named after seeds, derived from none."""

ALLOWED = {
    ("referee/core/replay.py", "Recorder.__init__"): "the match's own chance stream, from its seed",
    ("referee/core/replay.py", "initial_match"): "the match's own chance stream, re-simulated from a replay",
    ("referee/core/conformance.py", "random_playout"): "offline harness: it plays every seat itself, no participant",
    ("webapp/rankings/management/commands/seed_ladder.py", "Command.handle"): (
        "synthetic benchmark rows from the command's --seed: matches never played, no participant"
    ),
}
"""(file, function) where a seed-derived generator is the point, with the reason."""


def _callee(call: ast.Call) -> str:
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


def _is_maker(name: str) -> bool:
    return name in GENERATORS or name in BOT_MAKERS or name.endswith("Policy")


def _seedish(name: str) -> bool:
    low = name.lower()
    return "seed" in low and "bot_seed" not in low and name not in NOT_MATCH_SEEDS


def _mentions_seed(node: ast.AST, tainted: set[str]) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and (_seedish(sub.id) or sub.id in tainted):
            return True
        if isinstance(sub, ast.Attribute) and _seedish(sub.attr):
            return True
        if isinstance(sub, ast.Subscript):
            key = sub.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and _seedish(key.value):
                return True
    return False


def _is_bot_class(cls: ast.ClassDef) -> bool:
    return any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name in ("choose", "choose_turn") for n in cls.body
    )


def _tainted_locals(fn: ast.AST) -> set[str]:
    """Local names assigned (in ``fn``) from a seed-derived expression, to a fixed point."""
    tainted: set[str] = set()
    while True:
        grew = False
        for node in ast.walk(fn):
            value: ast.AST | None = None
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                value, targets = node.value, list(node.targets)
            elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value is not None:
                value, targets = node.value, [node.target]
            if value is None or not _mentions_seed(value, tainted):
                continue
            for t in targets:
                for name in ast.walk(t):
                    if isinstance(name, ast.Name) and name.id not in tainted:
                        tainted.add(name.id)
                        grew = True
        if not grew:
            return tainted


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = fn.args
    return {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]}


def seed_derived_generators(source: str, filename: str) -> list[tuple[str, int, str]]:
    """Returns ``(function, line, call)`` for every generator or bot built from a match seed."""
    found: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, qual: str, in_bot: bool, fn: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{qual}{child.name}.", in_bot or _is_bot_class(child), None)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, f"{qual}{child.name}.", in_bot, child)
            else:
                if isinstance(child, ast.Call) and not in_bot and _is_maker(_callee(child)):
                    check(child, qual.rstrip("."), fn)
                visit(child, qual, in_bot, fn)

    def check(call: ast.Call, where: str, fn: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        tainted = _tainted_locals(fn) if fn is not None else set()
        passthrough = fn is not None and _is_maker(fn.name)
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            if passthrough and isinstance(arg, ast.Name) and fn is not None and arg.id in _params(fn):
                continue
            if _mentions_seed(arg, tainted):
                found.append((where or "<module>", call.lineno, ast.unparse(call)))
                return

    visit(ast.parse(source, filename=filename), "", False, None)
    return found


def _sources() -> list[Path]:
    return sorted(
        p
        for folder in FOLDERS
        for p in (ROOT / folder).rglob("*.py")
        if not p.name.endswith(("_pb2.py", "_pb2_grpc.py")) and "migrations" not in p.parts
    )


def test_no_generator_or_bot_is_built_from_a_match_seed() -> None:
    offenders = []
    used = set()
    for path in _sources():
        rel = str(path.relative_to(ROOT))
        for where, line, call in seed_derived_generators(path.read_text(), rel):
            if (rel, where) in ALLOWED:
                used.add((rel, where))
                continue
            offenders.append(f"{rel}:{line} in {where}: {call}")
    assert not offenders, "seed-derived randomness a participant could observe:\n" + "\n".join(offenders)
    # An exception that no longer matches anything is stale: it would hide the next one there.
    assert used == set(ALLOWED), f"allowed but not found: {sorted(set(ALLOWED) - used)}"


SAMPLE = """
import hashlib, random
from referee.core.chance import SeededChance
from referee.sdk.house import house_factory

def start(seed, seats):
    for i, s in enumerate(seats):
        f = house_factory("g", s, seed=(seed * 31 + i) & 0xFFFFFFFF)
    mixed = seed ^ 0xC0FFEE
    coin = SeededChance(mixed)
    rng = random.Random(int.from_bytes(hashlib.sha256(str(seed).encode()).digest()[:8], "big"))
    return random.Random(record["seed"]), SeededChance(replay.seed), RandomPolicy(seed)

def fine(tick, bot_seed, game):
    rng = random.Random(int.from_bytes(hashlib.sha256(f"{game}:{tick}".encode()).digest()[:8], "big"))
    own = house_factory(game, "random", bot_seed + 1)
    return house_factory(game, "random"), own, SeededChance(0), RandomPolicy(new_bot_seed())

def bot_factory(game, spec, seed):
    return house_factory(game, spec, seed)

class Bot:
    def __init__(self, seed):
        self._chance = SeededChance(seed ^ 1)

    def choose(self, decision, observation, options):
        return options[0].id
"""


def test_the_scan_sees_every_form_of_a_seed_derived_generator_and_only_those() -> None:
    found = seed_derived_generators(SAMPLE, "sample.py")
    assert [(where, call.split("(")[0]) for where, _, call in found] == [
        ("start", "house_factory"),
        ("start", "SeededChance"),
        ("start", "random.Random"),
        ("start", "random.Random"),
        ("start", "SeededChance"),
        ("start", "RandomPolicy"),
    ]


@pytest.mark.parametrize(
    ("where", "snippet"),
    [
        ("referee/server/hub.py", "house_factory(game, spec.house_bot, seed=(seed * 31 + i) & 0xFFFFFFFF)"),
        ("referee/play.py", "bot_factory(game_name, bots[b], seed + n * 7919 + seat)"),
    ],
)
def test_the_scan_catches_the_call_sites_of_issue_24(where: str, snippet: str) -> None:
    source = f"def f(seed, seats, game, spec, game_name, bots, b, n, seat, i):\n    return {snippet}\n"
    assert seed_derived_generators(source, where), snippet
