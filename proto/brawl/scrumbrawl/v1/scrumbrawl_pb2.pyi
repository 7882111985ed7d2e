from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Stats(_message.Message):
    __slots__ = ("T", "C", "R", "M", "A", "D")
    T_FIELD_NUMBER: _ClassVar[int]
    C_FIELD_NUMBER: _ClassVar[int]
    R_FIELD_NUMBER: _ClassVar[int]
    M_FIELD_NUMBER: _ClassVar[int]
    A_FIELD_NUMBER: _ClassVar[int]
    D_FIELD_NUMBER: _ClassVar[int]
    T: int
    C: int
    R: int
    M: int
    A: int
    D: int
    def __init__(self, T: _Optional[int] = ..., C: _Optional[int] = ..., R: _Optional[int] = ..., M: _Optional[int] = ..., A: _Optional[int] = ..., D: _Optional[int] = ...) -> None: ...

class CreatureView(_message.Message):
    __slots__ = ("id", "name", "color", "owner", "row", "col", "enchantment", "enchantment_name", "orb", "entered_turn", "steps_used", "moved", "done", "attacked", "stone", "flying", "stats", "attacks", "range_attack")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    COL_FIELD_NUMBER: _ClassVar[int]
    ENCHANTMENT_FIELD_NUMBER: _ClassVar[int]
    ENCHANTMENT_NAME_FIELD_NUMBER: _ClassVar[int]
    ORB_FIELD_NUMBER: _ClassVar[int]
    ENTERED_TURN_FIELD_NUMBER: _ClassVar[int]
    STEPS_USED_FIELD_NUMBER: _ClassVar[int]
    MOVED_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    ATTACKED_FIELD_NUMBER: _ClassVar[int]
    STONE_FIELD_NUMBER: _ClassVar[int]
    FLYING_FIELD_NUMBER: _ClassVar[int]
    STATS_FIELD_NUMBER: _ClassVar[int]
    ATTACKS_FIELD_NUMBER: _ClassVar[int]
    RANGE_ATTACK_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    color: str
    owner: int
    row: int
    col: int
    enchantment: str
    enchantment_name: str
    orb: str
    entered_turn: int
    steps_used: int
    moved: bool
    done: bool
    attacked: bool
    stone: bool
    flying: bool
    stats: Stats
    attacks: int
    range_attack: int
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., color: _Optional[str] = ..., owner: _Optional[int] = ..., row: _Optional[int] = ..., col: _Optional[int] = ..., enchantment: _Optional[str] = ..., enchantment_name: _Optional[str] = ..., orb: _Optional[str] = ..., entered_turn: _Optional[int] = ..., steps_used: _Optional[int] = ..., moved: _Optional[bool] = ..., done: _Optional[bool] = ..., attacked: _Optional[bool] = ..., stone: _Optional[bool] = ..., flying: _Optional[bool] = ..., stats: _Optional[_Union[Stats, _Mapping]] = ..., attacks: _Optional[int] = ..., range_attack: _Optional[int] = ...) -> None: ...

class OrbView(_message.Message):
    __slots__ = ("name", "row", "col", "carrier")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    COL_FIELD_NUMBER: _ClassVar[int]
    CARRIER_FIELD_NUMBER: _ClassVar[int]
    name: str
    row: int
    col: int
    carrier: str
    def __init__(self, name: _Optional[str] = ..., row: _Optional[int] = ..., col: _Optional[int] = ..., carrier: _Optional[str] = ...) -> None: ...

class PortalView(_message.Message):
    __slots__ = ("id", "row", "col", "owner")
    ID_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    COL_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    id: str
    row: int
    col: int
    owner: int
    def __init__(self, id: _Optional[str] = ..., row: _Optional[int] = ..., col: _Optional[int] = ..., owner: _Optional[int] = ...) -> None: ...

class CardView(_message.Message):
    __slots__ = ("card", "name", "type")
    CARD_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    card: str
    name: str
    type: str
    def __init__(self, card: _Optional[str] = ..., name: _Optional[str] = ..., type: _Optional[str] = ...) -> None: ...

class PlayerView(_message.Message):
    __slots__ = ("seat", "team", "hand_size", "blue_chips", "red_chips", "skins", "team_enchantments", "lms_chips", "eliminated", "first_turn_done", "creature_deck_size")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    BLUE_CHIPS_FIELD_NUMBER: _ClassVar[int]
    RED_CHIPS_FIELD_NUMBER: _ClassVar[int]
    SKINS_FIELD_NUMBER: _ClassVar[int]
    TEAM_ENCHANTMENTS_FIELD_NUMBER: _ClassVar[int]
    LMS_CHIPS_FIELD_NUMBER: _ClassVar[int]
    ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    FIRST_TURN_DONE_FIELD_NUMBER: _ClassVar[int]
    CREATURE_DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    team: int
    hand_size: int
    blue_chips: int
    red_chips: int
    skins: _containers.RepeatedScalarFieldContainer[str]
    team_enchantments: _containers.RepeatedCompositeFieldContainer[CardView]
    lms_chips: int
    eliminated: bool
    first_turn_done: bool
    creature_deck_size: int
    def __init__(self, seat: _Optional[int] = ..., team: _Optional[int] = ..., hand_size: _Optional[int] = ..., blue_chips: _Optional[int] = ..., red_chips: _Optional[int] = ..., skins: _Optional[_Iterable[str]] = ..., team_enchantments: _Optional[_Iterable[_Union[CardView, _Mapping]]] = ..., lms_chips: _Optional[int] = ..., eliminated: _Optional[bool] = ..., first_turn_done: _Optional[bool] = ..., creature_deck_size: _Optional[int] = ...) -> None: ...

