"""Demo data for ``brawl run``: logins, house bots of several strengths, tournaments.

Idempotent: run at every start. It creates what is missing and re-issues the house bots' tokens
(only hashes are stored, so a restart needs fresh ones). On the first start it also plays one small
tournament to the end, in-process through the referee's match runner (the same code path as a
server match), so a first visitor finds ratings, replays, a finished bracket and its learning dataset
at once; a second
tournament is left running for the workers to play on.

Not for production databases: it creates users with published passwords.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.core.contract import GameInfo
from referee.core.registry import get_game, shipped_game_names

log = logging.getLogger("workers.demo")

DEMO_LOGINS = {"organizer": ("organizer", True), "author": ("author", False)}
"""Demo users: name -> (password, is staff). Printed by ``brawl run``. ``organizer`` also gets the organizer role."""


@dataclass
class Demo:
    """What the demo set-up made: the farm spec for the house bots, and notes to print."""

    farm: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def ensure_demo(*, play_finished_tournament: bool = True) -> Demo:
    """Creates the demo users, house bots and tournaments that are missing.

    Must run with Django set up and the database migrated.
    """
    from django.contrib.auth.models import User

    from referee.core.registry import game_names
    from webapp.bots import services as bots
    from webapp.bots.models import Bot
    from webapp.roles import make_organizer
    from workers.housebots import STRENGTHS

    demo = Demo()
    for name, (password, staff) in DEMO_LOGINS.items():
        user, created = User.objects.get_or_create(username=name, defaults={"is_staff": staff})
        if created:
            user.set_password(password)
            user.save()
        if name == "organizer":
            # The organizer role is the group's permissions, not staff status or superuser.
            make_organizer(user)
    house, _ = User.objects.get_or_create(username="house")
    for game in game_names():
        for strength, cls in STRENGTHS.items():
            bot = Bot.objects.filter(game=game, name=strength).first()
            if bot is None:
                bot, issued = bots.do_create_bot(
                    house, game, strength, f"House bot ({cls.__doc__ or strength})", is_house=True
                )
            else:
                issued = bots.do_issue_token(bot, revoke_others=True)
            demo.farm.append(
                {"bot": f"{cls.__module__}:{cls.__name__}", "token": issued.token, "max_matches": 3, "name": bot.name}
            )
    if play_finished_tournament:
        _ensure_tournaments(demo)
    # After the tournaments: their in-process demo matches play the farm's classes by name.
    for game in game_names():
        _ensure_hosted_house(house, game, demo)
    return demo


HOSTED_HOUSE_NAME = "hosted-heuristic"
"""The house bot the service hosts itself (issue 16): uploaded like an author's bot, run by ``brawl host``."""

HOSTED_HOUSE_SOURCE = b'''"""A house bot uploaded to the service and run in its sandbox: the heuristic house policy."""

from referee.sdk.house import house_factory


class HostedHouseBot:
    """Plays the game's heuristic house bot (built on the first turn, once the game is known)."""

    def __init__(self):
        self.policy = None

    def choose_turn(self, turn):
        if self.policy is None:
            self.policy = house_factory(turn.game, "heuristic")()
        return self.policy.choose(turn.decision, turn.observation, turn.options)

    def choose(self, decision, observation, options):
        return options[0].id
'''


def _ensure_hosted_house(house: Any, game: str, demo: Demo) -> None:
    """Uploads the hosted house bot of ``game`` once; ``brawl host`` validates and runs it.

    Skipped, with a note, where the sandbox cannot run (no bubblewrap, or not root).
    """
    from webapp.bots import services as bots
    from webapp.bots.models import Bot
    from webapp.hosting import services as hosting
    from webapp.hosting.models import HostedUpload, UploadStatus
    from workers.hosting import sandbox

    try:
        sandbox.check_available()
    except sandbox.SandboxUnavailable as exc:
        note = f"hosted bots are off on this machine: {exc}"
        if note not in demo.notes:
            demo.notes.append(note)
        return
    bot = Bot.objects.filter(game=game, name=HOSTED_HOUSE_NAME).first()
    if bot is None:
        bot, _ = bots.do_create_bot(
            house, game, HOSTED_HOUSE_NAME, "House bot hosted by the service (uploaded, sandboxed)", is_house=True
        )
    if not HostedUpload.objects.filter(bot=bot).exclude(status=UploadStatus.REJECTED).exists():
        hosting.do_upload(house, bot, "hosted_house.py", HOSTED_HOUSE_SOURCE, "hosted_house:HostedHouseBot")


