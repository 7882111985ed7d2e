"""A house bot's moves are independent of the match seed (issue 24, finding 2).

The referee's in-process house bots were seeded ``(match seed * 31 + seat) & 0xFFFFFFFF``: 16 of
their picks gave the seed's low 32 bits, and with them every hand and deck order. The rule now
(``referee/sdk/house.py``, ``docs/security.md``): a house bot's own randomness is a fresh
``common.seeding.new_bot_seed()`` per instance, or a bot seed the caller of a local experiment
chose apart from the match seed; a replay never needs it.

The position must be the same under two match seeds for "independent of the seed" to be seen in
the moves, so these tests play :class:`PickGame`, which draws no chance at all: whatever the match
seed, a seat sees the same position after the same picks. Any difference in what a house bot plays
is its own randomness. Partitions: the referee's house seats over a real server (same match seed
twice: different moves), ``brawl play``'s house bots with a fixed bot seed (two match seeds: the
same moves), and each house bot class built as a client builds it (no arguments).
"""

from __future__ import annotations

import asyncio
import copy
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from referee.core import (
    EVERYONE,
    Chance,
    ConfigError,
    Decision,
    Event,
    Game,
    GameInfo,
    JSONDict,
    Match,
    MatchOverError,
    Option,
    Outcome,
    Seat,
    Termination,
    register,
)
from referee.core.contract import visible_events
from referee.core.replay import Replay, verify
from referee.play import play_series
from referee.protocol.timecontrol import TimeSettings
from referee.sdk.cli import bot_factory
from referee.sdk.house import RandomBot, UnknownHouseBotError, house_factory
from referee.server.match import MatchState
from tests.referee.harness import referee_env
from workers.housebots import STRENGTHS

ROOT = Path(__file__).resolve().parents[2]
PICKS = 16
"""Options at every decision."""
TURNS = 24
"""Decisions in a match: two seats picking 24 times from 16 repeat by chance with odds 16**-24."""

INFO = GameInfo("pickgame", "Pick Game", "1", frozenset({2}))


class PickMatch(Match):
    """Seats take turns picking a number from 0 to 15; the higher total after 24 picks wins. No chance."""

    info = INFO

    def __init__(self, chance: Chance) -> None:
        self.chance = chance  # kept for the contract's with_chance; never drawn from
        self.picks: list[int] = []
        self._events: list[Event] = []

    def to_move(self) -> Decision | None:
        if len(self.picks) >= TURNS:
            return None
        return Decision(Seat(len(self.picks) % 2), "pick", "pick a number", "pick:0")

    def legal_options(self) -> Sequence[Option]:
        if len(self.picks) >= TURNS:
            return ()
        return tuple(Option(f"pick:{k}", "pick", f"pick {k}", {"value": k}) for k in range(PICKS))

    def apply(self, option_id: str) -> Sequence[Event]:
        if len(self.picks) >= TURNS:
            raise MatchOverError("the match is over")
        opt = self.option(option_id)
        seat = len(self.picks) % 2
        self.picks.append(int(opt.params["value"]))
        e = Event(len(self._events), "pick", {"seat": seat, "value": self.picks[-1]}, None)
        self._events.append(e)
        return [e]

    def observe(self, viewer: Seat | None) -> JSONDict:
        return {"picks": list(self.picks)}

    def events(self, since: int = 0, viewer: Any = EVERYONE) -> list[Event]:
        return visible_events(self._events, since, viewer)

    def outcome(self) -> Outcome | None:
        if len(self.picks) < TURNS:
            return None
        totals = (sum(self.picks[0::2]), sum(self.picks[1::2]))
        ranks = (1, 1) if totals[0] == totals[1] else ((1, 2) if totals[0] > totals[1] else (2, 1))
        return Outcome(ranks, Termination.VICTORY, f"totals {totals}", totals)

    def determinize(self, viewer: Seat | None, chance: Chance) -> PickMatch:
        other = copy.copy(self)
        other.chance = chance
        other.picks = list(self.picks)
        other._events = list(self._events)
        return other


class PickGame(Game):
    info = INFO

    def parse_config(self, raw: Mapping[str, Any], seats: int) -> JSONDict:
        if raw:
            raise ConfigError(f"pickgame takes no config, got {sorted(raw)!r}")
        if seats != 2:
            raise ConfigError(f"pickgame takes 2 seats, got {seats!r}")
        return {}

    def new_match(self, config: Mapping[str, Any], seats: int, chance: Chance) -> PickMatch:
        return PickMatch(chance)


register(PickGame())

CALM = TimeSettings(decision_time=5, bank_time=60)
SEEDS = (1, 2**62 + 12_345)
"""Two match seeds, far apart in every bit the old derivation kept."""


