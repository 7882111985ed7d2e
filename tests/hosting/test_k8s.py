"""The Kubernetes form of a hosted run: the pod is valid for the API and isolated as documented, and
the NetworkPolicy lets it reach only the referee's bot port (and DNS)."""

from __future__ import annotations

import kubernetes_validate
import pytest

from tests.deploy.helpers import k8s_named, k8s_of_kind
from workers.hosting import sandbox
from workers.hosting.k8s import HOSTED_COMPONENT, IMAGE_UID, pod_manifest

SHA = "ab" + "0" * 62


def _pod(kind: str = "python", entry: str = "mybot:Bot") -> dict:  # type: ignore[type-arg]
    command = sandbox.BotCommand(kind, entry, token="tok", max_matches=2, games=("scrumbrawl",))
    return pod_manifest("hosted-7-1", upload_id=7, sha256=SHA, command=command, limits=sandbox.Limits())


@pytest.mark.parametrize(("kind", "entry"), [("python", "mybot:Bot"), ("exec", "bin/bot")])
def test_the_pod_is_valid_for_the_kubernetes_api(kind: str, entry: str) -> None:
    kubernetes_validate.validate(_pod(kind, entry), "1.30", strict=True)


def test_the_pod_is_non_root_read_only_capless_with_hard_limits_and_no_service_credentials() -> None:
    pod = _pod()
    spec = pod["spec"]
    [c] = spec["containers"]
    assert spec["securityContext"]["runAsNonRoot"] is True and spec["securityContext"]["runAsUser"] == IMAGE_UID
    assert c["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }
    assert spec["automountServiceAccountToken"] is False and spec["enableServiceLinks"] is False
    assert {v["name"] for v in c["env"]} == {"BRAWL_SERVER", "BRAWL_TOKEN", "PYTHONDONTWRITEBYTECODE"}
    assert c["resources"]["requests"] == c["resources"]["limits"]  # a hard CPU quota, a memory kill
    assert spec["restartPolicy"] == "Never"
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    assert mounts["/bot"]["readOnly"] is True and mounts["/bot"]["subPath"] == f"hosted/ab/{SHA}"
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert volumes["bot"]["persistentVolumeClaim"]["readOnly"] is True
    claims = {c["metadata"]["name"] for c in k8s_of_kind("PersistentVolumeClaim")}
    assert volumes["bot"]["persistentVolumeClaim"]["claimName"] in claims


def test_the_network_policy_selects_hosted_pods_and_allows_only_the_referees_bot_port_and_dns() -> None:
    policy = k8s_named("NetworkPolicy", "hosted-bots")
    labels = _pod()["metadata"]["labels"]
    assert labels["app.kubernetes.io/component"] == HOSTED_COMPONENT
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= labels.items()
    assert set(policy["spec"]["policyTypes"]) == {"Ingress", "Egress"} and policy["spec"]["ingress"] == []
    referee = k8s_named("StatefulSet", "referee")
    referee_labels = referee["spec"]["template"]["metadata"]["labels"]
    [bot_port] = [p for p in k8s_named("Service", "referee")["spec"]["ports"]]
    to_referee, to_dns, to_host = policy["spec"]["egress"]
    # Validation pods reach the host's private validation referee, and only its port.
    host = k8s_named("Deployment", "bot-host")
    [host_port] = host["spec"]["template"]["spec"]["containers"][0]["ports"]
    assert to_host["to"] == [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "bot-host"}}}]
    assert to_host["ports"] == [{"protocol": "TCP", "port": host_port["containerPort"]}]
    assert host["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/name"] == "bot-host"
    [peer] = to_referee["to"]
    assert set(peer) == {"podSelector"} and peer["podSelector"]["matchLabels"].items() <= referee_labels.items()
    assert to_referee["ports"] == [{"protocol": "TCP", "port": bot_port["port"]}]
    assert bot_port["port"] == 50051  # the bot port, never the internal API (50052)
    assert {p["port"] for p in to_dns["ports"]} == {53}
    assert _pod()["spec"]["containers"][0]["env"][0]["value"] == f"referee:{bot_port['port']}"


def test_the_host_may_manage_pods_and_secrets_in_its_namespace_and_nothing_else() -> None:
    host = k8s_named("Deployment", "bot-host")
    spec = host["spec"]["template"]["spec"]
    assert spec["serviceAccountName"] == "bot-host"
    [binding] = [b for b in k8s_of_kind("RoleBinding") if b["metadata"]["name"] == "bot-host"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "bot-host", "namespace": "brawl"}]
    role = k8s_named("Role", binding["roleRef"]["name"])
    granted = {(r, v) for rule in role["rules"] for r in rule["resources"] for v in rule["verbs"]}
    assert granted == {
        ("pods", "create"), ("pods", "get"), ("pods", "list"), ("pods", "delete"),
        ("pods/log", "get"), ("secrets", "create"), ("secrets", "delete"),
    }  # fmt: skip
    assert all(rule["apiGroups"] == [""] for rule in role["rules"])
    [c] = spec["containers"]
    assert c["args"][:3] == ["host", "--mode", "k8s"]
