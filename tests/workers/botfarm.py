"""Runs many SDK bot clients in one process (cheaper than a process per bot on a small machine).

``python -m tests.workers.botfarm --server HOST:PORT SPEC.json`` where the spec is a list of
``{"bot": "module:Class", "token": "...", "max_matches": 4}``. Each entry is a real
:class:`referee.sdk.BotClient` with its own gRPC stream and token; the process runs until SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
from pathlib import Path

from referee.sdk import BotClient
from referee.sdk.client import load_object


async def run(server: str, spec: list[dict[str, object]]) -> None:
    clients = [
        BotClient(
            load_object(str(entry["bot"])),
            server,
            str(entry["token"]),
            max_matches=int(entry.get("max_matches", 4)),  # type: ignore[call-overload]
            threaded=False,
        )
        for entry in spec
    ]
    tasks = [asyncio.create_task(c.run()) for c in clients]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for c in clients:
        c.stop()
    await asyncio.gather(*tasks, return_exceptions=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("spec", type=Path)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    asyncio.run(run(args.server, json.loads(args.spec.read_text())))


if __name__ == "__main__":
    main()
