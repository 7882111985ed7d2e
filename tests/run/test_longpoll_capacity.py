"""Fifty long-polls do not take the site down, nor the bots' logins with it (issue 24, finding 5).

Real processes: ``brawl web`` (gunicorn, one worker of 4 threads, embedded SQLite and file cache)
with its internal API on its own listener (``--internal-addr``), and ``brawl referee`` in ladder
mode with no database credentials, checking tokens at that listener. A match is started on the
referee and waits for its two bots; 50 anonymous ``live/?wait=20`` long-polls are sent for it.
The process has 2 waiting slots (``BRAWL_LONGPOLL_SLOTS``): 2 long-polls wait, the other 48 are
answered at once with ``Retry-After``. While the 2 are held, ``/healthz`` answers, and both bots
connect (their tokens checked through the web tier) and play the match, whose first decision is
what answers the held long-polls. Before the fix every long-poll held a thread: nothing answered,
``/healthz`` queued behind them and the referee refused the bots ``UNAVAILABLE``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from referee import client as referee_client
from referee.core.contract import Decision, Option
from referee.sdk import BotClient
from tests.workers.stack import free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
BRAWL = [sys.executable, "-m", "service.cli"]
SECRET = "longpoll-" + secrets.token_urlsafe(24)
LONG_POLLS = 50
SLOTS = 2
GAME = "scrumbrawl"

SETUP = """
import json
from django.contrib.auth.models import User
from webapp.bots import services as bots
from webapp.matches import services as matches
owner = User.objects.create_user("poller", password="correct horse battery")
made = [bots.do_create_bot(owner, "scrumbrawl", name) for name in ("alpha-bot", "beta-bot")]
match = matches.do_queue_match(
    "scrumbrawl", [b.latest_version for b, _ in made], rated=False, config={"max_rounds": 2}
)
matches.do_start_match(match.pk, REFEREE)
print(json.dumps({"match": match.pk, "seed": match.seed, "bots": [str(b.pk) for b, _ in made],
                  "names": [b.name for b, _ in made], "tokens": [t.token for _, t in made]}))
"""


class RandomBot:
    """Chooses a random legal option."""

    def __init__(self) -> None:
        self.rng = random.Random(5)

    def choose(self, decision: Decision, observation: dict[str, Any], options: Sequence[Option]) -> str:
        return self.rng.choice(list(options)).id


def _env(var: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE") and not k.startswith("PG")
    }
    env.update(PYTHONPATH=f"{ROOT}:{ROOT / 'proto'}", BRAWL_VAR_DIR=str(var), BRAWL_INTERNAL_TOKEN=SECRET)
    return env


def _listening(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture
def stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """``brawl web`` and a ladder ``brawl referee`` checking tokens at the web's internal listener."""
    monkeypatch.setenv("BRAWL_INTERNAL_TOKEN", SECRET)
    web, internal = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    bots, ref_internal = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    procs: list[subprocess.Popen[bytes]] = []

    def spawn(name: str, args: list[str], env: dict[str, str]) -> None:
        out = open(tmp_path / f"{name}.log", "wb")  # noqa: SIM115 - the child writes it
        procs.append(subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT))
        out.close()

    web_env = {**_env(tmp_path), "BRAWL_LONGPOLL_SLOTS": str(SLOTS)}
    spawn("web", [*BRAWL, "web", "--addr", web, "--internal-addr", internal, "--workers", "1"], web_env)
    ref_env = {**_env(tmp_path / "referee"), "BRAWL_WEB_INTERNAL_URL": f"http://{internal}"}
    spawn("referee", [*BRAWL, "referee", "--listen", bots, "--internal-listen", ref_internal, "--grace=1"], ref_env)
    try:
        wait_until(lambda: _listening(f"http://{web}/healthz"), 90, "the web site")
        wait_until(lambda: referee_client.list_bots(ref_internal, GAME)[0], 60, "the referee")
        setup = subprocess.run(
            [sys.executable, "-c", "import django; django.setup()\n" + SETUP.replace("REFEREE", repr(ref_internal))],
            cwd=ROOT,
            env={**_env(tmp_path), "DJANGO_SETTINGS_MODULE": "webapp.settings"},
            capture_output=True,
            text=True,
            check=True,
        )
        data = json.loads(setup.stdout.strip().splitlines()[-1])
        referee_client.start_match(
            ref_internal,
            request_id=f"lp-{data['match']}",
            match_id=str(data["match"]),
            game=GAME,
            bot_ids=data["bots"],
            names=data["names"],
            config={"max_rounds": 2},
            seed=data["seed"],
            join_timeout=120,
            labels={},
        )
        yield {**data, "web": web, "bot_port": bots, "logs": tmp_path}
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


