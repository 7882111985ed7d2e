import datetime

from brawl.scrumbrawl.v1 import scrumbrawl_pb2 as _scrumbrawl_pb2
from brawl.superfantasybrawl.v1 import superfantasybrawl_pb2 as _superfantasybrawl_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Termination(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TERMINATION_UNSPECIFIED: _ClassVar[Termination]
    TERMINATION_VICTORY: _ClassVar[Termination]
    TERMINATION_ROUND_CAP: _ClassVar[Termination]
    TERMINATION_LAST_STANDING: _ClassVar[Termination]
    TERMINATION_FORFEIT: _ClassVar[Termination]
    TERMINATION_CANCELLED: _ClassVar[Termination]

class ErrorCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_CODE_UNSPECIFIED: _ClassVar[ErrorCode]
    ERROR_CODE_MALFORMED: _ClassVar[ErrorCode]
    ERROR_CODE_ILLEGAL_OPTION: _ClassVar[ErrorCode]
    ERROR_CODE_STALE_DECISION: _ClassVar[ErrorCode]
    ERROR_CODE_UNKNOWN_MATCH: _ClassVar[ErrorCode]
    ERROR_CODE_OUT_OF_ORDER: _ClassVar[ErrorCode]
    ERROR_CODE_TIMEOUT: _ClassVar[ErrorCode]
    ERROR_CODE_FORFEITED: _ClassVar[ErrorCode]
TERMINATION_UNSPECIFIED: Termination
TERMINATION_VICTORY: Termination
TERMINATION_ROUND_CAP: Termination
TERMINATION_LAST_STANDING: Termination
TERMINATION_FORFEIT: Termination
TERMINATION_CANCELLED: Termination
ERROR_CODE_UNSPECIFIED: ErrorCode
ERROR_CODE_MALFORMED: ErrorCode
ERROR_CODE_ILLEGAL_OPTION: ErrorCode
ERROR_CODE_STALE_DECISION: ErrorCode
ERROR_CODE_UNKNOWN_MATCH: ErrorCode
ERROR_CODE_OUT_OF_ORDER: ErrorCode
ERROR_CODE_TIMEOUT: ErrorCode
ERROR_CODE_FORFEITED: ErrorCode

class ConnectRequest(_message.Message):
    __slots__ = ("hello", "answer", "pong", "batch", "resign")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    PONG_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    RESIGN_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    answer: Answer
    pong: Pong
    batch: RequestBatch
    resign: Resign
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., answer: _Optional[_Union[Answer, _Mapping]] = ..., pong: _Optional[_Union[Pong, _Mapping]] = ..., batch: _Optional[_Union[RequestBatch, _Mapping]] = ..., resign: _Optional[_Union[Resign, _Mapping]] = ...) -> None: ...

