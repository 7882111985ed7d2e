"""House bots: the heuristic bot beats the random bot; both only see what a remote bot sees."""

from __future__ import annotations

from referee.core import Seat, SeededChance
from referee.core.bots import RandomPolicy
from referee.games.superfantasybrawl import SuperFantasyBrawl
from referee.games.superfantasybrawl.bots import HOUSE_BOTS, HeuristicPolicy

GAME = SuperFantasyBrawl()


def _duel(seed: int, seats: int = 2) -> bool:
    """Plays heuristic (team seed % 2) against random; returns whether the heuristic team won outright."""
    match = GAME.new_match(GAME.parse_config({}, seats), seats, SeededChance(seed))
    side = seed % 2
    bots = [HeuristicPolicy(seed) if s % 2 == side else RandomPolicy(seed + 101) for s in range(seats)]
    while (d := match.to_move()) is not None:
        match.apply(bots[d.seat].choose(d, match.observe(Seat(d.seat)), match.legal_options()))
    out = match.outcome()
    assert out is not None
    return out.ranks[side] == 1 and not out.is_draw


def test_house_bots_are_registered() -> None:
    """HOUSE_BOTS names the random and heuristic policies."""
    assert {"random": RandomPolicy, "heuristic": HeuristicPolicy} == HOUSE_BOTS


def test_heuristic_beats_random_in_at_least_80_percent_of_200_games() -> None:
    """Fixed seeds 0..199, alternating sides; a draw counts as a loss for the heuristic bot."""
    wins = sum(_duel(seed) for seed in range(200))
    assert wins >= 160, f"heuristic won only {wins} of 200"


def test_heuristic_also_wins_most_team_games() -> None:
    """4-player team games: the heuristic team beats the random team most of the time."""
    wins = sum(_duel(seed, 4) for seed in range(20))
    assert wins >= 14, f"heuristic team won only {wins} of 20"
