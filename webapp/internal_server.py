"""The internal API's own listener: token checks that never wait for a public request's thread.

The referees check every connecting bot's token with the web tier (``webapp.internal``). Served on
the public port, that check would queue behind whatever holds the public server's threads (slow
pages, long-polls, a flood), and bots would be refused ``UNAVAILABLE`` while the site is busy.
:func:`start` serves the ``/internal/`` routes, and nothing else, on a separate address with its
own small, bounded pool of threads, in the calling process. ``brawl web`` starts one in every
gunicorn worker (the workers share the address with ``SO_REUSEPORT``) or beside Django's
development server; referees are pointed at it with ``BRAWL_WEB_INTERNAL_URL``.

It is not a general web server: one request per connection (HTTP/1.0), a short socket timeout,
404 for every path outside ``/internal/``, and the same credential check as on the public port.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

log = logging.getLogger(__name__)

THREADS = 4
"""Threads answering internal calls in one process (a token check is one indexed query)."""
SOCKET_TIMEOUT_SECONDS = 5.0
"""A connection that sends nothing for this long is closed, so idle connections cannot hold the pool."""
PREFIX = "/internal/"
"""The only paths served here."""


class _QuietHandler(WSGIRequestHandler):
    timeout = SOCKET_TIMEOUT_SECONDS

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("internal API: " + format, *args)


class _PoolServer(WSGIServer):
    """A WSGI server whose requests run in a bounded thread pool, not a thread per connection."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], *, reuse_port: bool) -> None:
        self._reuse_port = reuse_port
        self.pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="internal-api")
        super().__init__(address, _QuietHandler)

    def server_bind(self) -> None:
        if self._reuse_port:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        super().server_bind()

    def process_request(self, request: Any, client_address: Any) -> None:
        self.pool.submit(self._work, request, client_address)

    def _work(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)


def only_internal(app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
    """Wraps a WSGI ``app`` to answer 404 for every path outside :data:`PREFIX`."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if not str(environ.get("PATH_INFO", "")).startswith(PREFIX):
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"only the internal API is served here\n"]
        return app(environ, start_response)

    return serve


def parse_addr(addr: str) -> tuple[str, int]:
    """Returns ``(host, port)`` of ``HOST:PORT``.

    Raises:
        ValueError: ``addr`` is not ``HOST:PORT`` with a port number.
    """
    host, sep, port = addr.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"expected HOST:PORT for the internal API's address, got {addr!r}")
    return host.strip("[]"), int(port)


def start(addr: str, *, reuse_port: bool = False) -> _PoolServer:
    """Serves the internal API on ``addr`` from a daemon thread of this process; returns the server.

    Args:
        addr: ``HOST:PORT`` to listen on (keep it off the public network: only referees call it).
        reuse_port: Share the address with the other workers of the same server (``SO_REUSEPORT``).

    Raises:
        ValueError: ``addr`` is malformed.
        OSError: the address cannot be bound.
    """
    from webapp.wsgi import application

    server = _PoolServer(parse_addr(addr), reuse_port=reuse_port)
    server.set_app(only_internal(application))
    threading.Thread(target=server.serve_forever, name="internal-api-listener", daemon=True).start()
    log.info("internal API listening on %s", addr)
    return server
