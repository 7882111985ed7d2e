"""``brawl host --mode k8s`` against a fake Kubernetes API on loopback (there is no cluster here).

The Kubernetes API is an edge this project does not own, so the test stands in for it: a small
HTTP server that keeps pods and Secrets in memory and records every request, and a fake kubelet
that runs each created pod's bot in the real bubblewrap sandbox (the pod's command, its
``BRAWL_SERVER``, its token read from the pod's Secret, its upload from the volume's ``subPath``)
and writes the container's end back into the pod's status. Through it the host, unchanged, runs
an upload's import check and validation match as pods, then runs the version as a pod that plays a
real ladder match against a connected bot; a pod the kubelet reports ``OOMKilled`` is named out of
memory; every pod and Secret the host created is deleted. What this does not show: that a real
cluster schedules these pods, enforces the NetworkPolicy or the limits (docs/hosted-bots.md).
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import kubernetes_validate
import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from django.utils import timezone

from referee.core.ids import BotId
from referee.server.match import MatchState, SeatSpec
from referee.server.service import create_server
from referee.server.sinks import MemoryResultSink
from tests.referee.bots import FirstBot
from tests.referee.harness import FAST
from webapp.bots import services as bot_services
from webapp.bots.token_store import DjangoTokenStore
from webapp.hosting import services
from webapp.hosting.models import HostedRun, HostedUpload, UploadStatus
from workers.hosting import sandbox
from workers.hosting.host import BotHost, HostSettings, _close_db
from workers.hosting.k8s import KubeClient, PodLauncher
from workers.hosting.proxy import UnixProxy

UPLOADS = Path(__file__).parent / "uploads"
GAME = "scrumbrawl"
pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None or os.geteuid() != 0, reason="the fake kubelet runs pods in bubblewrap"
)


class FakeApi:
    """Pods and Secrets of one namespace, in memory; every request recorded as (method, path, body)."""

    def __init__(self) -> None:
        self.pods: dict[str, dict[str, Any]] = {}
        self.secrets: dict[str, dict[str, Any]] = {}
        self.logs: dict[str, bytes] = {}
        self.requests: list[tuple[str, str, Any]] = []
        self.lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _answer(self, status: int, body: Any, raw: bytes | None = None) -> None:
                data = raw if raw is not None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json" if raw is None else "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                url = urlsplit(self.path)
                parts = url.path.strip("/").split("/")  # api v1 namespaces NS kind [name [log]]
                with api.lock:
                    api.requests.append((method, url.path, copy.deepcopy(body)))
                    if (
                        parts[:3] != ["api", "v1", "namespaces"]
                        or len(parts) < 5
                        or parts[4] not in ("pods", "secrets")
                    ):
                        return self._answer(404, {"kind": "Status", "code": 404})
                    store = api.pods if parts[4] == "pods" else api.secrets
                    name = parts[5] if len(parts) > 5 else None
                    if method == "POST" and name is None:
                        created = body["metadata"]["name"]
                        if created in store:
                            return self._answer(409, {"kind": "Status", "code": 409})
                        if parts[4] == "pods":
                            body["status"] = {"phase": "Pending"}
                        store[created] = body
                        return self._answer(201, body)
                    if name is None:
                        wanted = dict(
                            kv.split("=", 1)
                            for kv in parse_qs(url.query).get("labelSelector", [""])[0].split(",")
                            if kv
                        )
                        items = [o for o in store.values() if wanted.items() <= o["metadata"].get("labels", {}).items()]
                        return self._answer(200, {"items": items})
                    if name not in store:
                        return self._answer(404, {"kind": "Status", "code": 404})
                    if method == "DELETE":
                        store.pop(name)
                        return self._answer(200, {"kind": "Status", "status": "Success"})
                    if len(parts) > 6 and parts[6] == "log":
                        return self._answer(200, None, raw=api.logs.get(name, b""))
                    return self._answer(200, store[name])

            def do_GET(self) -> None:
                self._handle("GET")

            def do_POST(self) -> None:
                self._handle("POST")

            def do_DELETE(self) -> None:
                self._handle("DELETE")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def created(self, kind: str) -> list[dict[str, Any]]:
        return [body for m, path, body in self.requests if m == "POST" and path.endswith(f"/{kind}")]

    def deleted(self, kind: str) -> list[str]:
        return [path.rsplit("/", 1)[1] for m, path, _ in self.requests if m == "DELETE" and f"/{kind}/" in path]


class FakeKubelet:
    """Runs each pod of a :class:`FakeApi` in the real sandbox and reports its end in the pod's status."""

    def __init__(self, api: FakeApi, volume_root: Path) -> None:
        self.api = api
        self.volume_root = volume_root
        self.runs: dict[str, tuple[sandbox.SandboxRun, UnixProxy, Path]] = {}
        self.oom: set[str] = set()
        """Pods to end as the kubelet does at a memory limit (SIGKILL, reason OOMKilled)."""
        self.slots = iter(range(40, 60))

    def _command(self, pod: dict[str, Any]) -> sandbox.BotCommand:
        [container] = pod["spec"]["containers"]
        argv = container["command"] + container["args"]
        env = {e["name"]: e for e in container["env"]}
        token = ""
        if "valueFrom" in env["BRAWL_TOKEN"]:
            ref = env["BRAWL_TOKEN"]["valueFrom"]["secretKeyRef"]
            token = base64.b64decode(self.api.secrets[ref["name"]]["data"][ref["key"]]).decode()
        if argv[2] == sandbox.CHECK_RUNNER:
            return sandbox.BotCommand("check", argv[3])
        return sandbox.BotCommand(
            "python", argv[3], token=token, max_matches=int(argv[4]), games=tuple(argv[5].split(","))
        )

    async def _start(self, name: str, pod: dict[str, Any]) -> None:
        [container] = pod["spec"]["containers"]
        server = next(e["value"] for e in container["env"] if e["name"] == "BRAWL_SERVER")
        mount = next(m for m in container["volumeMounts"] if m["mountPath"] == "/bot")
        folder = self.volume_root / mount["subPath"]
        run_dir = Path(tempfile.mkdtemp(prefix="fake-kubelet-"))
        run_dir.chmod(0o755)
        host, _, port = server.rpartition(":")
        proxy = UnixProxy(run_dir / sandbox.SOCKET_NAME, host, int(port))
        await proxy.start()
        run = await sandbox.start(folder, run_dir, self._command(pod), slot=next(self.slots))
        self.runs[name] = (run, proxy, run_dir)
        pod["status"] = {"phase": "Running", "containerStatuses": [{"name": "bot", "state": {"running": {}}}]}

    async def _finish(self, name: str, pod: dict[str, Any] | None) -> None:
        run, proxy, run_dir = self.runs.pop(name)
        if pod is None or name in self.oom:
            await run.stop(grace=0)
        code = await run.wait()
        await proxy.stop()
        shutil.rmtree(run_dir, ignore_errors=True)
        if pod is not None:
            reason = "OOMKilled" if name in self.oom else "Completed" if code == 0 else "Error"
            exit_code = 137 if name in self.oom else code
            self.api.logs[name] = run.log.text().encode()
            state = {"terminated": {"exitCode": exit_code, "reason": reason}}
            pod["status"] = {
                "phase": "Succeeded" if code == 0 and reason == "Completed" else "Failed",
                "containerStatuses": [{"name": "bot", "state": state}],
            }

    async def run(self) -> None:
        while True:
            with self.api.lock:
                pods = dict(self.api.pods)
            for name, pod in pods.items():
                if name not in self.runs and pod["status"]["phase"] == "Pending":
                    await self._start(name, pod)
            for name in list(self.runs):
                run = self.runs[name][0]
                pod = pods.get(name)
                if pod is None or name in self.oom or run.returncode is not None:
                    await self._finish(name, pod)
            await asyncio.sleep(0.1)

    async def close(self) -> None:
        for name in list(self.runs):
            await self._finish(name, None)


