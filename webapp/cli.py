"""``brawl web`` (serve the site) and ``brawl token`` (issue, revoke and list bot tokens).

``brawl web`` serves with gunicorn (threaded workers) when it is installed, otherwise with
Django's development server; ``--server`` chooses explicitly. With ``--internal-addr`` it also
serves the internal API on its own listener (``webapp.internal_server``).

``brawl token create`` creates the bot (and its owner) if needed and prints the token once: it is
the organiser's way to admit bots before anyone uses the web pages. Commands run against the
database named by ``DATABASE_URL`` (SQLite in ``./var`` when unset).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from common import settings


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
    import django

    django.setup()


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``brawl web`` and ``brawl token``."""
    web = subparsers.add_parser("web", help="serve the web site and API (migrates the database first)")
    web.add_argument("--addr", default="127.0.0.1:8000", help="host:port to listen on (default 127.0.0.1:8000)")
    web.add_argument("--no-migrate", action="store_true", help="do not apply migrations at start")
    web.add_argument(
        "--server",
        choices=["auto", "gunicorn", "django"],
        default="auto",
        help="gunicorn (production WSGI server) or django (development server); auto picks gunicorn when installed",
    )
    web.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    web.add_argument(
        "--internal-addr",
        default=settings.env("BRAWL_WEB_INTERNAL_LISTEN", str, ""),
        metavar="HOST:PORT",
        help="also serve the internal API (the referees' token checks) here, with its own threads, so a busy "
        "site never delays them (default BRAWL_WEB_INTERNAL_LISTEN; empty: only on the public port)",
    )
    web.set_defaults(func=cmd_web)

    token = subparsers.add_parser("token", help="issue, revoke and list bot tokens")
    sub = token.add_subparsers(dest="token_command", metavar="ACTION", required=True)
    c = sub.add_parser("create", help="issue a token for a bot (creating the bot and owner if needed); prints it once")
    c.add_argument("--bot", required=True, help="bot name")
    c.add_argument("--game", required=True, help="game name (see `brawl token create --help` for the registry)")
    c.add_argument("--owner", required=True, help="owner's user name")
    c.add_argument("--house", action="store_true", help="mark a newly created bot as a house bot")
    c.set_defaults(func=cmd_token_create)
    r = sub.add_parser("revoke", help="revoke a token by its prefix, or every token of a bot")
    r.add_argument("--prefix", help="the token's displayed prefix")
    r.add_argument("--bot", help="bot name: revoke all its tokens")
    r.add_argument("--game", help="game of --bot")
    r.set_defaults(func=cmd_token_revoke)
    ls = sub.add_parser("list", help="list tokens (prefixes only)")
    ls.add_argument("--bot", help="only this bot's tokens")
    ls.set_defaults(func=cmd_token_list)


def cmd_web(args: argparse.Namespace) -> int:
    """Migrates, then serves the site with gunicorn (or Django's development server)."""
    _setup()
    from django.core.management import call_command

    if not args.no_migrate:
        call_command("migrate", interactive=False, verbosity=1)
    server = args.server
    if server == "auto":
        try:
            import gunicorn  # noqa: F401  (only probing whether it is installed)

            server = "gunicorn"
        except ImportError:
            server = "django"
    if args.internal_addr:
        from webapp.internal_server import parse_addr

        try:
            parse_addr(args.internal_addr)
        except ValueError as exc:
            print(f"error: --internal-addr: {exc}", file=sys.stderr)
            return 2
    if server == "django":
        if args.internal_addr:
            from webapp.internal_server import start

            start(args.internal_addr)
        call_command("runserver", args.addr, use_reloader=False)
        return 0
    return serve_gunicorn(args.addr, args.workers, internal_addr=args.internal_addr)


