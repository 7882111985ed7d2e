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

``brawl host --mode k8s`` creates these pods through the Kubernetes API (:class:`KubeClient`, a
few REST calls over HTTP; :class:`PodLauncher` and :class:`PodRun` stand in for the bubblewrap
sandbox and its run), one per running bot plus one per import check and validation match, each
with its token in a Secret of its own, and deletes both when the run ends. The manifest is
validated against the Kubernetes API schemas by tests/hosting/test_k8s.py; the host's calls are
tested against a fake API server on loopback (tests/hosting/test_k8s_mode.py), never a real cluster.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import re
import signal
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from workers.hosting import sandbox
from workers.hosting.matchtag import BoundedLog

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
    token_secret: str | None = None,
) -> dict[str, Any]:
    """Returns the pod for one run of a hosted upload (see the module docstring for what it isolates).

    With ``token_secret`` the bot's token comes from that Secret (key ``token``, see
    :func:`secret_manifest`) rather than from a value in the pod spec, which anyone who may read
    pods in the namespace could see.
    """
    if command.kind == "python":
        args = ["python", "-c", sandbox.PYTHON_RUNNER, command.entry, str(command.max_matches), ",".join(command.games)]
    elif command.kind == "check":
        args = ["python", "-c", sandbox.CHECK_RUNNER, command.entry]
    elif command.kind == "exec":
        args = [f"{sandbox.BOT_DIR}/{command.entry}", "--server", referee, *command.extra_args]
    else:
        raise ValueError(f"unknown bot kind {command.kind!r} (python, check or exec)")
    token: dict[str, Any] = {"name": "BRAWL_TOKEN", "value": command.token}
    if token_secret is not None:
        token = {"name": "BRAWL_TOKEN", "valueFrom": {"secretKeyRef": {"name": token_secret, "key": "token"}}}
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
                        token,
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


def secret_manifest(name: str, token: str, *, upload_id: int, namespace: str = "brawl") -> dict[str, Any]:
    """The Secret holding one run's bot token (deleted with the run's pod)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {
                "app.kubernetes.io/part-of": "brawl-ladder",
                "app.kubernetes.io/component": HOSTED_COMPONENT,
                "brawl.example/upload": str(upload_id),
            },
        },
        "type": "Opaque",
        "data": {"token": base64.b64encode(token.encode()).decode()},
    }


SERVICE_ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")
IN_CLUSTER_API = "https://kubernetes.default.svc"
"""The API server as every pod reaches it (the ``kubernetes`` Service in ``default``)."""


class KubeError(RuntimeError):
    """The Kubernetes API refused a call or could not be reached."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


