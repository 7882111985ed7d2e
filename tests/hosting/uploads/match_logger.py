"""A hosted bot that writes a line naming its match at the start and at each move; ``CrashingLogger``
ends its process in the middle of a match whose seed config says so (its first move after a marker)."""

import os
import sys


class MatchLogger:
    """Plays the first option; every line it writes names the match it is playing."""

    match_id = "?"

    def match_started(self, start):
        self.match_id = start.match_id
        print(f"start of {self.match_id}", flush=True)

    def choose(self, decision, observation, options):
        print(f"move in {self.match_id}", flush=True)
        print(f"stderr in {self.match_id}", file=sys.stderr, flush=True)
        return options[0].id

    def match_ended(self, end):
        print(f"end of {self.match_id}", flush=True)


class CrashingLogger(MatchLogger):
    """Like MatchLogger, but the process dies at its first move in a match whose id ends in ``crash``."""

    def choose(self, decision, observation, options):
        if self.match_id.endswith("crash"):
            print(f"dying in {self.match_id}", flush=True)
            os._exit(3)
        return super().choose(decision, observation, options)
