"""``brawl asgi``: serves the ASGI application (``webapp.asgi``: the site and the tables' sockets) with daphne.

``brawl run`` starts it beside ``brawl web`` for the people's tables' WebSockets; the seat clients
of the people who play (``webapp.tables.seats``) run in its event loop.
"""

from __future__ import annotations

import argparse
import os


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl asgi``."""
    asgi = subparsers.add_parser("asgi", help="serve the site and the people's tables' WebSockets (ASGI, daphne)")
    asgi.add_argument("--addr", default="127.0.0.1:8001", help="host:port to listen on (default 127.0.0.1:8001)")
    asgi.set_defaults(func=cmd_asgi)


def cmd_asgi(args: argparse.Namespace) -> int:
    """Serves ``webapp.asgi.application`` until stopped."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    # A table starts its match here: like a worker's, it goes to ``start_match`` once committed
    # (set before Django's settings are read).
    os.environ.setdefault("BRAWL_DISPATCH", "celery")
    host, _, port = args.addr.rpartition(":")
    from daphne.endpoints import build_endpoint_description_strings
    from daphne.server import Server

    from webapp.asgi import application

    Server(
        application=application,
        endpoints=build_endpoint_description_strings(host=host or "127.0.0.1", port=int(port)),
        signal_handlers=True,
        verbosity=0,
    ).run()
    return 0