def _game_where(wanted: Callable[[GameInfo], bool]) -> str:
    """The first registered game whose info ``wanted`` accepts."""
    return next(name for name in shipped_game_names() if wanted(get_game(name).info))


def _ensure_tournaments(demo: Demo) -> None:
    from django.contrib.auth.models import User

    from webapp.bots.models import BotVersion
    from webapp.tournaments import services as tournaments
    from webapp.tournaments.models import Tournament

    organizer = User.objects.get(username="organizer")
    wanted = [
        # A duel game's knockout cup and a pod game's round robin, as the games describe themselves.
        ("Opening Cup", _game_where(lambda info: info.table_sizes == (2,)), "single_elim", 1, True),
        ("Autumn Round Robin", _game_where(lambda info: info.free_for_all), "round_robin", 7, False),
    ]
    for name, game, fmt, best_of, play_now in wanted:
        if Tournament.objects.filter(name=name).exists():
            continue
        t = tournaments.do_create_tournament(organizer, name=name, game=game, format=fmt, best_of=best_of)
        t = tournaments.do_open_registration(t)
        house_versions = BotVersion.objects.filter(bot__game=game, bot__is_house=True).exclude(
            bot__name=HOSTED_HOUSE_NAME
        )
        for version in house_versions.order_by("bot__name"):
            tournaments.do_approve_entrant(tournaments.do_register_entrant(t, version))
        t = tournaments.do_start_tournament(t)
        t = tournaments.do_publish_tournament(t)  # a first visitor sees its bracket without logging in
        if play_now:
            played = asyncio.run(_play_queued(t.pk))
            demo.notes.append(f"played {played} matches of {name!r} to its end")
            _write_datasets(game, demo)
        else:
            demo.notes.append(f"{name!r} is running: the workers play its matches")


def _write_datasets(game: str, demo: Demo) -> None:
    """Writes the learning dataset of the months the cup's matches changed (the workers' sweep does it hourly)."""
    from webapp.datasets.export import stale_months, write_dataset

    for month in stale_months(game):
        written = write_dataset(game, month)
        demo.notes.append(f"wrote the {game} dataset of {month}: {written['decisions']} decisions (/datasets/)")


async def _play_queued(tournament_id: int) -> int:
    """Plays every queued match of a tournament in-process until none is left."""
    from asgiref.sync import sync_to_async

    from referee.protocol.timecontrol import defaults_for
    from referee.server.auth import MemoryTokenStore
    from referee.server.hub import Referee
    from referee.server.match import SeatSpec
    from referee.server.sinks import MemoryResultSink
    from webapp import results
    from webapp.matches import services as matches
    from webapp.matches.models import Match, MatchStatus
    from workers.housebots import STRENGTHS

    referee = Referee(tokens=MemoryTokenStore(), sink=MemoryResultSink())

    def queued() -> list[tuple[int, str, dict[str, Any], int, list[str]]]:
        rows = Match.objects.filter(tournament_id=tournament_id, status=MatchStatus.QUEUED).prefetch_related(
            "seats__bot_version__bot"
        )
        return [
            (m.pk, m.game, m.config, m.seed, [s.bot_version.bot.name for s in m.seats.order_by("seat")]) for m in rows
        ]

    played = 0
    while batch := await sync_to_async(queued)():
        for match_id, game, config, seed, names in batch:
            await sync_to_async(matches.do_start_match)(match_id, "demo")
            runner = referee.start_match(
                game=game,
                seats=[SeatSpec(name=n) for n in names],
                config=config,
                seed=seed,
                time_control=defaults_for(game).to_proto(),
                match_id=str(match_id),
                local_factories={i: STRENGTHS[n] for i, n in enumerate(names)},
            )
            replay = await runner.wait()
            if replay is None:
                await sync_to_async(matches.do_fail_match)(match_id, "the demo match did not finish")
            else:
                await sync_to_async(results.do_finish_match)(match_id, replay, referee_id="demo")
            played += 1
    return played