class RequestBatch(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[ConnectRequest]
    def __init__(self, messages: _Optional[_Iterable[_Union[ConnectRequest, _Mapping]]] = ...) -> None: ...

class ConnectResponse(_message.Message):
    __slots__ = ("welcome", "match_start", "decision_request", "match_end", "ping", "error", "batch")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    DECISION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_start: MatchStart
    decision_request: DecisionRequest
    match_end: MatchEnd
    ping: Ping
    error: Error
    batch: ResponseBatch
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., decision_request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., ping: _Optional[_Union[Ping, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., batch: _Optional[_Union[ResponseBatch, _Mapping]] = ...) -> None: ...

class ResponseBatch(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[ConnectResponse]
    def __init__(self, messages: _Optional[_Iterable[_Union[ConnectResponse, _Mapping]]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("games", "max_matches", "client", "full_observations", "auto_pass_kinds", "batching")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MAX_MATCHES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    FULL_OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    AUTO_PASS_KINDS_FIELD_NUMBER: _ClassVar[int]
    BATCHING_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedScalarFieldContainer[str]
    max_matches: int
    client: str
    full_observations: bool
    auto_pass_kinds: _containers.RepeatedScalarFieldContainer[str]
    batching: bool
    def __init__(self, games: _Optional[_Iterable[str]] = ..., max_matches: _Optional[int] = ..., client: _Optional[str] = ..., full_observations: _Optional[bool] = ..., auto_pass_kinds: _Optional[_Iterable[str]] = ..., batching: _Optional[bool] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("session_id", "bot_id", "bot_name", "version_id", "games", "max_matches", "protocol", "max_message_bytes", "max_note_chars", "ping_interval", "max_batch")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MAX_MATCHES_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_NOTE_CHARS_FIELD_NUMBER: _ClassVar[int]
    PING_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    bot_id: str
    bot_name: str
    version_id: str
    games: _containers.RepeatedScalarFieldContainer[str]
    max_matches: int
    protocol: str
    max_message_bytes: int
    max_note_chars: int
    ping_interval: _duration_pb2.Duration
    max_batch: int
    def __init__(self, session_id: _Optional[str] = ..., bot_id: _Optional[str] = ..., bot_name: _Optional[str] = ..., version_id: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., max_matches: _Optional[int] = ..., protocol: _Optional[str] = ..., max_message_bytes: _Optional[int] = ..., max_note_chars: _Optional[int] = ..., ping_interval: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., max_batch: _Optional[int] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "game", "rules_version", "seat", "seat_names", "config", "time_control", "resumed", "observation")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    rules_version: str
    seat: int
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    config: _struct_pb2.Struct
    time_control: TimeControl
    resumed: bool
    observation: Observation
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., rules_version: _Optional[str] = ..., seat: _Optional[int] = ..., seat_names: _Optional[_Iterable[str]] = ..., config: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., resumed: _Optional[bool] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("decision_time", "bank_time", "max_overrun", "max_strikes", "reconnect_grace", "max_rtt_credit")
    DECISION_TIME_FIELD_NUMBER: _ClassVar[int]
    BANK_TIME_FIELD_NUMBER: _ClassVar[int]
    MAX_OVERRUN_FIELD_NUMBER: _ClassVar[int]
    MAX_STRIKES_FIELD_NUMBER: _ClassVar[int]
    RECONNECT_GRACE_FIELD_NUMBER: _ClassVar[int]
    MAX_RTT_CREDIT_FIELD_NUMBER: _ClassVar[int]
    decision_time: _duration_pb2.Duration
    bank_time: _duration_pb2.Duration
    max_overrun: _duration_pb2.Duration
    max_strikes: int
    reconnect_grace: _duration_pb2.Duration
    max_rtt_credit: _duration_pb2.Duration
    def __init__(self, decision_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., bank_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., max_overrun: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., max_strikes: _Optional[int] = ..., reconnect_grace: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., max_rtt_credit: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("match_id", "decision_id", "seat", "decision_number", "kind", "prompt", "observation", "options", "default_option_id", "events", "deadline", "deadline_time", "decision_time", "bank_remaining", "strikes", "previous", "observation_patch")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_OPTION_ID_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_TIME_FIELD_NUMBER: _ClassVar[int]
    DECISION_TIME_FIELD_NUMBER: _ClassVar[int]
    BANK_REMAINING_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_PATCH_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    decision_id: str
    seat: int
    decision_number: int
    kind: str
    prompt: str
    observation: Observation
    options: _containers.RepeatedCompositeFieldContainer[Option]
    default_option_id: str
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    deadline: _duration_pb2.Duration
    deadline_time: _timestamp_pb2.Timestamp
    decision_time: _duration_pb2.Duration
    bank_remaining: _duration_pb2.Duration
    strikes: int
    previous: AnswerTiming
    observation_patch: _containers.RepeatedCompositeFieldContainer[PatchOp]
    def __init__(self, match_id: _Optional[str] = ..., decision_id: _Optional[str] = ..., seat: _Optional[int] = ..., decision_number: _Optional[int] = ..., kind: _Optional[str] = ..., prompt: _Optional[str] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., options: _Optional[_Iterable[_Union[Option, _Mapping]]] = ..., default_option_id: _Optional[str] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ..., deadline: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., deadline_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., decision_time: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., bank_remaining: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., strikes: _Optional[int] = ..., previous: _Optional[_Union[AnswerTiming, _Mapping]] = ..., observation_patch: _Optional[_Iterable[_Union[PatchOp, _Mapping]]] = ...) -> None: ...

class PatchOp(_message.Message):
    __slots__ = ("op", "path", "value")
    OP_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    op: str
    path: str
    value: str
    def __init__(self, op: _Optional[str] = ..., path: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class AnswerTiming(_message.Message):
    __slots__ = ("elapsed", "rtt_credit", "charged", "bank_drawn")
    ELAPSED_FIELD_NUMBER: _ClassVar[int]
    RTT_CREDIT_FIELD_NUMBER: _ClassVar[int]
    CHARGED_FIELD_NUMBER: _ClassVar[int]
    BANK_DRAWN_FIELD_NUMBER: _ClassVar[int]
    elapsed: _duration_pb2.Duration
    rtt_credit: _duration_pb2.Duration
    charged: _duration_pb2.Duration
    bank_drawn: _duration_pb2.Duration
    def __init__(self, elapsed: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., rtt_credit: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., charged: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., bank_drawn: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class Answer(_message.Message):
    __slots__ = ("match_id", "decision_id", "option_id", "note")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    OPTION_ID_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    decision_id: str
    option_id: str
    note: str
    def __init__(self, match_id: _Optional[str] = ..., decision_id: _Optional[str] = ..., option_id: _Optional[str] = ..., note: _Optional[str] = ...) -> None: ...

class Resign(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id", "seat", "outcome", "events")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    outcome: Outcome
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class Outcome(_message.Message):
    __slots__ = ("ranks", "termination", "reason", "scores")
    RANKS_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    termination: Termination
    reason: str
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, ranks: _Optional[_Iterable[int]] = ..., termination: _Optional[_Union[Termination, str]] = ..., reason: _Optional[str] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class Ping(_message.Message):
    __slots__ = ("ping_id",)
    PING_ID_FIELD_NUMBER: _ClassVar[int]
    ping_id: int
    def __init__(self, ping_id: _Optional[int] = ...) -> None: ...

class Pong(_message.Message):
    __slots__ = ("ping_id",)
    PING_ID_FIELD_NUMBER: _ClassVar[int]
    ping_id: int
    def __init__(self, ping_id: _Optional[int] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message", "match_id", "decision_id", "retry_allowed", "strikes")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    RETRY_ALLOWED_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    code: ErrorCode
    message: str
    match_id: str
    decision_id: str
    retry_allowed: bool
    strikes: int
    def __init__(self, code: _Optional[_Union[ErrorCode, str]] = ..., message: _Optional[str] = ..., match_id: _Optional[str] = ..., decision_id: _Optional[str] = ..., retry_allowed: _Optional[bool] = ..., strikes: _Optional[int] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("generic", "scrumbrawl", "superfantasybrawl")
    GENERIC_FIELD_NUMBER: _ClassVar[int]
    SCRUMBRAWL_FIELD_NUMBER: _ClassVar[int]
    SUPERFANTASYBRAWL_FIELD_NUMBER: _ClassVar[int]
    generic: _struct_pb2.Struct
    scrumbrawl: _scrumbrawl_pb2.Observation
    superfantasybrawl: _superfantasybrawl_pb2.Observation
    def __init__(self, generic: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., scrumbrawl: _Optional[_Union[_scrumbrawl_pb2.Observation, _Mapping]] = ..., superfantasybrawl: _Optional[_Union[_superfantasybrawl_pb2.Observation, _Mapping]] = ...) -> None: ...

class OptionParams(_message.Message):
    __slots__ = ("generic", "scrumbrawl", "superfantasybrawl")
    GENERIC_FIELD_NUMBER: _ClassVar[int]
    SCRUMBRAWL_FIELD_NUMBER: _ClassVar[int]
    SUPERFANTASYBRAWL_FIELD_NUMBER: _ClassVar[int]
    generic: _struct_pb2.Struct
    scrumbrawl: _scrumbrawl_pb2.OptionParams
    superfantasybrawl: _superfantasybrawl_pb2.OptionParams
    def __init__(self, generic: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., scrumbrawl: _Optional[_Union[_scrumbrawl_pb2.OptionParams, _Mapping]] = ..., superfantasybrawl: _Optional[_Union[_superfantasybrawl_pb2.OptionParams, _Mapping]] = ...) -> None: ...

class Option(_message.Message):
    __slots__ = ("id", "kind", "label", "params")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: str
    label: str
    params: OptionParams
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[str] = ..., label: _Optional[str] = ..., params: _Optional[_Union[OptionParams, _Mapping]] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ("index", "kind", "generic", "scrumbrawl", "superfantasybrawl")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    GENERIC_FIELD_NUMBER: _ClassVar[int]
    SCRUMBRAWL_FIELD_NUMBER: _ClassVar[int]
    SUPERFANTASYBRAWL_FIELD_NUMBER: _ClassVar[int]
    index: int
    kind: str
    generic: _struct_pb2.Struct
    scrumbrawl: _scrumbrawl_pb2.Event
    superfantasybrawl: _superfantasybrawl_pb2.Event
    def __init__(self, index: _Optional[int] = ..., kind: _Optional[str] = ..., generic: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., scrumbrawl: _Optional[_Union[_scrumbrawl_pb2.Event, _Mapping]] = ..., superfantasybrawl: _Optional[_Union[_superfantasybrawl_pb2.Event, _Mapping]] = ...) -> None: ...
