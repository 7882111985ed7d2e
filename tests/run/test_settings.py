"""One typed settings module for every process (``common.settings``), and a scan that keeps it the only one."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from common import settings
from common.settings import ConfigurationError

REPO = Path(__file__).resolve().parents[2]

DIRECT_READS_ALLOWED = {
    "common/settings.py": "the settings module itself",
    "referee/sdk/cli.py": "a bot's command-line defaults (BRAWL_TOKEN, BRAWL_API...), run without the server",
    "workers/hosting/host.py": "BRAWL_HOST_REFEREE as a command-line default of `brawl host`",
}
"""Files that may still read the environment directly, each with why. Everything else goes through
``common.settings`` (``env``, ``current``, ``var_dir``)."""


def _environment_names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """Returns the names bound to the environment and to ``getenv`` anywhere in ``tree``.

    A name is the environment when it is imported as ``from os import environ`` or bound (``=``,
    an annotated ``=``, ``:=``) to an expression whose value may be the environment
    (:func:`_yields`: ``os.environ``, a copy of it, ``os.environ if e is None else e``); a value
    read from it (``os.environ.get("X")``) is not. A name is ``getenv`` when imported so or bound
    to ``os.getenv``. Bindings are followed until no new name appears, so an alias of an alias counts.
    """
    environ: set[str] = set()
    getenv: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            for alias in node.names:
                if alias.name == "environ":
                    environ.add(alias.asname or alias.name)
                elif alias.name == "getenv":
                    getenv.add(alias.asname or alias.name)
    bindings: list[tuple[str, ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            bindings += [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name) and node.value:
            bindings.append((node.target.id, node.value))
    while True:
        before = len(environ) + len(getenv)
        for name, value in bindings:
            if _yields(value, lambda n: _is_environ(n, environ), copies=True):
                environ.add(name)
            if _yields(value, lambda n: _is_getenv(n, getenv), copies=False):
                getenv.add(name)
        if len(environ) + len(getenv) == before:
            return environ, getenv


def _yields(value: ast.AST, target: Callable[[ast.AST], bool], *, copies: bool) -> bool:
    """Whether ``value`` may evaluate to ``target`` itself: directly, through ``a if c else b`` or
    ``a or b``, or (with ``copies``) as ``dict(...)``, ``{**...}`` or ``.copy()`` of it."""
    if target(value):
        return True
    if isinstance(value, ast.IfExp):
        return any(_yields(v, target, copies=copies) for v in (value.body, value.orelse))
    if isinstance(value, ast.BoolOp):
        return any(_yields(v, target, copies=copies) for v in value.values)
    if not copies:
        return False
    if isinstance(value, ast.Dict):
        return any(k is None and _yields(v, target, copies=True) for k, v in zip(value.keys, value.values, strict=True))
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Name) and func.id in ("dict", "ChainMap", "MappingProxyType"):
            return any(_yields(a, target, copies=True) for a in value.args)
        if isinstance(func, ast.Attribute) and func.attr == "copy":
            return _yields(func.value, target, copies=True)
    return False


def _is_environ(node: ast.AST, aliases: set[str]) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id in aliases
    )


def _is_getenv(node: ast.AST, aliases: set[str]) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "getenv") or (
        isinstance(node, ast.Name) and node.id in aliases
    )


def _direct_reads(source: str) -> list[str]:
    """Returns the reads of the environment in ``source``, through ``os`` or any alias (writes are not reads).

    A read is ``<environment>.get(...)``, ``<environment>[...]`` or a call of ``getenv``, where the
    environment and ``getenv`` are ``os.environ``/``os.getenv`` or a name bound to them
    (:func:`_environment_names`).
    """
    tree = ast.parse(source)
    environ, getenv = _environment_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            get = isinstance(func, ast.Attribute) and func.attr == "get" and _is_environ(func.value, environ)
            if get or _is_getenv(func, getenv):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _is_environ(node.value, environ):
            found.append(ast.unparse(node))
    return found


def test_only_the_settings_module_reads_the_environment() -> None:
    offenders = {}
    for folder in ("service", "common", "referee", "workers", "webapp", "ladder"):
        for path in sorted((REPO / folder).rglob("*.py")):
            name = str(path.relative_to(REPO))
            reads = _direct_reads(path.read_text(encoding="utf-8"))
            if reads and name not in DIRECT_READS_ALLOWED:
                offenders[name] = reads
    assert not offenders, f"read these through common.settings (env, current, var_dir): {offenders}"


def test_the_scan_sees_a_direct_read() -> None:
    """The check above can fail: each form of a direct read is found, a write is not."""
    code = 'import os\na = os.environ.get("X")\nb = os.getenv("Y")\nc = os.environ["Z"]\nos.environ["W"] = "1"\n'
    assert sorted(_direct_reads(code)) == ["os.environ.get('X')", "os.environ['Z']", "os.getenv('Y')"]


def test_the_scan_sees_a_read_through_an_alias() -> None:
    """An alias of the environment or of ``getenv`` is followed, however it was bound."""
    code = (
        "import os\n"
        "from os import environ as E, getenv as g\n"
        "def f(environ=None):\n"
        "    env: Mapping[str, str] = os.environ if environ is None else environ\n"
        "    again = env\n"
        "    return env.get('A'), again['B'], E.get('C'), g('D')\n"
        "read = os.getenv\n"
        "x = read('E')\n"
        "if (copy := dict(os.environ)):\n"
        "    y = copy['F']\n"
        "other = {'G': '1'}\n"
        "z = other.get('G')\n"
        "value = os.environ.get('H')\n"
        "w = value[0]\n"
    )
    assert sorted(_direct_reads(code)) == sorted(
        ["env.get('A')", "again['B']", "E.get('C')", "g('D')", "read('E')", "copy['F']", "os.environ.get('H')"]
    )


def test_the_referee_reads_its_credential_and_relay_url_through_the_settings() -> None:
    """``credential.internal_token`` and ``cli.relay_url`` read through ``common.settings``, no alias of their own."""
    for name in ("common/credential.py", "referee/server/auth.py", "referee/server/cli.py"):
        assert _direct_reads((REPO / name).read_text(encoding="utf-8")) == [], name


def test_defaults_with_nothing_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    conf = settings.current({})
    assert conf.var_dir == tmp_path / "var" == settings.var_dir({})
    assert conf.redis_url is None and conf.referees == [] and not conf.relay_enabled
    assert conf.reaper == settings.ReaperLimits() and conf.reaper.silence == timedelta(minutes=2)
    assert (conf.log.format, conf.log.level, conf.log.dir) == ("text", "INFO", None)
    assert conf.rematch_patience is None and conf.ladder_interval == 3.0


def test_values_are_typed() -> None:
    conf = settings.current(
        {
            "BRAWL_VAR_DIR": "/srv/brawl",
            "REDIS_URL": "redis://r:6379/0",
            "BRAWL_REFEREES": " a:1, b:2 ,",
            "BRAWL_RELAY": "off",
            "BRAWL_REAPER_SILENCE": "7.5",
            "BRAWL_REMATCH_PATIENCE": "60",
            "BRAWL_WEBHOOK_ALLOW_PRIVATE": "yes",
            "LOG_LEVEL": "debug",
        }
    )
    assert conf.var_dir == Path("/srv/brawl") and conf.referees == ["a:1", "b:2"]
    assert conf.redis_url == "redis://r:6379/0" and conf.relay is False and not conf.relay_enabled
    assert conf.reaper.silence == timedelta(seconds=7.5) and conf.rematch_patience == timedelta(seconds=60)
    assert conf.webhook_allow_private and conf.log.level == "DEBUG"
    assert settings.current({"REDIS_URL": "redis://r"}).relay_enabled  # unset BRAWL_RELAY follows Redis


@pytest.mark.parametrize(
    ("name", "raw", "why"),
    [
        ("BRAWL_LADDER_INTERVAL", "soon", "could not convert"),
        ("BRAWL_REAPER_START_GRACE", "0", "positive number of seconds"),
        ("BRAWL_BROKER_VISIBILITY_TIMEOUT", "inf", "positive number of seconds"),
        ("BRAWL_RELAY", "maybe", "not a boolean"),
        ("BRAWL_LOG_BACKUPS", "0", "positive whole number"),
        ("BRAWL_LOG_FORMAT", "xml", "'text' or 'json'"),
    ],
)
def test_a_malformed_value_names_the_variable_and_the_value(name: str, raw: str, why: str) -> None:
    with pytest.raises(ConfigurationError, match=f"environment variable {name}='{raw}' is malformed: .*{why}"):
        settings.current({name: raw})


def test_a_configuration_error_is_a_value_error_too() -> None:
    """Command lines that report a bad value (``except ValueError``) report these alike."""
    assert issubclass(ConfigurationError, ValueError) and issubclass(ConfigurationError, RuntimeError)
    with pytest.raises(ConfigurationError, match="environment variable SECRET_KEY is required"):
        settings.env("SECRET_KEY", str, required=True, environ={})


def _web_settings(tmp_path: Path, **env_vars: str) -> subprocess.CompletedProcess[str]:
    """Imports ``webapp.settings`` in a fresh process with only ``env_vars`` set; prints the counted settings."""
    names = ", ".join(f"s.{n}" for n in _COUNTED)
    return subprocess.run(
        [sys.executable, "-c", f"import webapp.settings as s; print({names})"],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "BRAWL_VAR_DIR": str(tmp_path), **env_vars},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


_COUNTED = ("BRAWL_CHALLENGES_PER_DAY", "BRAWL_INLINE_REPLAY_MAX_BYTES")
"""Web settings where 0 means none: no challenges a day, no replay kept inline."""


def test_a_count_of_zero_is_honoured(tmp_path: Path) -> None:
    defaults = _web_settings(tmp_path)
    assert defaults.returncode == 0, defaults.stderr
    assert defaults.stdout.split() == ["50", str(4 * 1024 * 1024)]
    zero = _web_settings(tmp_path, **dict.fromkeys(_COUNTED, "0"))
    assert zero.returncode == 0, zero.stderr
    assert zero.stdout.split() == ["0", "0"]


@pytest.mark.parametrize(
    ("name", "raw", "why"),
    [
        ("BRAWL_LOGIN_FAILURES_PER_ACCOUNT", "0", "positive whole number"),
        ("BRAWL_LOGIN_FAILURES_PER_ADDRESS", "0", "positive whole number"),
        ("BRAWL_LOGIN_LOCKOUT_SECONDS", "0", "positive whole number"),
        ("BRAWL_LOGIN_LOCKOUT_SECONDS", "-900", "positive whole number"),
        ("BRAWL_CHALLENGES_PER_DAY", "-1", "0 or more"),
        ("BRAWL_INLINE_REPLAY_MAX_BYTES", "-1", "0 or more"),
    ],
)
def test_a_web_setting_that_cannot_be_zero_or_negative_is_refused_by_name(
    tmp_path: Path, name: str, raw: str, why: str
) -> None:
    # A lockout after 0 failures, or for 0 s, is no setting anyone means; it once became the default silently.
    refused = _web_settings(tmp_path, **{name: raw})
    assert refused.returncode != 0
    assert f"environment variable {name}='{raw}' is malformed" in refused.stderr and why in refused.stderr


def test_no_web_setting_turns_a_falsy_value_into_its_default() -> None:
    """``env(name, coerce, default) or default`` reads a 0 (or an empty list) as the default.

    An ``env`` that has a default or is required never returns ``None``, so an ``or`` after it can
    only replace a falsy value; an ``or`` after an ``env`` without a default (the fallback to
    another variable) stays legal.
    """
    assert _falsy_fallbacks('x = env("N", int, 10) or 10\ny = env("S", str, required=True) or ""\n') == [1, 2]
    assert _falsy_fallbacks('z = env("A", str, None) or env("B", str, "b")\nw = env("C", int, 3)\n') == []
    offenders = {}
    for name in ("webapp/settings.py", "common/settings.py"):
        if lines := _falsy_fallbacks((REPO / name).read_text(encoding="utf-8")):
            offenders[name] = lines
    assert offenders == {}


def _falsy_fallbacks(source: str) -> list[int]:
    """Returns the lines of every ``env(...) or ...`` whose ``env`` call has a default or is required."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)):
            continue
        first = node.values[0]
        if not (isinstance(first, ast.Call) and getattr(first.func, "id", getattr(first.func, "attr", "")) == "env"):
            continue
        keywords = {k.arg: k.value for k in first.keywords}
        default = first.args[2] if len(first.args) > 2 else keywords.get("default")
        required = keywords.get("required")
        has_default = default is not None and not (isinstance(default, ast.Constant) and default.value is None)
        if has_default or (isinstance(required, ast.Constant) and required.value is True):
            found.append(node.lineno)
    return found


def test_the_internal_credential_refuses_a_deployment_it_cannot_name(tmp_path: Path) -> None:
    """A ``BRAWL_ENV`` that names no deployment is refused by name, not read as "not production"."""
    from common.credential import InternalTokenError, internal_token

    with pytest.raises(InternalTokenError, match="environment variable BRAWL_ENV='prod' is malformed: must be one of"):
        internal_token({"BRAWL_ENV": "prod", "BRAWL_VAR_DIR": str(tmp_path)})
    assert not (tmp_path / "internal-token").exists()
    with pytest.raises(InternalTokenError, match="required in production"):
        internal_token({"BRAWL_ENV": " Production ", "BRAWL_VAR_DIR": str(tmp_path)})
    assert settings.environment({}) is settings.Environment.DEVELOPMENT
