"""The referee server: runs matches between connected bots over gRPC (``brawl referee``).

``create_server`` builds a server (bot service, referee API, health, reflection); ``serve`` runs
one until a signal. Token stores live in :mod:`referee.server.auth`, result sinks in
:mod:`referee.server.sinks`, the match policy in :mod:`referee.server.match`.
"""

from referee.server.auth import BotIdentity, JsonFileTokenStore, MemoryTokenStore, TokenStore
from referee.server.hub import Referee, RefereeSettings
from referee.server.service import RefereeServer, create_server, serve
from referee.server.sinks import FileResultSink, MemoryResultSink, ResultSink
from referee.server.timecontrol import TimeSettings

__all__ = [
    "BotIdentity",
    "FileResultSink",
    "JsonFileTokenStore",
    "MemoryResultSink",
    "MemoryTokenStore",
    "Referee",
    "RefereeServer",
    "RefereeSettings",
    "ResultSink",
    "TimeSettings",
    "TokenStore",
    "create_server",
    "serve",
]