def serve_gunicorn(addr: str, workers: int, *, internal_addr: str = "") -> int:
    """Serves ``webapp.wsgi:application`` with gunicorn's threaded workers until stopped.

    Args:
        addr: The public ``HOST:PORT``.
        workers: Worker processes (4 threads each).
        internal_addr: When set, every worker also serves the internal API there
            (``webapp.internal_server``, sharing the address with ``SO_REUSEPORT``).
    """
    from wsgiref.types import WSGIApplication

    from gunicorn.app.base import BaseApplication

    from webapp.wsgi import application

    def post_worker_init(worker: object) -> None:
        if internal_addr:
            from webapp.internal_server import start

            start(internal_addr, reuse_port=True)

    class _App(BaseApplication):
        def load_config(self) -> None:
            for key, value in {
                "bind": addr,
                "workers": workers,
                "worker_class": "gthread",
                "threads": 4,
                # A line per request only at DEBUG (BRAWL_LOG_LEVEL): a replay viewer polls, and an
                # unattended site would otherwise fill its console (docs/deploy.md, "Logs").
                "accesslog": "-" if logging.getLogger().isEnabledFor(logging.DEBUG) else None,
                # Long enough for the frames of a long replay to be computed.
                "timeout": 60,
                "graceful_timeout": 20,
                "post_worker_init": post_worker_init,
            }.items():
                self.cfg.set(key, value)

        def load(self) -> WSGIApplication:  # type: ignore[override]  # types-gunicorn: a narrower start_response than PEP 3333's
            return application

    _App().run()
    return 0


def cmd_token_create(args: argparse.Namespace) -> int:
    """Creates the bot if needed and prints a new token once."""
    _setup()
    from django.contrib.auth.models import User

    from webapp.bots import services
    from webapp.bots.models import Bot

    try:
        services.check_game(args.game)
    except Exception as exc:
        print(f"error: {exc.detail if hasattr(exc, 'detail') else exc}", file=sys.stderr)
        return 2
    owner, _ = User.objects.get_or_create(username=args.owner)
    bot = Bot.objects.filter(game=args.game, name=args.bot).first()
    if bot is None:
        bot, issued = services.do_create_bot(owner, args.game, args.bot, is_house=args.house)
    elif bot.owner_id != owner.pk:
        print(f"error: bot {args.bot!r} belongs to {bot.owner.username}, not {args.owner}", file=sys.stderr)
        return 2
    else:
        issued = services.do_issue_token(bot)
    print(issued.token)
    print(
        f"# bot {bot.name} (id {bot.pk}, {bot.game}); token prefix {issued.record.prefix}; shown once", file=sys.stderr
    )
    return 0


def cmd_token_revoke(args: argparse.Namespace) -> int:
    """Revokes one token by prefix or all tokens of a bot."""
    _setup()
    from webapp.bots import services
    from webapp.bots.models import Bot, BotToken

    if args.prefix:
        tokens = list(BotToken.objects.filter(prefix=args.prefix, revoked_at__isnull=True))
        if len(tokens) != 1:
            print(f"error: {len(tokens)} valid tokens have prefix {args.prefix!r}", file=sys.stderr)
            return 1
        services.do_revoke_token(tokens[0])
        print(f"revoked {args.prefix}")
        return 0
    if args.bot:
        bots = Bot.objects.filter(name=args.bot, **({"game": args.game} if args.game else {}))
        if bots.count() != 1:
            print(f"error: {bots.count()} bots match {args.bot!r}; add --game", file=sys.stderr)
            return 1
        print(f"revoked {services.do_revoke_all_tokens(bots.get())} token(s)")
        return 0
    print("error: give --prefix or --bot", file=sys.stderr)
    return 2


def cmd_token_list(args: argparse.Namespace) -> int:
    """Prints one line per token: prefix, bot, game, state."""
    _setup()
    from webapp.bots.models import BotToken

    qs = BotToken.objects.select_related("bot").order_by("bot__game", "bot__name", "-created")
    if args.bot:
        qs = qs.filter(bot__name=args.bot)
    for t in qs:
        state = "valid" if t.revoked_at is None else f"revoked {t.revoked_at:%Y-%m-%d %H:%M}"
        print(f"{t.prefix}…  {t.bot.game:<18} {t.bot.name:<24} {state}")
    return 0
