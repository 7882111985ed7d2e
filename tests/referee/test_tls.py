"""TLS on the bot port: the referee serves TLS when given a certificate and key; the SDK and
``brawl bot run`` connect with ``--tls`` and ``--ca``.

Partitions: client with TLS and the right CA (plays a match, in-process and as a ``brawl bot run``
process); plaintext client against a TLS port; TLS client trusting only the system's roots; the
internal listener stays plaintext on loopback. The certificate is made in the test with the
openssl binary, for ``localhost`` and ``127.0.0.1``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.sdk import BotClient
from referee.server.service import TlsFiles
from tests.referee.bots import FirstBot
from tests.referee.harness import FAST, referee_env, wait_connected

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    """A self-signed certificate for localhost and 127.0.0.1 (it is its own CA)."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    return TlsFiles(cert, key)


def test_a_tls_bot_plays_and_plaintext_or_untrusted_clients_cannot_connect(certificate: TlsFiles) -> None:
    async def scenario() -> None:
        async with referee_env(tls=certificate) as env:
            token = env.token("secure")
            client = BotClient(FirstBot, env.address, token, games=["tinygame"], tls=True, ca=certificate.cert)
            task = asyncio.create_task(client.run())
            await wait_connected(env, "secure")
            runner = env.start("tinygame", ["secure", "house:random"], time=FAST)
            replay = await runner.wait()
            assert replay is not None and all(d.source == "bot" for d in replay.decisions if d.seat == 0)
            client.stop()
            await task

            for kw in ({}, {"tls": True}):  # plaintext; TLS trusting only the system's roots
                stranger = BotClient(FirstBot, env.address, token, reconnect=False, **kw)  # type: ignore[arg-type]
                await asyncio.wait_for(stranger.run(), 20)
                assert stranger.welcome is None and stranger.connections == 1
            assert not [s for s in env.referee.sessions.values() if not s.closed]

    asyncio.run(scenario())


def test_a_ca_file_without_tls_is_refused() -> None:
    with pytest.raises(ValueError, match="only makes sense with TLS"):
        BotClient(FirstBot, "127.0.0.1:1", "t", ca="ca.pem")


def test_brawl_bot_run_connects_with_tls_and_a_ca_file(certificate: TlsFiles) -> None:
    async def scenario() -> None:
        async with referee_env(tls=certificate) as env:
            token = env.token("cli-bot")
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "service.cli",
                *("bot", "run", "tests.referee.bots:FirstBot", "--server", env.address, "--token", token),
                *("--games", "tinygame", "--matches", "1", "--tls", "--ca", str(certificate.cert)),
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
            try:
                await wait_connected(env, "cli-bot", timeout=30)
                runner = env.start("tinygame", ["cli-bot", "house:random"], time=FAST)
                assert await runner.wait() is not None
                out, _ = await asyncio.wait_for(proc.communicate(), 30)
            finally:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
            assert proc.returncode == 0, out.decode()
            refused = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "service.cli",
                *("bot", "run", "tests.referee.bots:FirstBot", "--token", token, "--ca", str(certificate.cert)),
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
            out, _ = await asyncio.wait_for(refused.communicate(), 30)
            assert refused.returncode == 2 and b"--ca needs --tls" in out

    asyncio.run(scenario())


def test_the_node_example_bot_plays_over_tls(certificate: TlsFiles) -> None:
    from tests.referee.test_node_bot import NODE_BOT, ensure_node_modules

    node = ensure_node_modules()

    async def scenario() -> None:
        async with referee_env(tls=certificate) as env:
            token = env.token("node-tls")
            proc = await asyncio.create_subprocess_exec(
                node,
                "bot.js",
                *("--server", env.address, "--token", token, "--games", "tinygame", "--matches", "1"),
                *("--tls", "--ca", str(certificate.cert)),
                cwd=NODE_BOT,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
            try:
                runner = env.start("tinygame", ["node-tls", "house:random"], time=FAST, join_timeout=20)
                replay = await asyncio.wait_for(runner.wait(), 40)
                out, _ = await asyncio.wait_for(proc.communicate(), 30)
            finally:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
            assert proc.returncode == 0, out.decode()
            assert replay is not None and any(d.source == "bot" and d.seat == 0 for d in replay.decisions)

    asyncio.run(scenario())
