"""An honest hosted bot: plays the first legal option and logs one line per match."""

import sys


class FirstBot:
    """Plays the first option."""

    def choose(self, decision, observation, options):
        return options[0].id

    def match_started(self, start):
        print(f"hosted bot starts match {start.match_id}", file=sys.stderr, flush=True)