class DraftPile(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[CardView]
    def __init__(self, cards: _Optional[_Iterable[_Union[CardView, _Mapping]]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("viewer", "seats", "active_seat", "turn", "round", "max_rounds", "phase", "teams", "last_man_standing", "creatures", "orbs", "portals", "players", "hand", "deck_size", "orb_deck_size", "discard", "creature_deck", "draft_piles")
    VIEWER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_SEAT_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    MAX_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    LAST_MAN_STANDING_FIELD_NUMBER: _ClassVar[int]
    CREATURES_FIELD_NUMBER: _ClassVar[int]
    ORBS_FIELD_NUMBER: _ClassVar[int]
    PORTALS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    ORB_DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    CREATURE_DECK_FIELD_NUMBER: _ClassVar[int]
    DRAFT_PILES_FIELD_NUMBER: _ClassVar[int]
    viewer: int
    seats: int
    active_seat: int
    turn: int
    round: int
    max_rounds: int
    phase: str
    teams: bool
    last_man_standing: bool
    creatures: _containers.RepeatedCompositeFieldContainer[CreatureView]
    orbs: _containers.RepeatedCompositeFieldContainer[OrbView]
    portals: _containers.RepeatedCompositeFieldContainer[PortalView]
    players: _containers.RepeatedCompositeFieldContainer[PlayerView]
    hand: _containers.RepeatedCompositeFieldContainer[CardView]
    deck_size: int
    orb_deck_size: int
    discard: _containers.RepeatedCompositeFieldContainer[CardView]
    creature_deck: _containers.RepeatedCompositeFieldContainer[CardView]
    draft_piles: _containers.RepeatedCompositeFieldContainer[DraftPile]
    def __init__(self, viewer: _Optional[int] = ..., seats: _Optional[int] = ..., active_seat: _Optional[int] = ..., turn: _Optional[int] = ..., round: _Optional[int] = ..., max_rounds: _Optional[int] = ..., phase: _Optional[str] = ..., teams: _Optional[bool] = ..., last_man_standing: _Optional[bool] = ..., creatures: _Optional[_Iterable[_Union[CreatureView, _Mapping]]] = ..., orbs: _Optional[_Iterable[_Union[OrbView, _Mapping]]] = ..., portals: _Optional[_Iterable[_Union[PortalView, _Mapping]]] = ..., players: _Optional[_Iterable[_Union[PlayerView, _Mapping]]] = ..., hand: _Optional[_Iterable[_Union[CardView, _Mapping]]] = ..., deck_size: _Optional[int] = ..., orb_deck_size: _Optional[int] = ..., discard: _Optional[_Iterable[_Union[CardView, _Mapping]]] = ..., creature_deck: _Optional[_Iterable[_Union[CardView, _Mapping]]] = ..., draft_piles: _Optional[_Iterable[_Union[DraftPile, _Mapping]]] = ...) -> None: ...

class OptionParams(_message.Message):
    __slots__ = ("card", "card_name", "creature", "target", "die", "delta", "row", "col", "choice", "portal", "to", "direction")
    CARD_FIELD_NUMBER: _ClassVar[int]
    CARD_NAME_FIELD_NUMBER: _ClassVar[int]
    CREATURE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    DIE_FIELD_NUMBER: _ClassVar[int]
    DELTA_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    COL_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    PORTAL_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    card: str
    card_name: str
    creature: str
    target: str
    die: int
    delta: int
    row: int
    col: int
    choice: str
    portal: str
    to: str
    direction: str
    def __init__(self, card: _Optional[str] = ..., card_name: _Optional[str] = ..., creature: _Optional[str] = ..., target: _Optional[str] = ..., die: _Optional[int] = ..., delta: _Optional[int] = ..., row: _Optional[int] = ..., col: _Optional[int] = ..., choice: _Optional[str] = ..., portal: _Optional[str] = ..., to: _Optional[str] = ..., direction: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("seat", "creature", "target", "card", "name", "row", "col", "from_row", "from_col", "dice", "purpose", "orb", "portal", "detail", "result", "attack_total", "defense_total", "total", "values", "ranks")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CREATURE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    COL_FIELD_NUMBER: _ClassVar[int]
    FROM_ROW_FIELD_NUMBER: _ClassVar[int]
    FROM_COL_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    PURPOSE_FIELD_NUMBER: _ClassVar[int]
    ORB_FIELD_NUMBER: _ClassVar[int]
    PORTAL_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ATTACK_TOTAL_FIELD_NUMBER: _ClassVar[int]
    DEFENSE_TOTAL_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    creature: str
    target: str
    card: str
    name: str
    row: int
    col: int
    from_row: int
    from_col: int
    dice: _containers.RepeatedScalarFieldContainer[int]
    purpose: str
    orb: str
    portal: str
    detail: str
    result: str
    attack_total: int
    defense_total: int
    total: int
    values: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., creature: _Optional[str] = ..., target: _Optional[str] = ..., card: _Optional[str] = ..., name: _Optional[str] = ..., row: _Optional[int] = ..., col: _Optional[int] = ..., from_row: _Optional[int] = ..., from_col: _Optional[int] = ..., dice: _Optional[_Iterable[int]] = ..., purpose: _Optional[str] = ..., orb: _Optional[str] = ..., portal: _Optional[str] = ..., detail: _Optional[str] = ..., result: _Optional[str] = ..., attack_total: _Optional[int] = ..., defense_total: _Optional[int] = ..., total: _Optional[int] = ..., values: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ...) -> None: ...
