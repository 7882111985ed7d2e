"""What the referee hands a seat's link: a message, or a decision request spliced from cached bytes.

Most of a ``DecisionRequest`` repeats from one decision to the next: the options (about 20 per
ScrumBrawl decision) and the events (each sent to every seat that may see it). Protobuf's encoding
lets a message's fields come in any order and a repeated field's elements follow one another
anywhere in it, so the referee encodes each option and event once (``tag``, length, bytes), and a
request is its other fields, serialised, followed by those cached pieces: :class:`Spliced`. What
a bot receives parses to exactly the message it would have been sent whole; only the bytes' field
order differs, which every protobuf parser accepts.

A link that needs a message object (an in-process bot, a session that asked for whole
observations, a re-send) calls :func:`as_message`; the network path calls :func:`as_bytes`.

A session whose Hello set ``batching`` gets the messages waiting for it at the same moment as one
``ResponseBatch`` (:func:`batch`): each element is a message's bytes, framed as a field, so a
batch costs a few bytes of framing and no encoding.
"""

from __future__ import annotations

from typing import Any

from brawl.bot.v1 import bot_pb2

_LEN = 2
"""The length-delimited wire type."""


def varint(n: int) -> bytes:
    """``n`` (>= 0) as a protobuf varint."""
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def field_tag(message: type[Any], name: str) -> bytes:
    """The tag of the length-delimited field ``name`` of ``message``."""
    return varint(message.DESCRIPTOR.fields_by_name[name].number << 3 | _LEN)


OPTION_TAG = field_tag(bot_pb2.DecisionRequest, "options")
EVENT_TAG = field_tag(bot_pb2.DecisionRequest, "events")
_REQUEST_TAG = field_tag(bot_pb2.ConnectResponse, "decision_request")
_BATCH_TAG = field_tag(bot_pb2.ConnectResponse, "batch")
_BATCH_ELEMENT_TAG = field_tag(bot_pb2.ResponseBatch, "messages")

MAX_BATCH = 64
"""Most messages in one ``ResponseBatch`` sent, or one ``RequestBatch`` accepted (``Welcome.max_batch``)."""
MAX_BATCH_BYTES = 1 << 20
"""A ``ResponseBatch`` is cut before its messages pass this many bytes (gRPC clients take 4 MiB by default)."""


def embedded(tag: bytes, payload: bytes) -> bytes:
    """One length-delimited field: ``tag``, the length of ``payload``, ``payload``."""
    return tag + varint(len(payload)) + payload


class Spliced:
    """A ``ConnectResponse`` with a ``decision_request`` whose cached options and events follow it.

    Args:
        head: The response without the request's options and events (its deadline is set last).
        tail: The options' and events' encoded fields, in order (see :func:`embedded`).
    """

    __slots__ = ("head", "tail")

    def __init__(self, head: bot_pb2.ConnectResponse, tail: bytes) -> None:
        self.head = head
        self.tail = tail

    def to_bytes(self) -> bytes:
        """The whole response, serialised."""
        request = self.head.decision_request.SerializeToString() + self.tail
        return _REQUEST_TAG + varint(len(request)) + request

    def to_message(self) -> bot_pb2.ConnectResponse:
        """The whole response as a message (parsed from :meth:`to_bytes`)."""
        return bot_pb2.ConnectResponse.FromString(self.to_bytes())


Outgoing = bot_pb2.ConnectResponse | Spliced
"""What a link's ``send`` takes."""


def as_message(message: Outgoing) -> bot_pb2.ConnectResponse:
    """``message`` as a ``ConnectResponse``."""
    return message.to_message() if isinstance(message, Spliced) else message


def as_bytes(message: Outgoing | bytes) -> bytes:
    """``message`` serialised (the bot port's response serialiser); bytes (a batch) pass as they are."""
    if isinstance(message, bytes):
        return message
    return message.to_bytes() if isinstance(message, Spliced) else message.SerializeToString()


def batch(serialised: list[bytes]) -> bytes:
    """A ``ConnectResponse`` whose ``batch`` holds the already serialised responses, in order.

    Each response becomes one element of ``ResponseBatch.messages`` by its bytes: nothing is
    parsed or encoded again.
    """
    inner = b"".join([_BATCH_ELEMENT_TAG + varint(len(b)) + b for b in serialised])
    return _BATCH_TAG + varint(len(inner)) + inner
