"""The validation match a new hosted version plays before it enters the ladder (as Kaggle does).

The host starts a private referee on loopback (its own token store and result sink: the match is
not rated and not published), runs the version in the sandbox exactly as on the ladder (same
limits, same Unix-socket proxy), and plays one match against the game's ``random`` house bot.
The version passes if that match ends normally (not by forfeit, not cancelled) with no incident
charged to its seat; the author sees the bot's log and the verdict either way.
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common.seeding import new_seed
from referee.core.contract import Termination
from referee.core.ids import BotId
from referee.protocol.timecontrol import TimeSettings
from referee.server.auth import BotIdentity, MemoryTokenStore
from referee.server.hub import RefereeSettings
from referee.server.match import MatchState, SeatSpec
from referee.server.service import create_server
from referee.server.sinks import MemoryResultSink
from workers.hosting import sandbox
from workers.hosting.proxy import UnixProxy

VALIDATION_TIME = TimeSettings(
    decision_time=1.0, bank_time=10.0, max_overrun=0.5, max_strikes=3, reconnect_grace=2.0, max_rtt_credit=0.05
)
"""Time control of the validation match (the ladder's own is not shorter than this)."""


@dataclass(frozen=True)
class ValidationResult:
    """What the author sees after the validation match."""

    passed: bool
    summary: str
    """One line: why it passed or failed."""
    log: str
    """The bot's stdout and stderr (bounded) and the verdict."""


async def validate(
    bot_dir: Path,
    command: sandbox.BotCommand,
    game: str,
    *,
    slot: int,
    limits: sandbox.Limits | None = None,
    connect_timeout: float = 30.0,
    match_timeout: float = 300.0,
    seed: int | None = None,
    launch: Callable[[sandbox.BotCommand, str], Awaitable[Any]] | None = None,
    bind: str = "127.0.0.1:0",
    advertise: str = "127.0.0.1",
) -> ValidationResult:
    """Plays one private match of ``game``: the sandboxed version against the ``random`` house bot.

    ``launch`` starts the bot elsewhere than in a local sandbox (``brawl host --mode k8s``: a pod);
    it gets the command and the private referee's address (``advertise:PORT``; the referee listens
    on ``bind``), and returns a run with ``returncode``, ``refresh``, ``stop``, ``log`` and ``verdict``.
    The match is played on ``seed``, by default a fresh secret one (a constant would tell the
    candidate the house bot's hand); the house bot draws its own randomness.
    """
    store = MemoryTokenStore()
    token = store.issue(BotIdentity(BotId("candidate"), "candidate", "candidate", "validation", frozenset({game})))
    server = create_server(
        bind,
        tokens=store,
        sink=MemoryResultSink(),
        settings=RefereeSettings(ping_interval=1.0),
        secret="validation-" + secrets.token_urlsafe(24),
    )
    await server.start()
    run_dir = Path(tempfile.mkdtemp(prefix="brawl-validate-"))
    run_dir.chmod(0o755)
    cmd = sandbox.BotCommand(command.kind, command.entry, token=token, max_matches=1, games=(game,))
    proxy: UnixProxy | None = None
    run: Any
    if launch is None:
        proxy = UnixProxy(run_dir / sandbox.SOCKET_NAME, "127.0.0.1", server.port)
        await proxy.start()
        run = await sandbox.start(bot_dir, run_dir, cmd, slot=slot, limits=limits)
    else:
        run = await launch(cmd, f"{advertise}:{server.port}")
    try:
        deadline = asyncio.get_running_loop().time() + connect_timeout
        while not any(s.identity.bot_id == "candidate" for s in server.referee.sessions.values()):
            await run.refresh()
            if run.returncode is not None or asyncio.get_running_loop().time() > deadline:
                await run.stop()
                what = run.verdict() if run.returncode is not None else "no Hello within the time allowed"
                return ValidationResult(False, f"the bot never connected ({what})", run.log.text())
            await asyncio.sleep(0.05)
        runner = server.referee.start_match(
            game=game,
            seats=[SeatSpec(bot_id=BotId("candidate")), SeatSpec(house_bot="random")],
            seed=new_seed() if seed is None else seed,
            time_control=VALIDATION_TIME.to_proto(),
        )
        try:
            await asyncio.wait_for(runner.wait(), match_timeout)
        except TimeoutError:
            await run.stop()
            return ValidationResult(False, f"the match did not end within {match_timeout:.0f} s", run.log.text())
        await run.stop()
        outcome = runner.replay.outcome if runner.replay is not None else None
        incidents = [i for i in (runner.replay.incidents if runner.replay else []) if int(i.seat) == 0]
        verdict = run.verdict()
        log = run.log.text() + f"\n[sandbox: {verdict}]"
        # How the sandbox ended the bot comes first: a crash, a limit or the syscall filter named
        # is clearer to the author than the forfeit it caused.
        if verdict not in ("stopped by the host", "exited normally"):
            return ValidationResult(False, f"the bot's run ended: {verdict}", log)
        if runner.state is not MatchState.SUCCEEDED or outcome is None:
            return ValidationResult(False, f"the match failed ({runner.error or runner.state})", log)
        if outcome.termination in (Termination.FORFEIT, Termination.CANCELLED):
            return ValidationResult(False, f"the match ended by {outcome.termination.value}", log)
        if incidents:
            return ValidationResult(
                False, f"incidents on the bot's seat: {'; '.join(f'{i.kind} {i.detail}' for i in incidents[:3])}", log
            )
        return ValidationResult(True, f"finished a {game} match ({outcome.termination.value})", log)
    finally:
        await run.stop()
        if proxy is not None:
            await proxy.stop()
        await server.stop(0.5)
        shutil.rmtree(run_dir, ignore_errors=True)
