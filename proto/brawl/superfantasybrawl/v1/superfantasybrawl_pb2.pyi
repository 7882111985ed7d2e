from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Observation(_message.Message):
    __slots__ = ("viewer", "seats", "phase", "round", "round_cap", "active_seat", "first_seat", "vp", "vp_to_win", "deploy_side", "champions", "players", "trap_hexes", "track", "challenge_deck_size", "challenge_discard", "standard_used", "hand", "planned_on_top")
    VIEWER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUND_CAP_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_SEAT_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    VP_FIELD_NUMBER: _ClassVar[int]
    VP_TO_WIN_FIELD_NUMBER: _ClassVar[int]
    DEPLOY_SIDE_FIELD_NUMBER: _ClassVar[int]
    CHAMPIONS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TRAP_HEXES_FIELD_NUMBER: _ClassVar[int]
    TRACK_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_DISCARD_FIELD_NUMBER: _ClassVar[int]
    STANDARD_USED_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    PLANNED_ON_TOP_FIELD_NUMBER: _ClassVar[int]
    viewer: int
    seats: int
    phase: str
    round: int
    round_cap: int
    active_seat: int
    first_seat: int
    vp: _containers.RepeatedScalarFieldContainer[int]
    vp_to_win: int
    deploy_side: _containers.RepeatedScalarFieldContainer[int]
    champions: _containers.RepeatedCompositeFieldContainer[ChampionView]
    players: _containers.RepeatedCompositeFieldContainer[PlayerView]
    trap_hexes: _containers.RepeatedCompositeFieldContainer[TrapHexView]
    track: _containers.RepeatedCompositeFieldContainer[ChallengeSlotView]
    challenge_deck_size: int
    challenge_discard: _containers.RepeatedScalarFieldContainer[str]
    standard_used: _containers.RepeatedScalarFieldContainer[str]
    hand: _containers.RepeatedScalarFieldContainer[str]
    planned_on_top: int
    def __init__(self, viewer: _Optional[int] = ..., seats: _Optional[int] = ..., phase: _Optional[str] = ..., round: _Optional[int] = ..., round_cap: _Optional[int] = ..., active_seat: _Optional[int] = ..., first_seat: _Optional[int] = ..., vp: _Optional[_Iterable[int]] = ..., vp_to_win: _Optional[int] = ..., deploy_side: _Optional[_Iterable[int]] = ..., champions: _Optional[_Iterable[_Union[ChampionView, _Mapping]]] = ..., players: _Optional[_Iterable[_Union[PlayerView, _Mapping]]] = ..., trap_hexes: _Optional[_Iterable[_Union[TrapHexView, _Mapping]]] = ..., track: _Optional[_Iterable[_Union[ChallengeSlotView, _Mapping]]] = ..., challenge_deck_size: _Optional[int] = ..., challenge_discard: _Optional[_Iterable[str]] = ..., standard_used: _Optional[_Iterable[str]] = ..., hand: _Optional[_Iterable[str]] = ..., planned_on_top: _Optional[int] = ...) -> None: ...

class ChampionView(_message.Message):
    __slots__ = ("id", "seat", "team", "hex", "on_gate", "damage", "hp", "defence", "levelled", "rooted", "bloodied", "move_bonus", "traits")
    ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    HEX_FIELD_NUMBER: _ClassVar[int]
    ON_GATE_FIELD_NUMBER: _ClassVar[int]
    DAMAGE_FIELD_NUMBER: _ClassVar[int]
    HP_FIELD_NUMBER: _ClassVar[int]
    DEFENCE_FIELD_NUMBER: _ClassVar[int]
    LEVELLED_FIELD_NUMBER: _ClassVar[int]
    ROOTED_FIELD_NUMBER: _ClassVar[int]
    BLOODIED_FIELD_NUMBER: _ClassVar[int]
    MOVE_BONUS_FIELD_NUMBER: _ClassVar[int]
    TRAITS_FIELD_NUMBER: _ClassVar[int]
    id: str
    seat: int
    team: int
    hex: str
    on_gate: bool
    damage: int
    hp: int
    defence: int
    levelled: bool
    rooted: bool
    bloodied: bool
    move_bonus: int
    traits: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., seat: _Optional[int] = ..., team: _Optional[int] = ..., hex: _Optional[str] = ..., on_gate: _Optional[bool] = ..., damage: _Optional[int] = ..., hp: _Optional[int] = ..., defence: _Optional[int] = ..., levelled: _Optional[bool] = ..., rooted: _Optional[bool] = ..., bloodied: _Optional[bool] = ..., move_bonus: _Optional[int] = ..., traits: _Optional[_Iterable[str]] = ...) -> None: ...

