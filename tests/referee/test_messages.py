"""The match's message builder (referee.server.messages): cached and spliced encodings stay exact."""

from __future__ import annotations

import dataclasses
import random

import pytest
from brawl.bot.v1 import bot_pb2

from referee.core import get_game
from referee.core.contract import Decision, Option
from referee.core.ids import MatchId, Seat
from referee.core.replay import Recorder
from referee.protocol import codec
from referee.protocol.timecontrol import TimeSettings
from referee.server import messages
from referee.server.messages import MatchMessages
from referee.server.outgoing import OPTION_TAG, as_bytes, embedded
from referee.server.state import Pending, SeatSpec, SeatState


def test_an_option_is_encoded_once_and_again_when_its_content_changes_under_the_same_id() -> None:
    msgs = MatchMessages(MatchId("m1"), "tinygame", TimeSettings())

    def field(opt: Option) -> bytes:
        return embedded(OPTION_TAG, codec.option("tinygame", opt).SerializeToString())

    a = Option("take:1", "take", "Take 1", {"n": 1})
    first = msgs.option(a)
    assert first == field(a) and msgs.option(a) is first
    assert msgs.option(Option("take:1", "take", "Take 1", {"n": 1})) is first  # equal content, new object
    changed = Option("take:1", "take", "Take 1 (last)", {"n": 1})
    again = msgs.option(changed)
    assert again == field(changed) != first
    other = Option("take:1", "take", "Take 1 (last)", {"n": 2})
    assert msgs.option(other) == field(other) != again
    msgs.shed()
    assert msgs.option(a) == first


def test_option_encodings_are_shared_across_matches_only_for_equal_content(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second match of the game reuses the first one's encoding of an equal option; an option
    under the same id with other content is encoded afresh (never the other match's bytes), and
    the shared cache is cleared past OPTION_CACHE entries."""
    monkeypatch.setattr(messages, "_SHARED_OPTIONS", {})
    first, second = (MatchMessages(MatchId(m), "tinygame", TimeSettings()) for m in ("m1", "m2"))
    a = Option("take:1", "take", "Take 1", {"n": 1})
    encoded = first.option(a)
    assert second.option(Option("take:1", "take", "Take 1", {"n": 1})) is encoded
    changed = Option("take:1", "take", "Take 1", {"n": 5})
    assert second.option(changed) == embedded(OPTION_TAG, codec.option("tinygame", changed).SerializeToString())
    assert first.option(a) == encoded and first.option(a) is not encoded  # replaced by the other content
    assert MatchMessages(MatchId("m3"), "superfantasybrawl", TimeSettings())._options is not first._options

    monkeypatch.setattr(messages, "OPTION_CACHE", 3)
    for n in range(2):
        first.option(Option(f"take:{n + 10}", "take", "Take", {"n": n}))
    assert list(first._options) == ["take:1", "take:10", "take:11"]
    first.option(Option("take:99", "take", "Take", {"n": 99}))
    assert list(first._options) == ["take:99"] and second._options is first._options


def test_a_request_carries_each_options_current_content_under_a_reused_id() -> None:
    """The request's inlined cache check: the very option, an equal new one, and one changed in
    its label, params or kind under the same id each go out as that option's own encoding."""
    msgs = MatchMessages(MatchId("m1"), "tinygame", TimeSettings())
    st = SeatState(Seat(0), SeatSpec(), 30.0)
    msgs.match_start(st, "1", ["a", "b"], {}, {"n": 0}, False)
    a = Option("take:1", "take", "Take 1", {"n": 1})
    b = Option("take:2", "take", "Take 2", {"n": 2})
    rounds = [
        [a, b],
        [a, Option("take:2", "take", "Take 2", {"n": 2})],  # the very object, and an equal new one
        [Option("take:1", "take", "Take 1 (last)", {"n": 1}), b],  # label
        [Option("take:1", "take", "Take 1 (last)", {"n": 3}), b],  # params
        [Option("take:1", "give", "Take 1 (last)", {"n": 3}), b],  # kind
        [a, b],  # back to the first content
    ]
    decision = Decision(Seat(0), "take", "take some", "take:1")
    for i, options in enumerate(rounds):
        p = Pending(f"m1-{i}", decision, options, frozenset(o.id for o in options), i)
        sent = msgs.decision_request(st, p, {"n": i}, [], 0).to_message().decision_request
        assert list(sent.options) == [codec.option("tinygame", o) for o in options], i


@pytest.mark.parametrize("game", ["scrumbrawl", "superfantasybrawl"])
def test_a_spliced_request_parses_to_the_request_built_whole(game: str) -> None:
    """Over random games: the cached options and events spliced after the other fields give the
    same message as filling every field in place (and bytes any parser reads the same way)."""
    g = get_game(game)
    checked = 0
    for seed in (1, 2):
        rec = Recorder(g, g.parse_config({}, 2), seed, ["a", "b"], {})
        m = rec.match
        msgs = MatchMessages(MatchId("m"), game, TimeSettings())
        seats = [SeatState(Seat(i), SeatSpec(), 30.0) for i in range(2)]
        for st in seats:
            msgs.match_start(st, "1", ["a", "b"], {}, m.observe(st.seat), False)
        rng = random.Random(seed)
        total = len(m.events(0))
        while (d := m.to_move()) is not None and checked < 600:
            st = seats[d.seat]
            options = m.legal_options()
            events = m.events(st.events_sent, d.seat)
            st.events_sent = total
            p = Pending(f"m-{checked}", d, options, frozenset(o.id for o in options), checked)
            spliced = msgs.decision_request(st, p, m.observe(d.seat), events, st.events_numbered)
            msgs.stamp(spliced, 1.5, 1_000.0)
            whole = bot_pb2.ConnectResponse()
            whole.CopyFrom(spliced.head)
            whole.decision_request.options.extend([codec.option(game, o) for o in options])
            # Numbered in the seat's own sequence, not by their place in the full log.
            mine = [dataclasses.replace(e, index=n) for n, e in enumerate(events, st.events_numbered)]
            st.events_numbered += len(events)
            codec.add_events(whole.decision_request.events, game, mine)
            assert spliced.to_message() == whole
            assert as_bytes(spliced) == spliced.to_bytes() and len(spliced.to_bytes()) == whole.ByteSize()
            checked += 1
            total += len(rec.apply(rng.choice(options).id))
    assert checked >= 300
