"""The import check of an uploaded bot: its entry point loaded in the sandbox.

The checks that run nothing (size, layout, syntax) and the storage are the web app's
(``webapp.hosting.checks``), which accepts uploads; this one needs the sandbox, so it runs on a host.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

from workers.hosting import sandbox


async def import_check(bot_dir: Path, entry: str, *, slot: int, timeout: float = 30.0) -> tuple[bool, str]:
    """Loads a Python upload's entry point in the sandbox; returns (ok, log).

    The check imports the module and builds the bot, with no referee to talk to; a module that runs
    forever at import, or exceeds a limit, fails with the verdict in the log.
    """
    socket_dir = Path(tempfile.mkdtemp(prefix="brawl-check-"))
    socket_dir.chmod(0o755)
    try:
        run = await sandbox.start(bot_dir, socket_dir, sandbox.BotCommand("check", entry), slot=slot)
        try:
            status = await run.wait(timeout)
        except TimeoutError:
            await run.stop()
            return False, run.log.text() + f"\n[import check: no answer within {timeout:.0f} s]"
        text = run.log.text()
        if status != 0:
            return False, text + f"\n[import check: {run.verdict()}]"
        return True, text
    finally:
        shutil.rmtree(socket_dir, ignore_errors=True)


def run_import_check(bot_dir: Path, entry: str, *, slot: int, timeout: float = 30.0) -> tuple[bool, str]:
    """:func:`import_check` for synchronous callers."""
    return asyncio.run(import_check(bot_dir, entry, slot=slot, timeout=timeout))
