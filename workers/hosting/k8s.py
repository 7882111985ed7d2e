"""The Kubernetes form of a hosted run: one pod per running bot (docs/hosted-bots.md, "Kubernetes").

:func:`pod_manifest` builds the pod a host on a cluster would create for one run. Every isolation
that bubblewrap gives on one machine comes from the platform here:

- **network**: the pod carries ``app.kubernetes.io/component: hosted-bot``, which the
  ``hosted-bots`` NetworkPolicy (deploy/k8s/hosting.yaml) limits to egress to the referee's bot
  port (and DNS), with no ingress at all;
- **filesystem**: non-root (the image's uid 10001), read-only root, every capability dropped, no
  privilege escalation, the default seccomp profile; the bot's stored upload mounted read-only
  at ``/bot`` from the shared var volume (``subPath`` of its SHA-256 folder); a size-limited
  ``emptyDir`` at ``/tmp``;
- **environment**: no service account token (``automountServiceAccountToken: false``), no Service
  variables (``enableServiceLinks: false``), only ``BRAWL_SERVER``, ``BRAWL_TOKEN`` and
  ``PYTHONDONTWRITEBYTECODE``;
- **resources**: CPU and memory requests equal to the limits (a hard CPU quota; the kubelet kills
  the container on its memory limit and reports ``OOMKilled``), and ``restartPolicy: Never`` so
  the host sees each end and names it.

The host does not create these pods yet (``brawl host`` runs bubblewrap only); the manifest is
validated against the Kubernetes API schemas by tests/hosting/test_k8s.py.
"""

from __future__ import annotations

from typing import Any

from workers.hosting import sandbox

HOSTED_COMPONENT = "hosted-bot"
"""The ``app.kubernetes.io/component`` label the NetworkPolicy selects."""
IMAGE_UID = 10001
"""The image's non-root user (deploy/Dockerfile)."""


def pod_manifest(
    name: str,
    *,
    upload_id: int,
    sha256: str,
    command: sandbox.BotCommand,
    limits: sandbox.Limits,
    image: str = "brawl-ladder:0.1.0",
    namespace: str = "brawl",
    referee: str = "referee:50051",
    var_claim: str = "brawl-var",
) -> dict[str, Any]:
    """Returns the pod for one run of a hosted upload (see the module docstring for what it isolates)."""
    if command.kind == "python":
        args = ["python", "-c", sandbox.PYTHON_RUNNER, command.entry, str(command.max_matches), ",".join(command.games)]
    elif command.kind == "exec":
        args = [f"{sandbox.BOT_DIR}/{command.entry}", "--server", referee, *command.extra_args]
    else:
        raise ValueError(f"unknown bot kind {command.kind!r} (python or exec)")
    cpu = f"{int(limits.cpu_share * 1000)}m"
    memory = str(limits.resident_bytes)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {
                "app.kubernetes.io/name": "hosted-bot",
                "app.kubernetes.io/part-of": "brawl-ladder",
                "app.kubernetes.io/component": HOSTED_COMPONENT,
                "brawl.example/upload": str(upload_id),
            },
        },
        "spec": {
            "restartPolicy": "Never",
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            "securityContext": {
                "runAsNonRoot": True,
                "runAsUser": IMAGE_UID,
                "runAsGroup": IMAGE_UID,
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "containers": [
                {
                    "name": "bot",
                    "image": image,
                    "command": args[:1],
                    "args": args[1:],
                    "workingDir": sandbox.BOT_DIR,
                    "env": [
                        {"name": "BRAWL_SERVER", "value": referee},
                        {"name": "BRAWL_TOKEN", "value": command.token},
                        {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
                    ],
                    "resources": {
                        "requests": {"cpu": cpu, "memory": memory},
                        "limits": {"cpu": cpu, "memory": memory},
                    },
                    "securityContext": {
                        "allowPrivilegeEscalation": False,
                        "readOnlyRootFilesystem": True,
                        "capabilities": {"drop": ["ALL"]},
                    },
                    "volumeMounts": [
                        {
                            "name": "bot",
                            "mountPath": sandbox.BOT_DIR,
                            "subPath": f"hosted/{sha256[:2]}/{sha256}",
                            "readOnly": True,
                        },
                        {"name": "tmp", "mountPath": "/tmp"},
                    ],
                }
            ],
            "volumes": [
                {"name": "bot", "persistentVolumeClaim": {"claimName": var_claim, "readOnly": True}},
                {"name": "tmp", "emptyDir": {"sizeLimit": str(limits.tmp_bytes)}},
            ],
        },
    }
