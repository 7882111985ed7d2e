"""The protocol layer: what the referee server and the bot SDK both speak, and nothing else.

- :mod:`~referee.protocol.codec`: engine data to and from the bot protocol's messages, for any game;
- :mod:`~referee.protocol.delta`: observation patches (computed by the referee, applied by the SDK);
- :mod:`~referee.protocol.timecontrol`: the time control's numbers and the Duration arithmetic.

Layers, bottom up: ``referee.core`` (the engine contract), :mod:`referee.wire` (strict parsing of
an engine's plain data into its game's typed proto messages, also used by the conformance tests),
``referee.protocol`` (imports only those and the generated ``brawl.*`` messages), then ``referee.sdk`` (imports the
protocol, never the server) and ``referee.server`` (imports the protocol, and the SDK's bot host
for the seats it plays in-process). Nothing is imported here.
"""