@pytest.fixture
def fake_api() -> Iterator[FakeApi]:
    api = FakeApi()
    yield api
    api.close()


@pytest.mark.django_db(transaction=True)
def test_k8s_mode_validates_and_runs_a_version_as_pods_and_deletes_them(tmp_path: Path, fake_api: FakeApi) -> None:
    storage = tmp_path / "var" / "hosted"
    alice = User.objects.create_user("alice-k", password="x")
    bot, _ = bot_services.do_create_bot(alice, GAME, "Hosted-K8s")
    rival, rival_token = bot_services.do_create_bot(alice, GAME, "Connected-K8s")
    with override_settings(BRAWL_HOSTED_DIR=str(storage)):
        row = services.do_upload(
            alice, bot, "first_bot.py", (UPLOADS / "first_bot.py").read_bytes(), "first_bot:FirstBot"
        )

        async def scenario() -> None:
            from referee.sdk import BotClient

            server = create_server("127.0.0.1:0", tokens=DjangoTokenStore(), sink=MemoryResultSink(), secret="s" * 32)
            await server.start()
            kubelet = FakeKubelet(fake_api, storage.parent)
            kubelet_task = asyncio.create_task(kubelet.run())
            pods = PodLauncher(
                KubeClient(fake_api.url, "brawl"), image="brawl-ladder:test", referee=f"127.0.0.1:{server.port}"
            )
            host = BotHost(HostSettings(referee=f"127.0.0.1:{server.port}", poll=0.2, max_running=2, pods=pods))
            rival_client = BotClient(FirstBot, f"127.0.0.1:{server.port}", rival_token.token, max_matches=4)
            rival_task = asyncio.create_task(rival_client.run())
            # What a host killed earlier left behind: a pod still running, and its Secret.
            leftover = "hosted-999-run-deadhost-1"
            labels = {"app.kubernetes.io/component": "hosted-bot", "brawl.example/upload": "999"}
            fake_api.pods[leftover] = {"metadata": {"name": leftover, "labels": labels}, "status": {"phase": "Running"}}
            fake_api.secrets[leftover] = {"metadata": {"name": leftover}}
            # ... and the row of the run it never recorded the end of, with the token it issued.
            dead_token = await asyncio.to_thread(_close_db, bot_services.do_issue_token, rival)
            orphan = await asyncio.to_thread(
                _close_db,
                lambda: services.do_start_run(row, timezone.now(), host="k8s/brawl", token_id=dead_token.record.pk),
            )
            serving = asyncio.create_task(host.serve())

            async def until(check: Any, what: str, limit: float = 120) -> None:
                deadline = asyncio.get_running_loop().time() + limit
                while not await asyncio.to_thread(_close_db, check):
                    assert not serving.done(), f"the host stopped: {serving}"
                    assert asyncio.get_running_loop().time() < deadline, what
                    await asyncio.sleep(0.1)

            try:
                # The import check's pod, the validation match's pod, then the version's pod.
                await until(
                    lambda: HostedUpload.objects.get(pk=row.pk).status not in ("pending", "validating"),
                    "validation",
                )
                refreshed = await asyncio.to_thread(_close_db, lambda: HostedUpload.objects.get(pk=row.pk))
                assert refreshed.status == UploadStatus.READY, (refreshed.summary, refreshed.validation_log[-2000:])
                ids = {str(bot.pk), str(rival.pk)}
                await until(lambda: {s.identity.bot_id for s in server.referee.sessions.values()} >= ids, "connect")
                assert len(host.running) == 1 and next(iter(host.running.values())).proxy is None
                assert leftover not in fake_api.pods and leftover not in fake_api.secrets
                closed = await asyncio.to_thread(_close_db, lambda: HostedRun.objects.get(pk=orphan.pk))
                assert closed.ended is not None and closed.verdict == services.ORPHAN_VERDICT
                await asyncio.to_thread(_close_db, dead_token.record.refresh_from_db)
                assert dead_token.record.revoked_at is not None
                runner = server.referee.start_match(
                    game=GAME,
                    seats=[SeatSpec(bot_id=BotId(str(bot.pk))), SeatSpec(bot_id=BotId(str(rival.pk)))],
                    seed=3,
                    time_control=FAST.to_proto(),
                )
                await asyncio.wait_for(runner.wait(), 120)
                assert runner.state is MatchState.SUCCEEDED and runner.replay is not None
                assert not runner.replay.incidents
                # The kubelet kills the running pod at its memory limit: the host names it and deletes it.
                [name] = list(kubelet.runs)
                kubelet.oom.add(name)
                await until(lambda: name in fake_api.deleted("pods"), "the OOM-killed pod deleted")
                await until(lambda: row.pk in host.backoff or len(fake_api.created("pods")) > 3, "a restart planned")
            finally:
                host.stop()
                await asyncio.wait_for(serving, 60)  # deletes every pod it runs
                rival_client.stop()
                await asyncio.gather(rival_task, return_exceptions=True)
                kubelet_task.cancel()
                await asyncio.gather(kubelet_task, return_exceptions=True)
                await kubelet.close()
                await server.stop(0.5)

        asyncio.run(scenario())

    created = fake_api.created("pods")
    kinds = [pod["spec"]["containers"][0]["args"][1] for pod in created]
    assert kinds[:3] == [sandbox.CHECK_RUNNER, sandbox.PYTHON_RUNNER, sandbox.PYTHON_RUNNER]
    for pod in created:
        kubernetes_validate.validate(pod, "1.30", strict=True)
        [container] = pod["spec"]["containers"]
        assert pod["metadata"]["labels"]["app.kubernetes.io/component"] == "hosted-bot"
        assert container["securityContext"]["readOnlyRootFilesystem"] is True
        assert container["resources"]["limits"] == {"cpu": "500m", "memory": str(512 * 1024 * 1024)}
        # A token only ever comes from the run's Secret, never as a value in the pod spec.
        assert not any(e.get("value") for e in container["env"] if e["name"] == "BRAWL_TOKEN")
    # Every pod and every Secret the host created is gone, and so is what the dead host left.
    assert {p["metadata"]["name"] for p in created} | {"hosted-999-run-deadhost-1"} == set(fake_api.deleted("pods"))
    secrets = {s["metadata"]["name"] for s in fake_api.created("secrets")}
    assert secrets | {"hosted-999-run-deadhost-1"} == set(fake_api.deleted("secrets"))
    assert not fake_api.pods and not fake_api.secrets
    assert len(fake_api.created("secrets")) == len(created) - 1  # the import check has no token
    runs = HostedRun.objects.filter(upload_id=row.pk).exclude(host="k8s/brawl", verdict=services.ORPHAN_VERDICT)
    verdicts = list(runs.order_by("started").values_list("verdict", flat=True))
    assert verdicts[0] == "out of memory (memory limit reached)", verdicts
    assert all(v in ("out of memory (memory limit reached)", "stopped by the host", "running") for v in verdicts)


def test_brawl_host_mode_k8s_flags_make_a_pod_launcher(fake_api: FakeApi) -> None:
    from service.cli import build_parser
    from workers.hosting.host import k8s_settings
    from workers.hosting.k8s import KubeError

    args = build_parser().parse_args(
        ["host", "--mode", "k8s", "--k8s-api", fake_api.url, "--k8s-namespace", "bots", "--server", "referee:50051",
         "--k8s-image", "brawl-ladder:9", "--validation-port", "50099", "--advertise", "10.1.2.3"]
    )  # fmt: skip
    settings = k8s_settings(args, sandbox.Limits())
    pods = settings["pods"]
    assert (pods.client.api, pods.client.namespace, pods.image, pods.referee) == (
        fake_api.url, "bots", "brawl-ladder:9", "referee:50051"
    )  # fmt: skip
    assert settings["validation_bind"] == "0.0.0.0:50099" and settings["validation_advertise"] == "10.1.2.3"
    # Outside a pod, with no API given, the host says what is missing instead of guessing.
    with pytest.raises(KubeError, match="not in a pod"):
        KubeClient.in_cluster()
