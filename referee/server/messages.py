"""The bot protocol messages of one match, built once and filled in place.

:class:`MatchMessages` belongs to one :class:`~referee.server.match.MatchRunner`. It keeps what
makes a decision cheap to send: each option's encoding, computed the first time the option is
offered (most options repeat from one decision to the next, and from one match to the next: the
encodings are shared by every match of a game in the process), and the differ that turns a seat's
previous observation into the next request's ``observation_patch``. Every message is written
where it lives in the ``ConnectResponse``; nothing is copied but the cached option encodings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from brawl.bot.v1 import bot_pb2

from referee.core.contract import Event, Option, Outcome
from referee.core.ids import MatchId
from referee.protocol import codec, delta
from referee.protocol.timecontrol import TimeSettings
from referee.server.clocks import set_duration, set_timestamp
from referee.server.outgoing import EVENT_TAG, OPTION_TAG, Outgoing, Spliced, embedded, varint
from referee.server.state import Pending, SeatState

_INDEX_TAG = varint(bot_pb2.GameEvent.DESCRIPTOR.fields_by_name["index"].number << 3)
"""The tag of ``GameEvent.index`` (a varint field)."""

EVENT_CACHE = 1024
"""Most event encodings a match keeps (a seat is normally sent an event within a few decisions)."""
OPTION_CACHE = 32_768
"""Most option encodings kept per game in the process (cleared past it). ScrumBrawl's move options
are one per creature and square, so a match mostly offers moves an earlier match offered already."""

_SHARED_OPTIONS: dict[str, dict[str, tuple[Option, bytes]]] = {}
"""Per game: each option id's last offered option and its encoded ``options`` field, shared by the
game's matches. An encoding is a function of the option's content alone, and is reused only for an
option whose content equals the one it was made from, so sharing reveals nothing across matches."""


def shared_options(game: str) -> dict[str, tuple[Option, bytes]]:
    """The option encodings shared by ``game``'s matches in this process (see :data:`OPTION_CACHE`)."""
    return _SHARED_OPTIONS.setdefault(game, {})


