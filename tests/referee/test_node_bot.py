"""The Node.js example bot plays full matches against a real referee.

Runs ``npm ci`` first when ``node_modules`` is missing. Node is required: without it the test
fails with a message saying so (it is never skipped).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.core.replay import verify
from referee.server.match import MatchState
from tests.referee.bots import FirstBot
from tests.referee.harness import GAMES, referee_env

NODE_BOT = Path(__file__).resolve().parents[2] / "examples" / "node-bot"


def ensure_node_modules() -> str:
    node = shutil.which("node")
    npm = shutil.which("npm")
    assert node and npm, "node and npm are required for the Node.js example bot test (install Node.js 18+)"
    if not (NODE_BOT / "node_modules" / "@grpc" / "grpc-js").is_dir():
        result = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=NODE_BOT,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert result.returncode == 0, f"npm ci failed:\n{result.stdout}\n{result.stderr}"
    return node


@pytest.mark.parametrize("game", GAMES)
def test_node_bot_plays_full_matches(game: str) -> None:
    node = ensure_node_modules()

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "py", games=[game])
            token = env.token("node")
            proc = await asyncio.create_subprocess_exec(
                node,
                "bot.js",
                "--server",
                env.address,
                "--token",
                token,
                "--games",
                game,
                "--matches",
                "2",
                cwd=NODE_BOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            runners = [
                env.start(game, seats, seed=n, join_timeout=20)
                for n, seats in enumerate([["node", "py"], ["py", "node"]])
            ]
            status = await asyncio.wait_for(proc.wait(), 60)
            out = (await proc.stdout.read()).decode()  # type: ignore[union-attr]
            err = (await proc.stderr.read()).decode()  # type: ignore[union-attr]
            assert status == 0, out + err
            assert "connected as NODE" in out and out.count("over: rank") == 2
            for r in runners:
                await asyncio.wait_for(r.wait(), 10)
                assert r.state is MatchState.SUCCEEDED and r.replay is not None
                assert not r.replay.incidents, r.replay.incidents
                assert any(d.note == "node" for d in r.replay.decisions)
                verify(r.replay)

            bad = await asyncio.create_subprocess_exec(
                node,
                "bot.js",
                "--server",
                env.address,
                "--token",
                "brawl_wrong",
                cwd=NODE_BOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            assert await asyncio.wait_for(bad.wait(), 30) == 2
            assert "unknown or revoked token" in (await bad.stderr.read()).decode()  # type: ignore[union-attr]

    asyncio.run(scenario())
