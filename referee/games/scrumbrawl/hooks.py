"""The named hook points of ScrumBrawl: where a creature's ability, an orb's or an event's effect acts.

Abilities, orb effects and event effects are data: ``hooks`` in ``data/creatures.json`` and
``data/orbs.json`` and ``effects`` in ``data/cards.json`` name them. Each :class:`HookPoint` below is a
registry from hook name to what that hook does at that point of the rules, filled by the rules modules
with ``@POINT.register("hook")`` (as Super Fantasy Brawl's ``KEYWORDS``). The engine asks a point for
the handlers of a creature's or an orb's hooks (:meth:`HookPoint.of`) or whether any applies
(:meth:`HookPoint.holds`), and never compares an ability's, an orb's or a card's name;
``tests/games/scrumbrawl/test_hooks.py`` scans the engine for that and checks that every hook of the
data is registered at some point, and every registered hook is used.

A *trait* point holds a plain ``True`` per hook: the rule that reads it is the point itself (a Weak
creature cannot carry a heavy orb). A point with handlers calls them in the order of the sorted hook
names; in the data no creature or orb has two hooks at one point.

This module holds the points only; the handlers live beside the rules they belong to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

H = TypeVar("H")


class HookPoint(Generic[H]):
    """One point of the rules where hooks act: hook name to handler."""

    def __init__(self, name: str, doc: str) -> None:
        if name in POINTS:
            raise ValueError(f"scrumbrawl: hook point {name!r} is defined twice")
        self.name = name
        self.doc = doc
        self.handlers: dict[str, H] = {}
        self._holds: dict[frozenset[str], bool] = {}
        POINTS[name] = self

    def register(self, hook: str) -> Callable[[H], H]:
        """Registers the decorated handler of ``hook`` at this point."""

        def wrap(fn: H) -> H:
            if hook in self.handlers:
                raise ValueError(f"scrumbrawl: hook {hook!r} is registered twice at {self.name!r}")
            self.handlers[hook] = fn
            self._holds.clear()
            return fn

        return wrap

    def mark(self, *hooks: str) -> None:
        """Registers each of ``hooks`` at this trait point."""
        for hook in hooks:
            self.register(hook)(True)  # type: ignore[arg-type]

    def of(self, hooks: Iterable[str]) -> list[H]:
        """Returns the handlers registered here of ``hooks``, in the order of the sorted hook names."""
        if self.handlers.keys().isdisjoint(hooks):
            return []  # the common case, on a hot path (most creatures and orbs have no hook here)
        return [self.handlers[h] for h in sorted(hooks) if h in self.handlers]

    def holds(self, hooks: frozenset[str]) -> bool:
        """Whether any of ``hooks`` (a creature's or an orb's, from the content) is registered here."""
        hit = self._holds.get(hooks)
        if hit is None:
            # Cached by the hook set: content is immutable, and registering happens at import.
            hit = self._holds[hooks] = not self.handlers.keys().isdisjoint(hooks)
        return hit

    def __repr__(self) -> str:
        return f"HookPoint({self.name!r}, {sorted(self.handlers)!r})"


POINTS: dict[str, HookPoint[Any]] = {}
"""Every hook point, by name."""

# -- creatures (hooks of data/creatures.json) ------------------------------------------------------

ON_TURN_START: HookPoint[Any] = HookPoint("on_turn_start", "the owner's turn starts: handler(m, c)")
KILLS_ENCHANTED: HookPoint[bool] = HookPoint(
    "kills_enchanted", "trait: the creature's combat kills destroy an enchanted creature outright (like Venom)"
)
ON_COMBAT_DAMAGE: HookPoint[Any] = HookPoint(
    "on_combat_damage", "the creature takes lethal combat damage: handler(m, c, frame) schedules what follows"
)
SAVES_FRIENDS: HookPoint[bool] = HookPoint(
    "saves_friends", "trait: the creature may save a friendly creature being destroyed (d8 1-4)"
)
ON_DESTROYED: HookPoint[Any] = HookPoint(
    "on_destroyed", "the creature is destroyed (not sacrificed): handler(m, c) returns the frame to run"
)
AFTER_DEATH: HookPoint[Any] = HookPoint(
    "after_death", "what becomes of the destroyed creature instead of the Necromancers: handler(m, c, fate) -> frame"
)
ON_KILL: HookPoint[Any] = HookPoint(
    "on_kill", "the creature destroyed an enemy in combat: handler(m, killer, frame) instead of taking the skin"
)
EXTRA_TURN_ON_KILL: HookPoint[bool] = HookPoint(
    "extra_turn_on_kill", "trait: destroying an enemy on its own turn gives the creature another turn"
)
RAISES_DEAD: HookPoint[bool] = HookPoint("raises_dead", "trait: the creature may raise a destroyed creature")
REACH: HookPoint[Callable[[Any, Any, Any, bool], str | None]] = HookPoint(
    "reach", "another way to strike: handler(m, x, t, adjacent) returns the strike mode or None"
)
CHARGES: HookPoint[bool] = HookPoint("charges", "trait: the creature may charge (three squares straight)")
ON_ATTACKED: HookPoint[Any] = HookPoint("on_attacked", "the creature is attacked: handler(m, t)")
DEFENCE_DICE: HookPoint[Any] = HookPoint(
    "defence_dice", "extra dice rolled when the creature is struck: handler(m, t) -> list of dice"
)
GAZES: HookPoint[bool] = HookPoint("gazes", "trait: an enemy next to the creature must stop and risk stone")
WINDOW_ONLY: HookPoint[bool] = HookPoint(
    "window_only", "trait: the creature enters only through its own window (the Revenant), never by the Transmuter"
)
MAGIC_OPTIONS: HookPoint[Any] = HookPoint(
    "magic_options", "the creature's magic ability: handler(m, c) -> its options (section 1.6.4)"
)
MAGIC_USE: HookPoint[Any] = HookPoint("magic_use", "resolves the magic ability: handler(m, c, option params)")

# -- orbs (hooks of data/orbs.json) -------------------------------------------------------------

HEAVY: HookPoint[bool] = HookPoint(
    "heavy",
    "trait: grounds a carrier that is not Strong, whose modifiers a Strong carrier ignores; a Weak creature "
    "can neither carry nor move it",
)
ON_PICKUP: HookPoint[Any] = HookPoint(
    "on_pickup",
    "a creature tries to pick the orb up: handler(m, c, orb, how, roller) -> True if it took over (roller: who "
    "rolled the loose orb there, or None)",
)
ON_GAIN: HookPoint[Any] = HookPoint("on_gain", "a creature has gained the orb: handler(m, c)")
BEFORE_THROW: HookPoint[Any] = HookPoint("before_throw", "the carrier throws (a pass or a shot): handler(m, c)")
ON_HANDOFF: HookPoint[Any] = HookPoint(
    "on_handoff", "the carrier hands the orb off: handler(m, c, t) -> True if it took over"
)
AFTER_CATCH: HookPoint[Any] = HookPoint("after_catch", "a creature caught the orb: handler(m, t, orb)")
SHATTERS: HookPoint[bool] = HookPoint(
    "shatters", "trait: on a fumble, a failed catch or a destroyed carrier the orb shatters and is placed anew"
)
CARRIER_TURN_START: HookPoint[Any] = HookPoint("carrier_turn_start", "the carrier's owner's turn starts: handler(m, c)")
CARRIER_TURN_END: HookPoint[Any] = HookPoint("carrier_turn_end", "the carrier's owner's turn ends: handler(m, c)")
KILLER: HookPoint[bool] = HookPoint(
    "killer", "trait: the carrier strikes any creature in throwing range, T against D (section 2.4)"
)

# -- cards (effects of the events in data/cards.json) -------------------------------------------

INSTANT_EFFECT: HookPoint[Any] = HookPoint(
    "instant_effect", "an instant event's effect resolves, not Dispelled: handler(m, frame with 'cause')"
)
PLAYED_EFFECT: HookPoint[bool] = HookPoint(
    "played_effect",
    "trait: an event played from the hand into a window (Dispel, Fumble); the windows offer the cards that "
    "have this one effect (:func:`cards.played_cards_of`)",
)


def registered_hooks() -> set[str]:
    """Returns every hook registered at some point."""
    return {h for point in POINTS.values() for h in point.handlers}
