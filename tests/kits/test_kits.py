"""The Go, C++ and Java starter kits (examples/{go,cpp,java}-bot) build and play through a real referee.

Each kit is built with ``scripts/build-kit.sh`` (offline, from the .proto files and Debian's gRPC
packages; ``scripts/kits.sh`` installs them when it may). A missing toolchain or a broken build
fails the test with the build's output: it is never skipped. Then each kit's hello bot plays five
matches of each game against a house bot on one stream, through a real referee on loopback; in the
first match of each game every observation it rebuilt from the referee's patches must equal the
seat's whole observation at that decision. A bot that thinks past its deadline (built from a folder
of its own, as an author's is) gets the default option answered for it by the kit, in time (no
strike), and its pings answered meanwhile. When its stream is cut mid-match the kit reconnects
(trying the next address of its list) and finishes the match. It plays over TLS when it trusts the
referee's certificate, and cannot connect in plaintext or without trusting it. A wrong token and
an unreachable referee must end it with a clear message.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from referee.core.replay import Decision, Replay, verify
from referee.protocol.timecontrol import TimeSettings
from referee.server.match import MatchState
from referee.server.service import TlsFiles
from tests.referee.harness import eventually, referee_env
from tests.referee.test_deltas import expected_observations, own_numbers, without_nulls
from tests.referee.test_tls import certificate  # noqa: F401 (a fixture: a self-signed certificate for 127.0.0.1)

ROOT = Path(__file__).resolve().parents[2]
KITS = ["go", "cpp", "java"]
PRODUCT_GAMES = ["scrumbrawl", "superfantasybrawl"]
MATCHES_PER_GAME = 5

CALM = TimeSettings(decision_time=10, bank_time=60, max_overrun=5, max_strikes=3, reconnect_grace=20)
"""Long clocks: a kit's first decisions (a cold JVM) must not time out on a loaded machine."""

SLOW_BOTS = Path(__file__).resolve().parent / "bots"
"""Test bots built with each kit (``build-kit.sh KIT FOLDER``): ``slowbot`` thinks past every deadline."""

_built: dict[tuple[str, str], Path] = {}


