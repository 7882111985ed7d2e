"""The referee's Prometheus metrics, and the HTTP endpoint that serves them (``brawl referee --metrics``).

The metric objects live in ``prometheus_client``'s default registry (beside its process and
garbage-collector collectors), so every referee server in a process adds to the same series. The
match runner and the hub update them; this module only declares them, resolves the per-game label
children once per match (:func:`for_game`), so a decision costs a counter increment and two
histogram observations and nothing else, and starts the scrape endpoint. The names, types and
labels are listed in ``docs/deploy.md`` ("Metrics").

It is not a metrics pipeline: nothing is pushed, aggregated or stored here; Prometheus scrapes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from prometheus_client import REGISTRY, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from referee.server.collector import COLLECTOR

DECISION_SOURCES = ("answer", "default")
"""``source`` label of decisions: a bot's valid answer, or the default applied after a timeout."""

# Think time is charged in whole seconds of a decision clock; the buckets span an instant bot to
# a long bank draw.
THINK_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
# The referee's own work per decision (engine calls, encoding) is sub-millisecond to a few ms.
OVERHEAD_BUCKETS = (0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25)

MATCHES_RUNNING = Gauge("brawl_referee_matches_running", "Matches being played on this referee.", ["game"])
MATCHES_FINISHED = Counter(
    "brawl_referee_matches_finished",
    "Matches ended on this referee, by how they ended (termination 'none': no outcome, the match failed).",
    ["game", "termination"],
)
DECISIONS = Counter(
    "brawl_referee_decisions",
    "Decisions applied, by source (a bot's answer or the timeout default).",
    ["game", "source"],
)
THINK_SECONDS = Histogram(
    "brawl_referee_think_seconds",
    "Think time charged to the deciding bot per decision (elapsed minus round-trip credit; timeouts charge the limit).",
    ["game"],
    buckets=THINK_BUCKETS,
)
OVERHEAD_SECONDS = Histogram(
    "brawl_referee_decision_overhead_seconds",
    "The referee's own time per decision: engine calls, observation and encoding, excluding the wait for the bot.",
    ["game"],
    buckets=OVERHEAD_BUCKETS,
)
STRIKES = Counter(
    "brawl_referee_strikes",
    "Strikes given to seats, by kind: timeout, illegal_answer, malformed_answer.",
    ["game", "kind"],
)
BOT_SESSIONS = Gauge("brawl_referee_bot_sessions", "Bot sessions (Connect streams) open on this referee.")


class _GarbageCollection(Collector):
    """The referee's garbage-collection pauses (:mod:`referee.server.collector`), read at each scrape."""

    def collect(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily]:
        yield CounterMetricFamily(
            "brawl_referee_gc_pause_seconds",
            "Wall time the referee spent in garbage collections (taken out of the bots' clocks).",
            value=COLLECTOR.paused,
        )
        yield GaugeMetricFamily(
            "brawl_referee_gc_longest_pause_seconds",
            "The longest garbage collection since the referee started.",
            value=COLLECTOR.longest,
        )
        yield CounterMetricFamily(
            "brawl_referee_gc_reclaims",
            "Full collections run because the heap had doubled (each a long pause).",
            value=COLLECTOR.reclaims,
        )


REGISTRY.register(_GarbageCollection())


@dataclass(frozen=True, slots=True)
class GameMetrics:
    """The label children of one game, resolved once so the per-decision path does no label lookup."""

    game: str
    running: Gauge
    answered: Counter
    defaulted: Counter
    think: Histogram
    overhead: Histogram

    def strike(self, kind: str) -> None:
        """Counts a strike of ``kind`` (rare: the label lookup is acceptable here)."""
        STRIKES.labels(self.game, kind).inc()

    def finished(self, termination: str) -> None:
        """Counts a match that ended with ``termination``."""
        MATCHES_FINISHED.labels(self.game, termination).inc()


_BY_GAME: dict[str, GameMetrics] = {}


def for_game(game: str) -> GameMetrics:
    """Returns the (cached) label children of ``game``."""
    found = _BY_GAME.get(game)
    if found is None:
        found = GameMetrics(
            game=game,
            running=MATCHES_RUNNING.labels(game),
            answered=DECISIONS.labels(game, "answer"),
            defaulted=DECISIONS.labels(game, "default"),
            think=THINK_SECONDS.labels(game),
            overhead=OVERHEAD_SECONDS.labels(game),
        )
        _BY_GAME[game] = found
    return found


def parse_address(address: str) -> tuple[str, int]:
    """Splits ``HOST:PORT`` (``[::]:9100`` for IPv6) into host and port.

    Raises:
        ValueError: the address has no port or the port is not a number.
    """
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"expected HOST:PORT, got {address!r}")
    return host.strip("[]") or "0.0.0.0", int(port)


def serve_metrics(address: str) -> int:
    """Serves the default registry in Prometheus text format at ``http://address/metrics``, in a daemon thread.

    Returns:
        The port bound (useful with port 0).

    Raises:
        ValueError: ``address`` is not ``HOST:PORT``.
        OSError: the port cannot be bound.
    """
    host, port = parse_address(address)
    server, _thread = start_http_server(port, addr=host)
    return int(server.server_port)