class KubeClient:
    """The few calls of the Kubernetes API the host makes: create, read and delete pods and Secrets,
    and read a pod's log. Blocking (``urllib``); the host calls it from a worker thread.

    Args:
        api: the API server's URL; in a pod, ``https://kubernetes.default.svc``.
        namespace: where the pods go.
        token: a bearer token (in a pod, the service account's).
        ca_file: the CA bundle that signs the API server's certificate.
    """

    def __init__(self, api: str, namespace: str = "brawl", token: str = "", ca_file: str | None = None) -> None:
        self.api = api.rstrip("/")
        self.namespace = namespace
        self.token = token
        self.context = ssl.create_default_context(cafile=ca_file) if api.startswith("https:") else None

    @classmethod
    def in_cluster(cls, api: str | None = None, namespace: str | None = None) -> KubeClient:
        """The client of a pod: its service account's token, CA and namespace (``api`` overrides the URL)."""
        if api is None:
            if not SERVICE_ACCOUNT.exists():
                raise KubeError(f"not in a pod (no {SERVICE_ACCOUNT}): pass --k8s-api")
            api = IN_CLUSTER_API
        token_file, ca_file, ns_file = (SERVICE_ACCOUNT / n for n in ("token", "ca.crt", "namespace"))
        token = token_file.read_text().strip() if token_file.exists() else ""
        if namespace is None:
            namespace = ns_file.read_text().strip() if ns_file.exists() else "brawl"
        return cls(api, namespace, token, str(ca_file) if ca_file.exists() else None)

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None, *, raw: bool = False) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.api}{path}", data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=10, context=self.context) as answer:
                payload = answer.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode("utf-8", "replace")
            raise KubeError(f"{method} {path}: {exc.code} {detail}", exc.code) from exc
        except OSError as exc:
            raise KubeError(f"{method} {path}: {exc}") from exc
        if raw:
            return payload
        return json.loads(payload) if payload else {}

    def _ns(self, kind: str, name: str = "") -> str:
        return f"/api/v1/namespaces/{self.namespace}/{kind}" + (f"/{name}" if name else "")

    def create_pod(self, manifest: dict[str, Any]) -> dict[str, Any]:
        return self._call("POST", self._ns("pods"), manifest)  # type: ignore[no-any-return]

    def get_pod(self, name: str) -> dict[str, Any]:
        return self._call("GET", self._ns("pods", name))  # type: ignore[no-any-return]

    def pod_log(self, name: str, limit_bytes: int = 4 * 1024 * 1024) -> bytes:
        """The container's stdout and stderr (the first ``limit_bytes``)."""
        query = urllib.parse.urlencode({"container": "bot", "limitBytes": limit_bytes})
        return self._call("GET", self._ns("pods", name) + f"/log?{query}", raw=True)  # type: ignore[no-any-return]

    def delete_pod(self, name: str, grace: int = 2) -> None:
        """Deletes a pod (a pod already gone is not an error)."""
        with contextlib.suppress(KubeError):
            self._call("DELETE", self._ns("pods", name), {"gracePeriodSeconds": grace})

    def list_pods(self, selector: str) -> list[dict[str, Any]]:
        query = urllib.parse.urlencode({"labelSelector": selector})
        return self._call("GET", self._ns("pods") + f"?{query}").get("items", [])  # type: ignore[no-any-return]

    def create_secret(self, manifest: dict[str, Any]) -> None:
        self._call("POST", self._ns("secrets"), manifest)

    def delete_secret(self, name: str) -> None:
        with contextlib.suppress(KubeError):
            self._call("DELETE", self._ns("secrets", name))


def pod_end(pod: dict[str, Any]) -> tuple[int | None, str]:
    """The bot container's exit status and the reason the kubelet gives (``OOMKilled``, ``Error``, ...)."""
    status = pod.get("status", {})
    for container in status.get("containerStatuses") or []:
        terminated = (container.get("state") or {}).get("terminated")
        if terminated is not None:
            return int(terminated.get("exitCode", 1)), str(terminated.get("reason", ""))
    if status.get("phase") == "Failed":  # evicted, or a node lost: no container status
        return 1, str(status.get("reason") or "Failed")
    return None, ""