def hello_bot(kit: str, folder: str = "") -> Path:
    """Builds the kit (incrementally) once per test process and returns its hello bot (or the bot in ``folder``)."""
    if (kit, folder) not in _built:
        result = subprocess.run(
            ["bash", str(ROOT / "scripts" / "build-kit.sh"), kit, *([folder] if folder else [])],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert result.returncode == 0, f"the {kit} kit does not build:\n{result.stdout}\n{result.stderr}"
        path = Path(result.stdout.strip().splitlines()[-1])
        assert path.is_file(), path
        _built[(kit, folder)] = path
    return _built[(kit, folder)]


JAVA_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""The Java launcher's JVM options here: a JVM that starts with less work (a test starts many)."""


async def run(cmd: list[str], timeout: float) -> tuple[int, str, str]:
    env = {**os.environ, "JAVA_OPTS": JAVA_OPTS}
    proc = await asyncio.create_subprocess_exec(*cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        out, err = await proc.communicate()
        pytest.fail(f"{cmd[0]} did not exit within {timeout:g} s:\n{out.decode()}\n{err.decode()}")
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def closed_port() -> str:
    """A loopback address nobody listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def check_observations(replay: Replay, match_id: str, dump: Path) -> int:
    """Compares every observation the kit dumped for ``match_id`` with the seat's whole one."""
    # A request's decision_number counts the seat's own decisions.
    want = dict(zip(own_numbers(replay), expected_observations(replay), strict=True))
    checked = 0
    for line in dump.read_text().splitlines():
        row = json.loads(line)
        if row["match_id"] == match_id:
            key = (row["seat"], row["decision_number"])
            assert without_nulls(row["observation"]) == want[key], (match_id, key)
            checked += 1
    return checked


@pytest.mark.parametrize("kit", KITS)
def test_kit_builds_and_plays_both_games(kit: str, tmp_path: Path) -> None:
    bot = hello_bot(kit)
    dump = tmp_path / "observations.jsonl"
    total = MATCHES_PER_GAME * len(PRODUCT_GAMES)

    async def scenario() -> None:
        async with referee_env() as env:
            play = asyncio.create_task(
                run(
                    [
                        str(bot),
                        "--server",
                        env.address,
                        "--token",
                        env.token(kit),
                        "--max-matches",
                        str(total),
                        "--matches",
                        str(total),
                        "--observations",
                        str(dump),
                    ],
                    timeout=300,
                )
            )
            # Seats alternate: the kit is seat 0 in even matches, seat 1 in odd ones.
            runners = [
                env.start(game, [kit, "house:random"][:: 1 if n % 2 == 0 else -1], seed=n, time=CALM, join_timeout=60)
                for game in PRODUCT_GAMES
                for n in range(MATCHES_PER_GAME)
            ]
            status, out, err = await play
            assert status == 0, out + err
            assert f"connected as {kit.upper()}" in out, out
            assert out.count("over: rank") == total, out
            for r in runners:
                await asyncio.wait_for(r.wait(), 30)
                assert r.state is MatchState.SUCCEEDED and r.replay is not None, r.error
                assert not r.replay.incidents, r.replay.incidents
                mine = [d for d in r.replay.decisions if d.note.startswith(f"{kit}: round ")]
                assert mine, "the kit's notes are missing from the replay"
            # Replaying a match to rebuild each whole observation costs more than playing it: the
            # first match of each game is checked decision by decision (the kit in seat 0).
            checked = [r for r in runners[::MATCHES_PER_GAME] if r.replay is not None]
            for r in checked:
                assert r.replay is not None
                verify(r.replay)
                mine_total = sum(1 for d in r.replay.decisions if d.seat == 0)
                assert check_observations(r.replay, r.match_id, dump) == mine_total, r.name

    asyncio.run(scenario())


@pytest.mark.parametrize("kit", KITS)
def test_kit_reconnects_when_its_stream_is_cut_and_finishes_the_match(kit: str, tmp_path: Path) -> None:
    bot = hello_bot(kit)
    dump = tmp_path / "observations.jsonl"

    async def scenario() -> None:
        async with referee_env() as env:
            # The first address listens to nobody: the kit goes on to the next, at first and after the cut.
            servers = f"{closed_port()},{env.address}"
            cmd = [str(bot), "--server", servers, "--token", env.token(kit), "--matches", "1"]
            play = asyncio.create_task(run([*cmd, "--observations", str(dump)], timeout=120))
            r = env.start("superfantasybrawl", [kit, "house:random"], seed=11, time=CALM, join_timeout=60)
            await eventually(lambda: len(r.recorder.replay.decisions) >= 20, "20 decisions of the match", 60)
            session = next(s for s in env.referee.sessions.values() if s.identity.bot_id == kit)
            env.referee.close_session(session)  # the stream ends, as when the network drops it
            status, out, err = await play
            assert status == 0, out + err
            assert "stream broke" in err and "(resumed)" in out, out + err
            await asyncio.wait_for(r.wait(), 30)
            assert r.state is MatchState.SUCCEEDED and r.replay is not None, r.error
            assert [i.kind.value for i in r.replay.incidents] == ["disconnect", "reconnect"], r.replay.incidents
            verify(r.replay)
            assert check_observations(r.replay, r.match_id, dump) > 20

    asyncio.run(scenario())


@pytest.mark.parametrize("kit", KITS)
def test_kit_refuses_a_wrong_token_and_an_unreachable_referee(kit: str) -> None:
    bot = hello_bot(kit)
    closed = closed_port()

    async def scenario() -> None:
        async with referee_env() as env:
            status, out, err = await run([str(bot), "--server", env.address, "--token", "brawl_wrong"], timeout=60)
            assert status == 2, out + err
            assert "error: the referee refused the bot: unknown or revoked token" in err, err
        status, out, err = await run(
            [str(bot), "--server", closed, "--token", "brawl_x", "--connect-timeout", "1s"], 60
        )
        assert status == 3, out + err
        assert f"error: cannot reach the referee at {closed}" in err, err

    asyncio.run(scenario())


@pytest.mark.parametrize("kit", KITS)
def test_kit_plays_over_tls_and_cannot_connect_without_trusting_the_referee(
    kit: str,
    certificate: TlsFiles,  # noqa: F811
) -> None:
    bot = hello_bot(kit)

    async def scenario() -> None:
        async with referee_env(tls=certificate) as env:
            token = env.token(kit)
            cmd = [str(bot), "--server", env.address, "--token", token]
            play = asyncio.create_task(run([*cmd, "--tls", "--ca", str(certificate.cert), "--matches", "1"], 120))
            r = env.start("superfantasybrawl", [kit, "house:random"], seed=5, time=CALM, join_timeout=60)
            status, out, err = await play
            assert status == 0, out + err
            await asyncio.wait_for(r.wait(), 30)
            assert r.state is MatchState.SUCCEEDED and r.replay is not None, r.error
            assert not r.replay.incidents, r.replay.incidents
            # Plaintext against the TLS port, and TLS trusting only the default roots: no session.
            for extra in ([], ["--tls"]):
                status, out, err = await run([*cmd, *extra, "--connect-timeout", "1s"], 60)
                assert status == 3, (extra, out + err)
                assert f"error: cannot reach the referee at {env.address}" in err, err
            assert not [s for s in env.referee.sessions.values() if not s.closed]

    asyncio.run(scenario())


SHORT = TimeSettings(decision_time=1.0, bank_time=5, max_overrun=0.5, max_strikes=3, reconnect_grace=1.0)
"""A deadline of about 1.5 s: the slow bot misses it on every decision."""


@pytest.mark.parametrize("kit", KITS)
def test_kit_answers_the_default_in_time_for_a_bot_that_thinks_too_long(kit: str) -> None:
    bot = hello_bot(kit, str(SLOW_BOTS / kit / "slowbot"))

    async def scenario() -> None:
        async with referee_env() as env:
            proc = await asyncio.create_subprocess_exec(
                str(bot),
                "--server",
                env.address,
                "--token",
                env.token(kit),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, "JAVA_OPTS": JAVA_OPTS},
            )
            try:
                r = env.start("superfantasybrawl", [kit, "house:random"], seed=2, time=SHORT, join_timeout=60)

                def mine() -> list[Decision]:
                    return [d for d in r.recorder.replay.decisions if d.seat == 0]

                await eventually(lambda: len(mine()) >= 2 or r.is_over(), "two decisions of the slow bot's seat", 60)
                # The kit's answer, sent a little before the deadline: recorded as the bot's own, and
                # no strike. (A machine so loaded that one came late would show a referee default.)
                answered = [d for d in mine() if d.source == "bot" and d.note == "out of time: default"]
                assert answered, [(d.source, d.note) for d in mine()]
                assert all(d.note != f"{kit}: too late" for d in mine()), "a late answer was taken"
                # Pings were answered while the bot thought: the referee measured round trips.
                session = next(s for s in env.referee.sessions.values() if s.identity.bot_id == kit)
                assert session.rtt_credit(1.0) > 0, "no pong came back"
            finally:
                proc.kill()
                await proc.wait()

    asyncio.run(scenario())
