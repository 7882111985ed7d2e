"""The test game Triboard is a well-formed game (the conformance kit) and its view hooks pass the checks
the shipped games' do: the schema, targets that name cells and cards of the deciding seat's view, a
sentence of its own for every event kind, and a seat's view that shows the other seat's runes as a count."""

from __future__ import annotations

from referee.core import EVERYONE, Seat, SeededChance
from referee.core.bots import RandomPolicy
from referee.core.conformance import run_conformance
from referee.core.registry import register
from referee.core.view import validate_view
from tests.games.triboard import TriBoard
from tests.games.triboard.game import SENTENCES, neighbours


def test_triboard_passes_the_conformance_kit() -> None:
    register(TriBoard())  # the replay check looks the game up by name
    report = run_conformance(TriBoard(), 2, range(6))
    assert report is not None


def test_neighbours_share_an_edge() -> None:
    assert sorted(neighbours(4, 0, 0)) == [(1, 1)]
    assert sorted(neighbours(4, 1, 1)) == [(0, 0), (1, 0), (1, 2)]
    assert sorted(neighbours(4, 3, 0)) == [(3, 1)]
    # Symmetric: a neighbour's neighbour is the triangle itself.
    for r in range(4):
        for i in range(2 * r + 1):
            assert all((r, i) in neighbours(4, *n) for n in neighbours(4, r, i))


def test_triboard_view_hooks() -> None:
    game = TriBoard()
    for seed in range(4):
        match = game.new_match(game.default_config(2), 2, SeededChance(seed))
        policies = [RandomPolicy(seed), RandomPolicy(seed + 10)]
        while (decision := match.to_move()) is not None:
            own = game.board_view(match.observe(decision.seat), decision.seat)
            validate_view(own.to_json())
            for option in match.legal_options():
                assert game.option_targets(option, own).missing_from(own) == []
            other = game.board_view(match.observe(Seat(1 - decision.seat)), Seat(1 - decision.seat))
            hidden = next(a for a in other.areas if a.id == f"hand:{decision.seat}")
            assert hidden.cards == () and hidden.hidden == len(match.observe(decision.seat)["hand"])
            match.apply(policies[decision.seat].choose(decision, match.observe(decision.seat), match.legal_options()))
        kinds = {e.kind for e in match.events(0, EVERYONE)}
        assert kinds <= set(SENTENCES.templates)
