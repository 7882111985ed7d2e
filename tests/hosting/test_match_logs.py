"""Per-match output of hosted bots: the sandboxed SDK tags each line with its match, the host splits
the run's output into one bounded slice per match, and a crash is charged to the match it hit."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from typing import Any

import pytest

from referee.server.match import MatchState
from tests.hosting.test_sandbox import GAME, TIME, hosted
from tests.referee.bots import FirstBot
from tests.referee.harness import referee_env
from workers.hosting import matchtag
from workers.hosting.host import Running, _changed_slices

needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None or os.geteuid() != 0, reason="needs bubblewrap and root"
)


def test_the_splitter_removes_tags_keeps_matches_apart_and_bounds_each_slice() -> None:
    s = matchtag.Splitter(clock=lambda: 0.0)
    out = s.feed(
        b"boot\n\x1e7\x1d+\n\x1e7\x1fone in 7\n\x1e8\x1d+\n\x1e8\x1ftwo in 8\nuntagged\n\x1e7\x1d-\nlate\npart"
    )
    assert out == b"boot\none in 7\ntwo in 8\nuntagged\nlate\n"  # the run's log: tags and marks gone
    assert s.flush() == b"part"
    assert s.slices["7"].text() == "00:00:00.000 one in 7\n00:00:00.000 untagged\n"
    # An untagged line goes to the matches open when it came; "boot" came before any match.
    assert s.slices["8"].text() == "00:00:00.000 two in 8\n00:00:00.000 untagged\n00:00:00.000 late\n00:00:00.000 part"
    assert s.open_matches() == ["8"] and s.slices["7"].ended == 0.0
    # A chatty match keeps its first and last half of SLICE_LIMIT, with the cut named.
    big = matchtag.Splitter(clock=lambda: 0.0)
    big.feed(
        b"\x1e9\x1ffirst line\n" + b"".join(b"\x1e9\x1f" + b"y" * 99 + b"\n" for _ in range(2000)) + b"\x1e9\x1flast\n"
    )
    text = big.slices["9"].text()
    assert text.startswith("00:00:00.000 first line\n") and text.endswith("last\n") and "bytes cut" in text
    assert len(text.encode()) <= matchtag.SLICE_LIMIT + 40
    # A line with no end is cut at LINE_LIMIT, so the host's buffer stays bounded.
    assert len(big.feed(b"z" * (3 * matchtag.LINE_LIMIT))) == 2 * matchtag.LINE_LIMIT
    assert len(big.flush()) == matchtag.LINE_LIMIT


def test_the_tagged_stream_tags_each_line_of_the_current_match_only() -> None:
    class Sink:
        def __init__(self) -> None:
            self.text = ""

        def write(self, text: str) -> int:
            self.text += text
            return len(text)

        def flush(self) -> None:
            pass

    sink = Sink()
    stream = matchtag.TaggedStream(sink)
    stream.write("before\n")
    token = matchtag.current.set("m1")
    stream.write("a\nb")
    stream.write(" continued\n")
    matchtag.current.reset(token)
    stream.write("after\n")
    assert sink.text == "before\n\x1em1\x1fa\n\x1em1\x1fb continued\nafter\n"  # whole lines only
    # A flush sends an unfinished line out tagged; its rest comes tagged again, and the host keeps one line.
    token = matchtag.current.set("m2")
    stream.write("prompt: ")
    stream.flush()
    stream.write("answer\n")
    matchtag.current.reset(token)
    assert sink.text.endswith("\x1em2\x1fprompt: \x1em2\x1fanswer\n")
    s = matchtag.Splitter(clock=lambda: 0.0)
    assert s.feed(sink.text.encode()) == b"before\na\nb continued\nafter\nprompt: answer\n"
    assert s.slices["m2"].text() == "00:00:00.000 prompt: answer\n"


async def _ended(run: Any, matches: set[str]) -> None:
    while not all(m in run.matches.slices and run.matches.slices[m].ended for m in matches):
        await asyncio.sleep(0.05)


def _run(run: Any) -> Running:
    return Running(0, 0, 1, run, None, 0, None, None)  # type: ignore[arg-type]


@needs_sandbox
def test_concurrent_matches_each_get_only_their_own_lines_and_a_crash_is_charged_to_its_match() -> None:
    """Two matches at once on one sandboxed bot: each slice holds only lines naming its match; then a
    run dies in the middle of a third match, which alone gets the crash verdict."""

    async def scenario() -> None:
        async with referee_env() as env:
            env.connect(FirstBot, "conn", games=[GAME], max_matches=4)
            async with hosted(env, "match_logger:MatchLogger", "logger", slot=7) as run:
                runners = [env.start(GAME, ["logger", "conn"], seed=s, time=TIME, match_id=f"m-{s}") for s in (1, 2)]
                await asyncio.wait_for(asyncio.gather(*(r.wait() for r in runners)), 120)
                assert all(r.state is MatchState.SUCCEEDED for r in runners)
                await asyncio.wait_for(_ended(run, {"m-1", "m-2"}), 30)  # the bot has read both MatchEnds
            slices = {s.match_id: s for s in _changed_slices(_run(run))}
            assert set(slices) == {"m-1", "m-2"}
            for mine, other in (("m-1", "m-2"), ("m-2", "m-1")):
                lines = slices[mine].log.splitlines()
                assert f"start of {mine}" in lines[0] and f"end of {mine}" in lines[-1]
                assert any(f"stderr in {mine}" in line for line in lines)
                assert not any(other in line for line in lines), slices[mine].log
                assert slices[mine].ended is not None and slices[mine].verdict == ""
            assert "\x1e" not in run.log.text() and "move in m-1" in run.log.text()

            async with hosted(env, "match_logger:CrashingLogger", "crasher", slot=8) as crashing:
                ok = env.start(GAME, ["crasher", "conn"], seed=3, time=TIME, match_id="m-3")
                await asyncio.wait_for(ok.wait(), 120)
                await asyncio.wait_for(_ended(crashing, {"m-3"}), 30)
                dead = env.start(GAME, ["crasher", "conn"], seed=4, time=TIME, match_id="m-4-crash")
                await asyncio.wait_for(crashing.wait(60), 90)
                await asyncio.wait_for(dead.wait(), 120)
            verdict = crashing.verdict()
            assert "exit status 3" in verdict, verdict
            pieces = {s.match_id: s for s in _changed_slices(_run(crashing), verdict=verdict)}
            assert pieces["m-3"].verdict == "" and pieces["m-3"].ended is not None
            assert pieces["m-4-crash"].verdict == verdict and "dying in m-4-crash" in pieces["m-4-crash"].log
            assert pieces["m-4-crash"].ended is not None and pieces["m-4-crash"].ended <= time.time()

    asyncio.run(scenario())