class PlayerView(_message.Message):
    __slots__ = ("seat", "team", "hand_size", "deck_size", "discard", "cores")
    class CoresEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bool
        def __init__(self, key: _Optional[str] = ..., value: _Optional[bool] = ...) -> None: ...
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    CORES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    team: int
    hand_size: int
    deck_size: int
    discard: _containers.RepeatedScalarFieldContainer[str]
    cores: _containers.ScalarMap[str, bool]
    def __init__(self, seat: _Optional[int] = ..., team: _Optional[int] = ..., hand_size: _Optional[int] = ..., deck_size: _Optional[int] = ..., discard: _Optional[_Iterable[str]] = ..., cores: _Optional[_Mapping[str, bool]] = ...) -> None: ...

class TrapHexView(_message.Message):
    __slots__ = ("hex", "has_trap")
    HEX_FIELD_NUMBER: _ClassVar[int]
    HAS_TRAP_FIELD_NUMBER: _ClassVar[int]
    hex: str
    has_trap: bool
    def __init__(self, hex: _Optional[str] = ..., has_trap: _Optional[bool] = ...) -> None: ...

class ChallengeSlotView(_message.Message):
    __slots__ = ("slot", "value", "challenge")
    SLOT_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    slot: int
    value: int
    challenge: str
    def __init__(self, slot: _Optional[int] = ..., value: _Optional[int] = ..., challenge: _Optional[str] = ...) -> None: ...

class OptionParams(_message.Message):
    __slots__ = ("card", "champion", "core", "action", "hex", "orientation", "targets", "hexes", "strength", "value", "seat", "cards", "count", "keyword")
    CARD_FIELD_NUMBER: _ClassVar[int]
    CHAMPION_FIELD_NUMBER: _ClassVar[int]
    CORE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    HEX_FIELD_NUMBER: _ClassVar[int]
    ORIENTATION_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    HEXES_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    KEYWORD_FIELD_NUMBER: _ClassVar[int]
    card: str
    champion: str
    core: str
    action: str
    hex: str
    orientation: int
    targets: _containers.RepeatedScalarFieldContainer[str]
    hexes: _containers.RepeatedScalarFieldContainer[str]
    strength: int
    value: int
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    count: int
    keyword: str
    def __init__(self, card: _Optional[str] = ..., champion: _Optional[str] = ..., core: _Optional[str] = ..., action: _Optional[str] = ..., hex: _Optional[str] = ..., orientation: _Optional[int] = ..., targets: _Optional[_Iterable[str]] = ..., hexes: _Optional[_Iterable[str]] = ..., strength: _Optional[int] = ..., value: _Optional[int] = ..., seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., count: _Optional[int] = ..., keyword: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("seat", "team", "champion", "card", "hex", "from_hex", "path", "mode", "amount", "source", "hp_left", "vps", "reason", "targets", "target", "defence", "strength", "keyword", "cards", "trap_kind", "challenge", "slot", "challenges", "round", "value", "ranks", "core", "action", "count")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    CHAMPION_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    HEX_FIELD_NUMBER: _ClassVar[int]
    FROM_HEX_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    HP_LEFT_FIELD_NUMBER: _ClassVar[int]
    VPS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    DEFENCE_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    KEYWORD_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    TRAP_KIND_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    SLOT_FIELD_NUMBER: _ClassVar[int]
    CHALLENGES_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    CORE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    team: int
    champion: str
    card: str
    hex: str
    from_hex: str
    path: _containers.RepeatedScalarFieldContainer[str]
    mode: str
    amount: int
    source: str
    hp_left: int
    vps: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    targets: _containers.RepeatedScalarFieldContainer[str]
    target: str
    defence: int
    strength: int
    keyword: str
    cards: _containers.RepeatedScalarFieldContainer[str]
    trap_kind: str
    challenge: str
    slot: int
    challenges: _containers.RepeatedScalarFieldContainer[str]
    round: int
    value: int
    ranks: _containers.RepeatedScalarFieldContainer[int]
    core: str
    action: str
    count: int
    def __init__(self, seat: _Optional[int] = ..., team: _Optional[int] = ..., champion: _Optional[str] = ..., card: _Optional[str] = ..., hex: _Optional[str] = ..., from_hex: _Optional[str] = ..., path: _Optional[_Iterable[str]] = ..., mode: _Optional[str] = ..., amount: _Optional[int] = ..., source: _Optional[str] = ..., hp_left: _Optional[int] = ..., vps: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., targets: _Optional[_Iterable[str]] = ..., target: _Optional[str] = ..., defence: _Optional[int] = ..., strength: _Optional[int] = ..., keyword: _Optional[str] = ..., cards: _Optional[_Iterable[str]] = ..., trap_kind: _Optional[str] = ..., challenge: _Optional[str] = ..., slot: _Optional[int] = ..., challenges: _Optional[_Iterable[str]] = ..., round: _Optional[int] = ..., value: _Optional[int] = ..., ranks: _Optional[_Iterable[int]] = ..., core: _Optional[str] = ..., action: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...
