import datetime

from brawl.bot.v1 import bot_pb2 as _bot_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Match(_message.Message):
    __slots__ = ("match_id", "game", "state", "seats", "config", "seed", "time_control", "outcome", "decision_count", "create_time", "start_time", "end_time", "replay_uri", "labels", "incidents", "seed_commitment")
    class State(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATE_UNSPECIFIED: _ClassVar[Match.State]
        STATE_PENDING: _ClassVar[Match.State]
        STATE_RUNNING: _ClassVar[Match.State]
        STATE_SUCCEEDED: _ClassVar[Match.State]
        STATE_CANCELLED: _ClassVar[Match.State]
        STATE_FAILED: _ClassVar[Match.State]
    STATE_UNSPECIFIED: Match.State
    STATE_PENDING: Match.State
    STATE_RUNNING: Match.State
    STATE_SUCCEEDED: Match.State
    STATE_CANCELLED: Match.State
    STATE_FAILED: Match.State
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    DECISION_COUNT_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    REPLAY_URI_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    INCIDENTS_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    state: Match.State
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    config: _struct_pb2.Struct
    seed: int
    time_control: _bot_pb2.TimeControl
    outcome: _bot_pb2.Outcome
    decision_count: int
    create_time: _timestamp_pb2.Timestamp
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    replay_uri: str
    labels: _containers.ScalarMap[str, str]
    incidents: _containers.RepeatedScalarFieldContainer[str]
    seed_commitment: str
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., state: _Optional[_Union[Match.State, str]] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., config: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., seed: _Optional[int] = ..., time_control: _Optional[_Union[_bot_pb2.TimeControl, _Mapping]] = ..., outcome: _Optional[_Union[_bot_pb2.Outcome, _Mapping]] = ..., decision_count: _Optional[int] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., replay_uri: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., incidents: _Optional[_Iterable[str]] = ..., seed_commitment: _Optional[str] = ...) -> None: ...

class Seat(_message.Message):
    __slots__ = ("bot_id", "house_bot", "display_name", "connected", "strikes")
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    HOUSE_BOT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    bot_id: str
    house_bot: str
    display_name: str
    connected: bool
    strikes: int
    def __init__(self, bot_id: _Optional[str] = ..., house_bot: _Optional[str] = ..., display_name: _Optional[str] = ..., connected: _Optional[bool] = ..., strikes: _Optional[int] = ...) -> None: ...

class StartMatchRequest(_message.Message):
    __slots__ = ("request_id", "match_id", "game", "seats", "config", "seed", "time_control", "join_timeout_seconds", "labels")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    JOIN_TIMEOUT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    match_id: str
    game: str
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    config: _struct_pb2.Struct
    seed: int
    time_control: _bot_pb2.TimeControl
    join_timeout_seconds: float
    labels: _containers.ScalarMap[str, str]
    def __init__(self, request_id: _Optional[str] = ..., match_id: _Optional[str] = ..., game: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., config: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., seed: _Optional[int] = ..., time_control: _Optional[_Union[_bot_pb2.TimeControl, _Mapping]] = ..., join_timeout_seconds: _Optional[float] = ..., labels: _Optional[_Mapping[str, str]] = ...) -> None: ...

class StartMatchResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: Match
    def __init__(self, match: _Optional[_Union[Match, _Mapping]] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class GetMatchResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: Match
    def __init__(self, match: _Optional[_Union[Match, _Mapping]] = ...) -> None: ...

class CancelMatchRequest(_message.Message):
    __slots__ = ("request_id", "match_id", "reason")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    match_id: str
    reason: str
    def __init__(self, request_id: _Optional[str] = ..., match_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class CancelMatchResponse(_message.Message):
    __slots__ = ("match",)
    MATCH_FIELD_NUMBER: _ClassVar[int]
    match: Match
    def __init__(self, match: _Optional[_Union[Match, _Mapping]] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "state")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    state: Match.State
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., state: _Optional[_Union[Match.State, str]] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[Match]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[Match, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class WatchMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class WatchMatchResponse(_message.Message):
    __slots__ = ("match_id", "state", "decision_count", "observation", "events", "outcome")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    DECISION_COUNT_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    state: Match.State
    decision_count: int
    observation: _bot_pb2.Observation
    events: _containers.RepeatedCompositeFieldContainer[_bot_pb2.GameEvent]
    outcome: _bot_pb2.Outcome
    def __init__(self, match_id: _Optional[str] = ..., state: _Optional[_Union[Match.State, str]] = ..., decision_count: _Optional[int] = ..., observation: _Optional[_Union[_bot_pb2.Observation, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_bot_pb2.GameEvent, _Mapping]]] = ..., outcome: _Optional[_Union[_bot_pb2.Outcome, _Mapping]] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: str
    def __init__(self, game: _Optional[str] = ...) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots", "accepting")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    ACCEPTING_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[ConnectedBot]
    accepting: bool
    def __init__(self, bots: _Optional[_Iterable[_Union[ConnectedBot, _Mapping]]] = ..., accepting: _Optional[bool] = ...) -> None: ...

class ConnectedBot(_message.Message):
    __slots__ = ("bot_id", "version_id", "bot_name", "games", "max_matches", "active_matches")
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MAX_MATCHES_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_MATCHES_FIELD_NUMBER: _ClassVar[int]
    bot_id: str
    version_id: str
    bot_name: str
    games: _containers.RepeatedScalarFieldContainer[str]
    max_matches: int
    active_matches: int
    def __init__(self, bot_id: _Optional[str] = ..., version_id: _Optional[str] = ..., bot_name: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., max_matches: _Optional[int] = ..., active_matches: _Optional[int] = ...) -> None: ...
