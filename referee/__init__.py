"""Brawl Ladder referee: the rules engines and the gRPC server that enforces them.

`referee.core` holds the game contract every engine implements; `referee.games` holds the
engines themselves (pure libraries); the server, SDK and local runner wrap them.
"""

__version__ = "0.1.0"
