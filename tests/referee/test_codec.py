"""The protocol codec: the fast typed paths agree exactly with the strict json_format ones.

Partitions: every observation, option and event of seeded random playouts of each product game
(typed payloads), encoded fast and strictly, decoded fast and strictly; data that does not fit
the message (unknown field, wrong type) still gets the strict parser's error; the generic Struct
fallback round-trips integers as ints.
"""

from __future__ import annotations

import pytest

from referee import wire
from referee.core import EVERYONE, Seat, SeededChance, get_game
from referee.core.bots import RandomPolicy
from referee.protocol import codec
from tests.referee.harness import normal

PRODUCT_GAMES = ["scrumbrawl", "superfantasybrawl"]


@pytest.mark.parametrize("game", PRODUCT_GAMES)
def test_fast_paths_match_json_format_on_real_payloads(game: str) -> None:
    g = get_game(game)
    payloads = 0
    for seed in range(2):
        match = g.new_match(g.default_config(2), 2, SeededChance(seed))
        policy = RandomPolicy(seed)
        steps = 0
        while (decision := match.to_move()) is not None and steps < 150:
            samples = [("observation", match.observe(v)) for v in (Seat(0), Seat(1), None)]
            samples += [("option", o.params) for o in match.legal_options()]
            for kind, data in samples:
                fast = codec.typed_message(game, kind, data)
                strict = wire.to_message(game, kind, data)
                assert fast == strict, (kind, data)
                assert codec.message_data(fast) == wire.to_data(strict)
                payloads += 1
            match.apply(policy.choose(decision, match.observe(decision.seat), match.legal_options()))
            steps += 1
        for e in match.events(0, EVERYONE):
            assert codec.typed_message(game, "event", e.data) == wire.to_message(game, "event", e.data)
            payloads += 1
    assert payloads > 500


@pytest.mark.parametrize("game", PRODUCT_GAMES)
def test_data_that_does_not_fit_gets_the_strict_error(game: str) -> None:
    with pytest.raises(wire.WireError, match="no_such_field"):
        codec.typed_message(game, "observation", {"no_such_field": 1})
    g = get_game(game)
    obs = g.new_match(g.default_config(2), 2, SeededChance(0)).observe(Seat(0))
    key = next(k for k, v in obs.items() if isinstance(v, int) and not isinstance(v, bool))
    with pytest.raises(wire.WireError):
        codec.typed_message(game, "observation", {**obs, key: "not a number"})


def test_generic_fallback_round_trips_plain_data() -> None:
    data = {"a": 1, "b": [1, 2.5, "x", None, True], "c": {"d": []}}
    msg = codec.observation("tinygame", data)
    assert msg.WhichOneof("payload") == "generic"
    assert codec.payload_data(msg) == normal(data)
    assert isinstance(codec.payload_data(msg)["a"], int)