class PodRun:
    """One hosted run as a pod: what :class:`workers.hosting.sandbox.SandboxRun` is for bubblewrap.

    The pod's state is read with :meth:`refresh` (the host calls it every pass, at most once a
    second per run); its log is read from the API into the same bounded log as the sandbox's.
    """

    REFRESH = 1.0

    def __init__(self, client: KubeClient, name: str, secret: str | None, log_limit: int = sandbox.LOG_LIMIT) -> None:
        self.client = client
        self.name = name
        self.secret = secret
        self.log = BoundedLog(log_limit)
        self.stopped = False
        self.reason = ""
        self._returncode: int | None = None
        self._refreshed = 0.0
        self._gone = False

    @property
    def returncode(self) -> int | None:
        return self._returncode

    async def refresh(self, *, force: bool = False) -> None:
        """Reads the pod's state (and, once it ended, its log)."""
        if self._gone or (not force and time.monotonic() - self._refreshed < self.REFRESH):
            return
        self._refreshed = time.monotonic()
        try:
            pod = await asyncio.to_thread(self.client.get_pod, self.name)
        except KubeError as exc:
            if exc.status == 404:  # deleted behind the host's back
                self._returncode, self.reason = (self._returncode or -signal.SIGKILL), "pod deleted"
                self._gone = True
            return
        code, reason = pod_end(pod)
        if code is not None and self._returncode is None:
            self._returncode, self.reason = code, reason
            await self.read_log()

    async def read_log(self) -> None:
        """Replaces the bounded log with what the API holds now."""
        with contextlib.suppress(KubeError):
            data = await asyncio.to_thread(self.client.pod_log, self.name)
            log = BoundedLog(self.log.limit)
            log.add(data)
            self.log = log

    async def wait(self, timeout: float | None = None) -> int:
        """Waits until the pod's container has ended; returns its exit status."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self._returncode is None:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"pod {self.name} still running")
            await asyncio.sleep(0.2)
            await self.refresh(force=True)
        return self._returncode

    async def stop(self, grace: float = 2.0) -> None:
        """Deletes the pod and its Secret (reading the log first); idempotent."""
        if self._gone:
            return
        await self.refresh(force=True)
        if self._returncode is None:
            self.stopped = True
            await self.read_log()
            self._returncode = -signal.SIGTERM
        await asyncio.to_thread(self.client.delete_pod, self.name, int(grace))
        if self.secret is not None:
            await asyncio.to_thread(self.client.delete_secret, self.secret)
        self._gone = True

    def verdict(self) -> str:
        """How the run ended, in the sandbox's words; the kubelet's ``OOMKilled`` is named as such."""
        if self.reason == "OOMKilled":
            return "out of memory (memory limit reached)"
        if self.reason == "Evicted":
            return "evicted by the node (Evicted)"
        if self.reason == "pod deleted" and not self.stopped:
            return "stopped (the pod was deleted outside the host)"
        return sandbox.verdict(self._returncode, self.log.text(), stopped=self.stopped)


_SERIAL = itertools.count(1)


class PodLauncher:
    """Starts hosted runs as pods (``brawl host --mode k8s``)."""

    def __init__(
        self,
        client: KubeClient,
        *,
        image: str,
        referee: str,
        var_claim: str = "brawl-var",
        limits: sandbox.Limits | None = None,
    ) -> None:
        self.client = client
        self.image = image
        self.referee = referee
        self.var_claim = var_claim
        self.limits = limits or sandbox.Limits()
        self.host_id = re.sub(r"[^a-z0-9]", "", socket.gethostname().lower())[-8:] or str(os.getpid())

    def _name(self, upload_id: int, what: str) -> str:
        return f"hosted-{upload_id}-{what}-{self.host_id}-{next(_SERIAL)}"[:63].rstrip("-")

    async def start(
        self, upload_id: int, sha256: str, command: sandbox.BotCommand, *, server: str | None = None, what: str = "run"
    ) -> PodRun:
        """Creates the Secret and the pod of one run; ``server`` overrides the referee address."""
        name = self._name(upload_id, what)
        secret = None
        if command.token:
            secret = name
            manifest = secret_manifest(secret, command.token, upload_id=upload_id, namespace=self.client.namespace)
            await asyncio.to_thread(self.client.create_secret, manifest)
        pod = pod_manifest(
            name,
            upload_id=upload_id,
            sha256=sha256,
            command=command,
            limits=self.limits,
            image=self.image,
            namespace=self.client.namespace,
            referee=server or self.referee,
            var_claim=self.var_claim,
            token_secret=secret,
        )
        try:
            await asyncio.to_thread(self.client.create_pod, pod)
        except KubeError:
            if secret is not None:
                await asyncio.to_thread(self.client.delete_secret, secret)
            raise
        return PodRun(self.client, name, secret)

    async def sweep(self) -> list[str]:
        """Deletes every hosted-bot pod (and its Secret) in the namespace; returns their names.

        A starting host owns no pod yet: what is there was left by a host that died (the Deployment
        runs one host), and would otherwise play on with a token the new host never issued.
        """
        pods = await asyncio.to_thread(self.client.list_pods, f"app.kubernetes.io/component={HOSTED_COMPONENT}")
        names = [pod["metadata"]["name"] for pod in pods]
        for name in names:
            await asyncio.to_thread(self.client.delete_pod, name, 0)
            await asyncio.to_thread(self.client.delete_secret, name)
        return names

    async def import_check(self, upload_id: int, sha256: str, entry: str, timeout: float = 120.0) -> tuple[bool, str]:
        """The import check as a pod (the time allowed includes pulling the image and scheduling)."""
        run = await self.start(upload_id, sha256, sandbox.BotCommand("check", entry), what="check")
        try:
            status = await run.wait(timeout)
        except TimeoutError:
            await run.stop()
            return False, run.log.text() + f"\n[import check: no answer within {timeout:.0f} s]"
        finally:
            await run.stop()
        text = run.log.text()
        if status != 0:
            return False, text + f"\n[import check: {run.verdict()}]"
        return True, text