class MatchMessages:
    """Builds the messages of one match (see the module docstring).

    Args:
        match_id: The match.
        game: The game's name (picks the typed payloads).
        time: The match's time control.
    """

    def __init__(self, match_id: MatchId, game: str, time: TimeSettings) -> None:
        self.match_id = match_id
        self.game = game
        self.time = time
        self._time_proto = time.to_proto()
        self._options = shared_options(game)
        """Each option id's last offered option and its encoded ``options`` field (bytes only, where
        message objects took 1.5 % of the referee's time), shared with the game's other matches."""
        self._differ = delta.ObservationDiffer(game)
        self._events: dict[int, tuple[Event, bot_pb2.GameEvent, bytes]] = {}
        """Recent events' encodings by their index in the full log, without the index: each seat is
        sent the same event objects, each numbered in that seat's own sequence, so an event is encoded
        once and its bytes, behind the seat's number, go into every seat's request (cleared past
        ``EVENT_CACHE``)."""

    def shed(self) -> None:
        """Drops the match's caches (the match is over; the shared option encodings stay)."""
        self._options = {}
        self._events = {}
        self._differ = delta.ObservationDiffer(self.game)

    def _event(self, e: Event) -> tuple[Event, bot_pb2.GameEvent, bytes]:
        """``e``'s message and bytes with no ``index`` (proto3 leaves a zero out: the bytes are the
        message's fields after the index, in number order)."""
        cache = self._events
        hit = cache.get(e.index)
        if hit is not None and hit[0] is e:
            return hit
        if len(cache) > EVENT_CACHE:
            cache.clear()
        msg = codec.event(self.game, e)
        msg.index = 0
        hit = cache[e.index] = (e, msg, msg.SerializeToString())
        return hit

    def event_bytes(self, e: Event, number: int) -> bytes:
        """``e`` as one ``events`` field of a request, numbered ``number`` in the receiving viewer's sequence."""
        body = self._event(e)[2]
        if number:
            body = _INDEX_TAG + varint(number) + body
        return embedded(EVENT_TAG, body)

    def add_events(self, target: Any, events: Sequence[Event], first: int) -> None:
        """Appends ``events`` to a repeated ``GameEvent`` field, numbered from ``first`` in the viewer's
        sequence, each encoded once per match."""
        for n, e in enumerate(events, first):
            msg = target.add()
            msg.CopyFrom(self._event(e)[1])
            msg.index = n

    def option(self, opt: Option) -> bytes:
        """Returns ``opt``'s encoded ``options`` field, computed once while the option keeps its content."""
        hit = self._options.get(opt.id)
        if hit is not None and (hit[0] is opt or hit[0] == opt):
            return hit[1]
        encoded = embedded(OPTION_TAG, codec.option(self.game, opt).SerializeToString())
        cache = self._options
        if len(cache) >= OPTION_CACHE:
            cache.clear()
        cache[opt.id] = (opt, encoded)
        return encoded

    def match_start(
        self, st: SeatState, rules_version: str, seat_names: Sequence[str], config: Any, observation: Any, resumed: bool
    ) -> bot_pb2.ConnectResponse:
        """The ``MatchStart`` of ``st``'s seat, with the whole observation (the base of its patches)."""
        msg = bot_pb2.ConnectResponse()
        start = msg.match_start
        start.match_id = self.match_id
        start.game = self.game
        start.rules_version = rules_version
        start.seat = st.seat
        start.seat_names.extend(seat_names)
        start.config.update(config)
        start.time_control.CopyFrom(self._time_proto)
        start.resumed = resumed
        codec.fill_observation(start.observation, self.game, observation)
        st.obs_sent = observation
        return msg

    def decision_request(
        self, st: SeatState, p: Pending, observation: Any, events: Sequence[Event], first: int
    ) -> Spliced:
        """The ``DecisionRequest`` for ``p`` (its deadline is set by :meth:`stamp` when it goes out).

        ``events`` are the engine's events the seat may see and has not been sent; they are numbered
        from ``first`` in the seat's own sequence (never by their place in the full log).

        The observation goes whole when the seat's link holds none yet, else as the patch from the
        one it holds; either way the link holds ``observation`` afterwards. The options and events
        are their cached encodings, spliced after the rest (:mod:`referee.server.outgoing`).
        """
        msg = bot_pb2.ConnectResponse()
        req = msg.decision_request
        req.match_id = self.match_id
        req.decision_id = p.decision_id
        req.seat = st.seat
        req.decision_number = p.number
        req.kind = p.decision.kind
        req.prompt = p.decision.prompt
        if st.obs_sent is None:
            codec.fill_observation(req.observation, self.game, observation)
        else:
            ops = self._differ.diff(st.obs_sent, observation)
            if ops:
                delta.encode_into(req.observation_patch, ops)
        st.obs_sent = observation
        req.default_option_id = p.decision.default_option_id
        set_duration(req.decision_time, self.time.decision_time)
        set_duration(req.bank_remaining, st.bank)
        req.strikes = st.strikes
        if st.previous is not None:
            st.previous.fill(req.previous)
        # The option cache's hit path inlined: an option is the very object offered before (ScrumBrawl
        # keeps them), or one equal to it, compared field by field here (Super Fantasy Brawl makes
        # them afresh; the dataclass's own ``==`` builds two tuples and costs a Python call).
        cache, option, event = self._options, self.option, self.event_bytes
        pieces = []
        for o in p.options:
            hit = cache.get(o.id)
            if hit is not None:
                h = hit[0]
                if h is o or (h.params == o.params and h.label == o.label and h.kind == o.kind and type(h) is type(o)):
                    pieces.append(hit[1])
                    continue
            pieces.append(option(o))
        pieces.extend([event(e, n) for n, e in enumerate(events, first)])
        out = Spliced(msg, b"".join(pieces))
        p.request = out
        return out

    @staticmethod
    def resend(p: Pending) -> bot_pb2.ConnectResponse:
        """``p``'s request again for a new link, without the patch (the link was just sent the whole
        observation in a ``MatchStart``)."""
        assert p.request is not None
        msg = p.request.to_message()
        msg.decision_request.ClearField("observation_patch")
        return msg

    @staticmethod
    def stamp(msg: Outgoing, left: float, now: float) -> None:
        """Sets a request's deadline: ``left`` seconds from now, ``now`` being the wall clock."""
        req = (msg.head if isinstance(msg, Spliced) else msg).decision_request
        set_duration(req.deadline, left)
        set_timestamp(req.deadline_time, now + left)

    def error(
        self, code: bot_pb2.ErrorCode, message: str, decision_id: str = "", retry: bool = False, strikes: int = 0
    ) -> bot_pb2.ConnectResponse:
        """An ``Error`` about this match."""
        return bot_pb2.ConnectResponse(
            error=bot_pb2.Error(
                code=code,
                message=message,
                match_id=self.match_id,
                decision_id=decision_id,
                retry_allowed=retry,
                strikes=strikes,
            )
        )

    def match_end(
        self, st: SeatState, outcome: Outcome, events: Sequence[Event], first: int
    ) -> bot_pb2.ConnectResponse:
        """The ``MatchEnd`` of ``st``'s seat, with the events it has not been sent (numbered from ``first``)."""
        msg = bot_pb2.ConnectResponse()
        end = msg.match_end
        end.match_id = self.match_id
        end.seat = st.seat
        end.outcome.CopyFrom(codec.outcome(outcome))
        self.add_events(end.events, events, first)
        return msg
