"""The match's message builder (referee.server.messages): cached option encodings stay exact."""

from __future__ import annotations

from referee.core.contract import Option
from referee.core.ids import MatchId
from referee.protocol import codec
from referee.protocol.timecontrol import TimeSettings
from referee.server.messages import MatchMessages


def test_an_option_is_encoded_once_and_again_when_its_content_changes_under_the_same_id() -> None:
    msgs = MatchMessages(MatchId("m1"), "tinygame", TimeSettings())
    a = Option("take:1", "take", "Take 1", {"n": 1})
    first = msgs.option(a)
    assert msgs.option(a) is first
    assert msgs.option(Option("take:1", "take", "Take 1", {"n": 1})) is first  # equal content, new object
    changed = Option("take:1", "take", "Take 1 (last)", {"n": 1})
    again = msgs.option(changed)
    assert again is not first and again == codec.option("tinygame", changed)
    other = Option("take:1", "take", "Take 1 (last)", {"n": 2})
    assert msgs.option(other) == codec.option("tinygame", other) != again
    msgs.shed()
    assert msgs.option(a) == first and msgs.option(a) is not first
