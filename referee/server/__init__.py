"""The referee server: runs matches between connected bots over gRPC (``brawl referee``).

Modules: :mod:`~referee.server.service` (``create_server``, ``serve``, the servicers),
:mod:`~referee.server.hub` (sessions and matches), :mod:`~referee.server.match` (the match policy:
clocks, strikes, forfeits), :mod:`~referee.server.auth` (tokens), :mod:`~referee.server.sinks`
(where replays go), :mod:`~referee.server.codec` (engine data to protocol messages; the SDK uses
it too), :mod:`~referee.server.timecontrol`. Nothing is imported here, so the SDK can use the codec
without loading the server.
"""
