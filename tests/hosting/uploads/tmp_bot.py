"""A hosted bot that uses its private /tmp (and its HOME, which is /tmp) on its first decision, then plays.

It prints ``TMP before <names>`` (what /tmp held when it started), ``TMP read <text>`` (a file it
wrote and read back), ``TMP home <text>`` (the same under ``~/.cache``) and ``TMP full <n> <error>``
(how many 1 MiB blocks fitted before the tmpfs was full); the tests read the bot's log.
"""

import contextlib
import os
from pathlib import Path


def marker():
    """The name the test asks for, in /bot/targets.txt (the environment is cleared)."""
    try:
        return Path("/bot/targets.txt").read_text().split()[0]
    except (OSError, IndexError):
        return "brawl-tmp-probe"


class TmpBot:
    done = False

    def attempt(self):
        name = marker()
        print(f"TMP before {sorted(os.listdir('/tmp'))}", flush=True)
        path = Path("/tmp") / f"{name}.txt"
        path.write_text(f"hello {name}")
        print(f"TMP read {path.read_text()}", flush=True)
        home = Path.home() / ".cache" / "probe.txt"
        home.parent.mkdir(parents=True, exist_ok=True)
        home.write_text("at home")
        print(f"TMP home {home} {home.read_text()}", flush=True)
        block = b"x" * (1024 * 1024)
        blocks = 0
        try:
            for i in range(1024):
                with open(f"/tmp/fill-{i}", "wb") as f:
                    f.write(block)
                blocks += 1
        except OSError as exc:
            print(f"TMP full {blocks} {type(exc).__name__}: errno {exc.errno}", flush=True)
        for i in range(blocks + 1):
            with contextlib.suppress(OSError):
                os.remove(f"/tmp/fill-{i}")

    def choose(self, decision, observation, options):
        if not self.done:
            self.done = True
            self.attempt()
        return options[0].id
