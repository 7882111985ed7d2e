"""The referee server: runs matches between connected bots over gRPC (``brawl referee``).

Modules: :mod:`~referee.server.service` (``create_server``, ``serve``, the servicers),
:mod:`~referee.server.hub` (sessions and matches), :mod:`~referee.server.match` (one match's
policy: strikes, forfeits, the loop), :mod:`~referee.server.clocks` (the clock arithmetic),
:mod:`~referee.server.messages` (building the bot messages), :mod:`~referee.server.spectators`,
:mod:`~referee.server.auth` (tokens), :mod:`~referee.server.sinks` (where replays go),
:mod:`~referee.server.journal` and :mod:`~referee.server.relay` (several referees). The message
formats it shares with the SDK live one layer down, in :mod:`referee.protocol`.
"""