def _moves(replay: Replay) -> list[tuple[int, str]]:
    return [(int(d.seat), d.option_id) for d in replay.decisions]


def test_the_referees_house_seats_play_differently_on_the_same_match_seed() -> None:
    # Two matches on one seed: the same deal (here none), the same positions. Seeded from the
    # match seed, the house bots played the very same moves both times, so their moves were a
    # function of the seed; with their own fresh randomness they differ.
    async def scenario() -> list[Replay]:
        async with referee_env() as env:
            runners = [
                env.start("pickgame", ["house:random", "house:random"], seed=SEEDS[0], time=CALM, match_id=f"same-{n}")
                for n in range(2)
            ]
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in runners)), 60)
            assert all(r.state is MatchState.SUCCEEDED and r.replay is not None for r in runners)
            return [r.replay for r in runners if r.replay is not None]

    a, b = asyncio.run(scenario())
    assert a.seed == b.seed == SEEDS[0]
    assert len(a.decisions) == len(b.decisions) == TURNS
    assert all(d.source == "bot" for d in [*a.decisions, *b.decisions])
    assert _moves(a) != _moves(b)
    # Replays re-simulate from config, seed and the decision log alone: no bot seed needed.
    verify(a)
    verify(b)


def test_with_its_own_seed_fixed_a_house_bot_plays_the_same_moves_under_any_match_seed() -> None:
    # ``brawl play --bot-seed`` (a reproducible experiment): the bots' moves are a function of the
    # bot seed and what they see, so two match seeds give one sequence of moves.
    name = "random"
    series = [asyncio.run(play_series("pickgame", [name, name], games=1, seed=s, bot_seed=777)) for s in SEEDS]
    a, b = (s.replays[0] for s in series)
    assert (a.seed, b.seed) == SEEDS
    assert _moves(a) == _moves(b)
    for r in (a, b):
        verify(r)
    # And without a bot seed, the same match seed gives other moves.
    again = [asyncio.run(play_series("pickgame", [name, name], games=1, seed=SEEDS[0])).replays[0] for _ in range(2)]
    assert _moves(again[0]) != _moves(again[1])


def _picks(bot: Any) -> list[str]:
    """What ``bot`` plays, 24 times, at pickgame's opening position (the same input every time)."""
    match = PickMatch(chance=None)  # type: ignore[arg-type]
    decision = match.to_move()
    assert decision is not None
    options = match.legal_options()
    return [bot.choose(decision, match.observe(decision.seat), options) for _ in range(TURNS)]


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(RandomBot, id="sdk-RandomBot"),
        pytest.param(house_factory("pickgame", "random"), id="house_factory-random"),
        # The farm's weakest strength; its random moves come from the same stream at every epsilon.
        pytest.param(STRENGTHS["random"], id="farm-random"),
    ],
)
def test_a_house_bot_built_without_arguments_draws_its_own_randomness(make: Any) -> None:
    # ``brawl bot run referee.sdk.house:RandomBot`` and the ladder's farm build each bot with no
    # arguments: two instances used to share the seed 0, so an opponent with the source knew
    # every random move in advance.
    assert _picks(make()) != _picks(make())


def test_an_explicit_bot_seed_repeats_exactly() -> None:
    make = house_factory("pickgame", "random", seed=5)
    assert _picks(make()) == _picks(make())
    assert _picks(RandomBot(5)) == _picks(RandomBot(5))


PLAY = [sys.executable, "-m", "service.cli", "play", "--game", f"{__name__}:PickGame", "random", "random"]


def test_brawl_play_repeats_a_run_move_for_move_with_bot_seed_and_only_then(tmp_path: Path) -> None:
    def run(out: Path, *extra: str) -> list[list[tuple[int, str]]]:
        result = subprocess.run(
            [*PLAY, "--games", "2", "--seed", "9", "--out", str(out), *extra],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        return [_moves(Replay.load(f)) for f in sorted(out.glob("*.json.gz"))]

    fixed = [run(tmp_path / f"fixed-{n}", "--bot-seed", "4") for n in range(2)]
    fresh = [run(tmp_path / f"fresh-{n}") for n in range(2)]
    assert len(fixed[0]) == 2 and fixed[0] == fixed[1]
    assert fresh[0] != fresh[1]


def test_bot_run_house_spec_draws_a_seed_per_seat_and_needs_one_game() -> None:
    # ``brawl bot run house:NAME --games GAME`` is how deploy/ runs the house bots: each seat it
    # builds draws its own seed, like the factory it names.
    make = bot_factory("house:random", ["pickgame"])
    assert _picks(make()) != _picks(make())
    for games in ([], ["pickgame", "other"]):
        with pytest.raises(ValueError, match="one game"):
            bot_factory("house:random", games)
    with pytest.raises(UnknownHouseBotError):
        bot_factory("house:nonesuch", ["pickgame"])