class LongPolls:
    """``count`` long-polls of a match's live view, each in its own thread, answers kept by index."""

    def __init__(self, url: str, count: int) -> None:
        self.answers: dict[int, tuple[int, dict[str, str], dict[str, Any]]] = {}
        self.cond = threading.Condition()
        for i in range(count):
            threading.Thread(target=self._poll, args=(i, url), daemon=True).start()

    def _poll(self, i: int, url: str) -> None:
        try:
            with urllib.request.urlopen(url, timeout=120) as response:
                answer = (int(response.status), dict(response.headers), json.loads(response.read()))
        except urllib.error.HTTPError as exc:
            answer = (int(exc.code), dict(exc.headers), {})
        except OSError as exc:
            answer = (0, {}, {"error": repr(exc)})
        with self.cond:
            self.answers[i] = answer
            self.cond.notify_all()

    def wait_for(self, count: int, timeout: float) -> list[tuple[int, dict[str, str], dict[str, Any]]]:
        with self.cond:
            ok = self.cond.wait_for(lambda: len(self.answers) >= count, timeout=timeout)
            assert ok, f"only {len(self.answers)} of the long-polls were answered, {count} expected"
            return list(self.answers.values())


def test_fifty_long_polls_leave_healthz_and_bot_logins_working(stack: dict[str, Any]) -> None:
    web = stack["web"]
    polls = LongPolls(f"http://{web}/api/v1/matches/{stack['match']}/live/?since=0&wait=20", LONG_POLLS)
    # Every long-poll beyond the process's waiting slots is answered at once, telling when to retry.
    refused = polls.wait_for(LONG_POLLS - SLOTS, timeout=60)
    assert all(status == 200 and headers.get("Retry-After") == "3" for status, headers, _ in refused), refused[:3]
    assert all(body["retry_after"] == 3 and body["frames"] == [] for _, _, body in refused)

    started = time.perf_counter()
    with urllib.request.urlopen(f"http://{web}/healthz", timeout=30) as response:
        assert (response.status, response.read()) == (200, b"ok")
    latency_ms = (time.perf_counter() - started) * 1000
    print(f"/healthz answered in {latency_ms:.1f} ms with {SLOTS} long-polls held and {len(refused)} refused")
    with polls.cond:
        assert len(polls.answers) == LONG_POLLS - SLOTS, "a held long-poll was answered before any decision"

    # Both bots connect (each token checked by the web tier) and play the match the long-polls watch.
    results: list[BaseException | None] = []

    def play(token: str) -> None:
        client = BotClient(RandomBot, stack["bot_port"], token, games=[GAME], reconnect=False)
        try:
            asyncio.run(client.run(matches=1))
            results.append(None)
        except BaseException as exc:
            results.append(exc)

    players = [threading.Thread(target=play, args=(token,), daemon=True) for token in stack["tokens"]]
    for player in players:
        player.start()
    for player in players:
        player.join(timeout=120)
    assert results == [None, None], results
    held = [a for i, a in polls.answers.items() if i not in dict(enumerate(refused))]
    answers = polls.wait_for(LONG_POLLS, timeout=60)
    waited = [body for status, headers, body in answers if "Retry-After" not in headers]
    assert len(waited) == SLOTS and all(body["live"] and body["frames"] for body in waited), (held, waited)
