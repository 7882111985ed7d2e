"""deploy/k8s: every manifest valid for the Kubernetes API, and consistent with itself and the code.

Schemas come from kubernetes-validate, which bundles the API's JSON schemas, so no cluster is
needed; strict mode rejects unknown fields, which is how a misspelt key would slip through.
Partitions: workloads that serve (referee, web), that consume (workers, beat), that only connect
out (house bots), one-shot (the migration Job); objects that refer to others by name (Services,
HPAs, Ingresses, envFrom, secretKeyRef, volumes).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from referee.sdk.cli import bot_factory
from tests.deploy.helpers import (
    DOCKERFILE,
    K8S,
    k8s_files,
    k8s_named,
    k8s_objects,
    k8s_of_kind,
    known_env_names,
    load_settings_in_subprocess,
    load_yaml_documents,
    option,
    parse_brawl,
    port_of,
    product_games,
)

KUBERNETES_VERSION = "1.30"
"""Oldest Kubernetes the manifests target (gRPC probes are GA since 1.27, autoscaling/v2 since 1.23)."""

WORKLOAD_KINDS = ("Deployment", "StatefulSet")
NOT_APPLIED_BY_KUSTOMIZE = {"secret.example.yaml": "placeholders", "migrate-job.yaml": "run before each rollout"}


def workloads() -> list[dict[str, Any]]:
    return [obj for kind in WORKLOAD_KINDS for obj in k8s_of_kind(kind)]


def pod_templates() -> list[tuple[str, dict[str, Any]]]:
    """``(owner name, pod spec)`` of every workload and Job."""
    owners = workloads() + k8s_of_kind("Job")
    return [(o["metadata"]["name"], o["spec"]["template"]["spec"]) for o in owners]


def containers() -> list[tuple[str, dict[str, Any]]]:
    return [(owner, c) for owner, spec in pod_templates() for c in spec["containers"]]


def component(obj: dict[str, Any]) -> str:
    return str(obj["metadata"]["labels"]["app.kubernetes.io/component"])


def named_port(container: dict[str, Any], port: int | str) -> int:
    """Returns the container port number a probe or Service names (by number or by name)."""
    if isinstance(port, int):
        assert any(p["containerPort"] == port for p in container["ports"]), f"{port} not a container port"
        return port
    [found] = [p["containerPort"] for p in container["ports"] if p["name"] == port]
    return int(found)


@pytest.mark.parametrize("path", k8s_files(), ids=lambda p: p.name)
def test_manifest_is_valid_for_the_kubernetes_api(path: Path) -> None:
    for obj in load_yaml_documents(path):
        try:
            kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{path.name}: {obj['kind']} {obj['metadata']['name']}: {exc}", pytrace=False)


def test_strict_validation_rejects_an_unknown_field() -> None:
    # Guards the check above: a misspelt probe key must fail, or strict mode is not in force.
    deployment = k8s_named("Deployment", "web")
    broken = {**deployment, "spec": {**deployment["spec"], "replica": 2}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)


def test_kustomization_lists_every_manifest_but_the_placeholders_and_the_job() -> None:
    [kustomization] = load_yaml_documents(K8S / "kustomization.yaml")
    assert kustomization["kind"] == "Kustomization"
    listed = set(kustomization["resources"])
    assert all((K8S / name).is_file() for name in listed)
    assert listed == {p.name for p in k8s_files()} - set(NOT_APPLIED_BY_KUSTOMIZE)
    assert {i["name"] for i in kustomization["images"]} == {c["image"].split(":")[0] for _, c in containers()}


def test_every_object_is_in_the_brawl_namespace() -> None:
    for _, obj in k8s_objects():
        if obj["kind"] != "Namespace":
            assert obj["metadata"]["namespace"] == "brawl", obj["metadata"]["name"]


def test_serving_and_consuming_workloads_have_probes_and_resources() -> None:
    for obj in workloads():
        for c in obj["spec"]["template"]["spec"]["containers"]:
            where = f"{obj['metadata']['name']}/{c['name']}"
            requests = c["resources"]["requests"]
            assert {"cpu", "memory"} <= set(requests), f"{where}: requests"
            assert "memory" in c["resources"]["limits"], f"{where}: memory limit"
            if component(obj) == "house-bot":
                # A bot has no port: it exits non-zero when refused, and the kubelet restarts it.
                assert "readinessProbe" not in c and "livenessProbe" not in c
                continue
            assert "readinessProbe" in c and "livenessProbe" in c, f"{where}: probes"


def test_pods_run_as_the_images_non_root_user() -> None:
    dockerfile = DOCKERFILE.read_text(encoding="utf-8")
    [user_line] = [line for line in dockerfile.splitlines() if line.startswith("USER ")]
    uid = int(user_line.split()[1].split(":")[0])
    for owner, spec in pod_templates():
        assert spec["securityContext"]["runAsNonRoot"] is True, owner
        assert spec["securityContext"]["runAsUser"] == uid, owner
        for c in spec["containers"]:
            assert c["securityContext"]["allowPrivilegeEscalation"] is False, owner
            assert c["securityContext"]["readOnlyRootFilesystem"] is True, owner
            # A read-only root needs a writable /tmp (Python and Celery write there).
            assert "/tmp" in {m["mountPath"] for m in c.get("volumeMounts", [])}, owner


def test_every_brawl_command_parses_with_the_brawl_cli() -> None:
    for owner, c in containers():
        if "command" in c:
            continue  # another entry point: the migration, checked below
        args = parse_brawl([str(a) for a in c["args"]])
        assert callable(args.func), owner


def test_migration_job_runs_django_migrate() -> None:
    job = k8s_named("Job", "brawl-migrate")
    [c] = job["spec"]["template"]["spec"]["containers"]
    assert c["command"] == ["python", "-m", "django"] and c["args"][0] == "migrate" and "--noinput" in c["args"]
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"


def test_referee_ports_agree_between_args_container_probes_and_services() -> None:
    referee = k8s_named("StatefulSet", "referee")
    [c] = referee["spec"]["template"]["spec"]["containers"]
    port = port_of(option(c["args"], "--listen"))
    assert named_port(c, "grpc") == port
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert c[probe]["grpc"]["port"] == port, probe
    # The Service (bots, the ingress) reaches the bot port; the headless Service that names each
    # referee for the workers reaches only the internal API.
    internal = port_of(option(c["args"], "--internal-listen"))
    assert named_port(c, "internal") == internal != port
    for name, expected in (("referee", port), ("referee-internal", internal)):
        [sp] = k8s_named("Service", name)["spec"]["ports"]
        assert sp["port"] == expected and named_port(c, sp["targetPort"]) == expected, name
    # Metrics: --metrics, the "metrics" container port and the pod's scrape annotations agree.
    metrics_port = port_of(option(c["args"], "--metrics"))
    assert named_port(c, "metrics") == metrics_port
    annotations = referee["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == str(metrics_port) and annotations["prometheus.io/path"] == "/metrics"
    assert referee["spec"]["serviceName"] == "referee-internal"
    assert k8s_named("Service", "referee-internal")["spec"]["clusterIP"] == "None"


def test_the_referee_drains_matches_before_it_is_killed() -> None:
    spec = k8s_named("StatefulSet", "referee")["spec"]["template"]["spec"]
    grace = float(option(spec["containers"][0]["args"], "--grace"))
    assert spec["terminationGracePeriodSeconds"] > grace


def test_workers_know_every_referee_the_autoscaler_may_start() -> None:
    config = k8s_named("ConfigMap", "brawl-config")["data"]
    hpa = k8s_named("HorizontalPodAutoscaler", "referee")
    [c] = k8s_named("StatefulSet", "referee")["spec"]["template"]["spec"]["containers"]
    port = port_of(option(c["args"], "--internal-listen"))  # the internal API, never the bot port
    expected = [f"referee-{i}.referee-internal:{port}" for i in range(hpa["spec"]["maxReplicas"])]
    assert config["BRAWL_REFEREES"].split(",") == expected


def test_web_ports_probes_and_host_header_agree() -> None:
    [c] = k8s_named("Deployment", "web")["spec"]["template"]["spec"]["containers"]
    port = port_of(option(c["args"], "--addr"))
    assert "--no-migrate" in c["args"], "migrations belong to the Job, not to every replica"
    allowed = k8s_named("ConfigMap", "brawl-config")["data"]["ALLOWED_HOSTS"].split(",")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        get = c[probe]["httpGet"]
        assert get["path"] == "/healthz" and named_port(c, get["port"]) == port, probe
        [host] = [h["value"] for h in get["httpHeaders"] if h["name"] == "Host"]
        assert host in allowed, f"{probe} sends Host {host!r}, which Django would refuse"
    sp, internal = k8s_named("Service", "web")["spec"]["ports"]
    assert sp["port"] == port and named_port(c, sp["targetPort"]) == port
    # The internal API's own listener (referees' token checks), also behind the Service.
    assert named_port(c, internal["targetPort"]) == port_of(option(c["args"], "--internal-addr")) == internal["port"]


def test_worker_probes_ping_the_workers_own_celery_node() -> None:
    import workers.celery

    assert workers.celery.app.main == "brawl"
    [c] = k8s_named("Deployment", "worker")["spec"]["template"]["spec"]["containers"]
    for probe in ("readinessProbe", "livenessProbe"):
        command = " ".join(c[probe]["exec"]["command"])
        assert "celery -A workers.celery inspect ping" in command and "-d celery@$HOSTNAME" in command, probe


def test_beat_is_a_single_replica_that_never_overlaps() -> None:
    beat = k8s_named("Deployment", "beat")
    assert beat["spec"]["replicas"] == 1
    assert beat["spec"]["strategy"]["type"] == "Recreate"
    assert "beat" not in {h["spec"]["scaleTargetRef"]["name"] for h in k8s_of_kind("HorizontalPodAutoscaler")}
    with_beat = [
        owner for owner, c in containers() if "command" not in c and getattr(parse_brawl(c["args"]), "beat", False)
    ]
    assert with_beat == ["beat"]


def test_referees_and_workers_autoscale_on_requested_cpu() -> None:
    targets = {h["spec"]["scaleTargetRef"]["name"]: h for h in k8s_of_kind("HorizontalPodAutoscaler")}
    assert {"referee", "worker"} <= set(targets)
    for name, hpa in targets.items():
        ref = hpa["spec"]["scaleTargetRef"]
        workload = k8s_named(ref["kind"], ref["name"])
        assert hpa["spec"]["minReplicas"] <= workload["spec"]["replicas"] <= hpa["spec"]["maxReplicas"], name
        # Utilization is a share of the request: without one the autoscaler cannot compute it.
        for c in workload["spec"]["template"]["spec"]["containers"]:
            assert "cpu" in c["resources"]["requests"], name


def test_services_select_a_workload() -> None:
    for service in k8s_of_kind("Service"):
        selector = service["spec"]["selector"]
        matches = [w for w in workloads() if selector.items() <= w["spec"]["template"]["metadata"]["labels"].items()]
        assert matches, f"Service {service['metadata']['name']} selects nothing"


def test_selectors_match_their_own_pod_labels() -> None:
    for w in workloads():
        labels = w["spec"]["template"]["metadata"]["labels"]
        assert w["spec"]["selector"]["matchLabels"].items() <= labels.items(), w["metadata"]["name"]


def test_ingress_backends_exist() -> None:
    for ingress in k8s_of_kind("Ingress"):
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                backend = path["backend"]["service"]
                ports = [p["name"] for p in k8s_named("Service", backend["name"])["spec"]["ports"]]
                assert backend["port"]["name"] in ports, ingress["metadata"]["name"]
    bots = k8s_named("Ingress", "bots")
    assert bots["metadata"]["annotations"]["nginx.ingress.kubernetes.io/backend-protocol"] == "GRPC"
    assert [p["path"] for p in bots["spec"]["rules"][0]["http"]["paths"]] == ["/brawl.bot.v1.BotService"]


def test_configuration_references_resolve() -> None:
    config_maps = {c["metadata"]["name"]: c for c in k8s_of_kind("ConfigMap")}
    secrets = {s["metadata"]["name"]: s for s in k8s_of_kind("Secret")}
    claims = {c["metadata"]["name"] for c in k8s_of_kind("PersistentVolumeClaim")}
    for owner, spec in pod_templates():
        for volume in spec.get("volumes", []):
            if "persistentVolumeClaim" in volume:
                assert volume["persistentVolumeClaim"]["claimName"] in claims, owner
        for c in spec["containers"]:
            for source in c.get("envFrom", []):
                if "configMapRef" in source:
                    assert source["configMapRef"]["name"] in config_maps, owner
                if "secretRef" in source:
                    assert source["secretRef"]["name"] in secrets, owner
            for var in c.get("env", []):
                ref = var.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    assert ref["key"] in secrets[ref["name"]]["stringData"], owner


def test_every_configured_variable_is_read_by_the_code() -> None:
    known = known_env_names()
    keys = set(k8s_named("ConfigMap", "brawl-config")["data"]) | set(k8s_named("Secret", "brawl-secrets")["stringData"])
    keys |= {v["name"] for _, c in containers() for v in c.get("env", [])}
    assert not keys - known, f"variables no code reads: {sorted(keys - known)}"


def test_production_settings_load_from_the_config_map_and_secret(tmp_path: Path) -> None:
    env = {**k8s_named("ConfigMap", "brawl-config")["data"], **k8s_named("Secret", "brawl-secrets")["stringData"]}
    result = load_settings_in_subprocess({**env, "BRAWL_VAR_DIR": str(tmp_path)}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["django.db.backends.postgresql", "False"]


def test_house_bots_play_every_game_with_real_classes() -> None:
    bots = [w for w in workloads() if component(w) == "house-bot"]
    games: set[str] = set()
    for w in bots:
        [c] = w["spec"]["template"]["spec"]["containers"]
        args = parse_brawl(c["args"])
        assert callable(getattr(bot_factory(args.bot, args.games)(), "choose", None)), args.bot
        [referee_port] = k8s_named("Service", "referee")["spec"]["ports"]
        assert args.server == f"referee:{referee_port['port']}"
        games |= set(args.games)
        assert [v["name"] for v in c["env"]] == ["BRAWL_TOKEN"]
    assert games == product_games()


def test_kustomize_renders_exactly_the_listed_manifests(tmp_path: Path) -> None:
    # `kubectl kustomize` renders offline (no cluster); kubectl comes with the machine image.
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is missing (it renders the kustomization offline)"
    result = subprocess.run(
        [kubectl, "kustomize", str(K8S)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    rendered = {(o["kind"], o["metadata"]["name"]) for o in yaml.safe_load_all(result.stdout) if o}
    expected = {(o["kind"], o["metadata"]["name"]) for name, o in k8s_objects() if name not in NOT_APPLIED_BY_KUSTOMIZE}
    assert rendered == expected


def test_referees_run_in_ladder_mode_with_the_relay_on() -> None:
    from referee.server.cli import is_standalone, relay_url

    [c] = k8s_named("StatefulSet", "referee")["spec"]["template"]["spec"]["containers"]
    args = parse_brawl(c["args"])
    assert args.command == "referee" and not is_standalone(args)
    # No database credentials: not the whole Secret, only the broker's URL and the service credential.
    sources = {(kind, s[kind]["name"]) for s in c["envFrom"] for kind in s}
    assert ("secretRef", "brawl-secrets") not in sources
    env = {e["name"]: e for e in c["env"]}
    assert set(env) == {"REDIS_URL", "BRAWL_INTERNAL_TOKEN", "BRAWL_WEB_INTERNAL_URL"}
    for name in ("REDIS_URL", "BRAWL_INTERNAL_TOKEN"):
        assert env[name]["valueFrom"]["secretKeyRef"] == {"name": "brawl-secrets", "key": name}
    # The web tier's Service, on its port, under a host name it accepts.
    ports = k8s_named("Service", "web")["spec"]["ports"]
    web_port = next(p["port"] for p in ports if p["name"] == "internal")
    assert env["BRAWL_WEB_INTERNAL_URL"]["value"] == f"http://web:{web_port}"
    assert "web" in k8s_named("ConfigMap", "brawl-config")["data"]["ALLOWED_HOSTS"].split(",")
    # The Service spreads bots over the referees, so they must relay seats to each other: REDIS_URL on.
    redis = k8s_named("Secret", "brawl-secrets")["stringData"]["REDIS_URL"]
    assert relay_url(args, {"REDIS_URL": redis}) == redis
