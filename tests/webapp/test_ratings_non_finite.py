"""Issue 12, finding 6, at the web app: a NaN read from storage is refused, never stored, never spread.

"A NaN stored Elo silently turns the opponent's new rating into NaN." Here a stored rating is made NaN
(or its volatility 0) behind the services' back, as a bad migration or a hand edit would, and then:
rating the next match fails with a clear error and writes nothing; matchmaking leaves that version
(and a new version whose prior would come from it) out instead of failing the whole game; ``brawl
ratings verify`` names the row and ``recompute`` repairs it. Real PostgreSQL, real services.
"""

from __future__ import annotations

import argparse
import logging
import math
from collections.abc import Callable
from typing import Any

import pytest

from webapp import results
from webapp.api import DomainError
from webapp.bots import services as bot_services
from webapp.bots.models import Bot
from webapp.matches import services as match_services
from webapp.matches.models import Match
from webapp.rankings import cli
from webapp.rankings import services as rankings
from webapp.rankings.models import Rating, RatingHistory

from .conftest import GAME, forced_replay


def run_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="brawl")
    cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["ratings", *argv])
    status: int = args.func(args)
    return status


def play(versions: list[Any], ranks: tuple[int, ...]) -> Match:
    m = match_services.do_queue_match(GAME, versions, rated=True)
    match_services.do_start_match(m.pk, "ref-test")
    return results.do_finish_match(m.pk, forced_replay(m, ranks), referee_id="ref-test")


@pytest.fixture
def pair(make_bot: Callable[..., Bot], author: Any, other: Any) -> tuple[Bot, Bot]:
    a, b = make_bot(author, "anna"), make_bot(other, "bert")
    play([a.latest_version, b.latest_version], (1, 2))
    return a, b


@pytest.mark.parametrize(
    "corruption", [{"elo": math.nan}, {"elo": math.inf}, {"glicko_volatility": 0.0}, {"glicko_rd": math.nan}], ids=str
)
def test_a_corrupt_stored_rating_fails_the_next_rating_and_writes_nothing(
    pair: tuple[Bot, Bot], corruption: dict[str, float]
) -> None:
    a, b = pair
    Rating.objects.filter(bot_version=a.latest_version).update(**corruption)
    before_b = Rating.objects.get(bot_version=b.latest_version)
    rows = RatingHistory.objects.count()
    field = next(iter(corruption))
    with pytest.raises(DomainError, match=f"rating of version {a.latest_version.pk} is refused") as err:
        play([a.latest_version, b.latest_version], (2, 1))
    assert "brawl ratings recompute" in str(err.value)
    assert ("volatility" if "volatility" in field else "deviation" if "rd" in field else "Elo") in str(err.value)
    # Nothing was written: the opponent keeps its finite rating, no history row was added.
    after_b = Rating.objects.get(bot_version=b.latest_version)
    assert (after_b.elo, after_b.games, after_b.glicko_rd) == (before_b.elo, before_b.games, before_b.glicko_rd)
    assert math.isfinite(after_b.elo) and RatingHistory.objects.count() == rows


def test_matchmaking_leaves_out_versions_resting_on_a_corrupt_row(
    pair: tuple[Bot, Bot], make_bot: Callable[..., Bot], author: Any, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = pair
    a1 = a.latest_version
    Rating.objects.filter(bot_version=a1).update(elo=math.nan)
    a2 = bot_services.do_create_version(a, notes="v2")  # its prior would inherit a1's NaN
    fresh = make_bot(author, "fresh").latest_version
    with caplog.at_level(logging.ERROR, logger="webapp.rankings.services"):
        got = rankings.current_ratings(GAME, [a1.pk, a2.pk, b.latest_version.pk, fresh.pk])
    assert set(got) == {b.latest_version.pk, fresh.pk}
    assert all(math.isfinite(r.elo) for r in got.values())
    assert f"rating of version {a1.pk} is refused" in caplog.text


def test_verify_names_a_nan_and_recompute_repairs_it(pair: tuple[Bot, Bot], capsys: pytest.CaptureFixture[str]) -> None:
    a, _ = pair
    good = Rating.objects.get(bot_version=a.latest_version).elo
    Rating.objects.filter(bot_version=a.latest_version).update(elo=math.nan)
    assert run_cli("verify", "--game", GAME) == 1
    assert f"rating of version {a.latest_version.pk}: elo is nan stored" in capsys.readouterr().err
    assert run_cli("recompute", "--game", GAME) == 0
    assert Rating.objects.get(bot_version=a.latest_version).elo == good
