"""Chance: the one source of dice, shuffles and random picks an engine may use.

An engine never calls :mod:`random`; every roll, shuffle and face-down pick goes through the
:class:`Chance` handed to it by its caller. The referee hands over a :class:`SeededChance`, so a
match is a pure function of (rules version, config, seed, decisions). Rules tests hand over a
:class:`ScriptedChance` holding the exact dice of the case.

The generator is SplitMix64, specified here in full rather than borrowed from :mod:`random`, so
that the same seed gives the same dice on any Python version and in any language.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from referee.core.errors import ChanceExhaustedError

T = TypeVar("T")

_MASK64 = (1 << 64) - 1


class Chance(Protocol):
    """What an engine may ask of chance."""

    def roll(self, sides: int) -> int:
        """Returns a fair roll of a die with ``sides`` faces, from 1 to ``sides``."""
        ...

    def below(self, n: int) -> int:
        """Returns a uniform integer from 0 to ``n - 1``."""
        ...

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffles ``items`` in place."""
        ...


@dataclass(frozen=True, slots=True)
class Draw:
    """One outcome taken from a chance source, kept for audit and replay checks."""

    kind: str
    """``"roll"``, ``"below"`` or ``"shuffle"``."""
    size: int
    """The die's sides, the bound, or the length of the shuffled sequence."""
    result: int
    """The roll or the integer drawn; for a shuffle, 0."""


class SeededChance:
    """A deterministic chance source seeded by a 64-bit integer (SplitMix64).

    Args:
        seed: Any integer; it is reduced modulo 2**64.

    Every outcome is appended to :attr:`draws`.
    """

    __slots__ = ("_state", "draws", "seed")

    def __init__(self, seed: int) -> None:
        self.seed = seed & _MASK64
        self._state = self.seed
        self.draws: list[Draw] = []

    def _next64(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK64
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def _below(self, n: int) -> int:
        if n <= 0:
            raise ValueError(f"bound must be positive, got {n!r}")
        # Rejection sampling keeps every value equally likely.
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self._next64()
            if x < limit:
                return x % n

    def roll(self, sides: int) -> int:
        """Returns a fair roll from 1 to ``sides``."""
        result = self._below(sides) + 1
        self.draws.append(Draw("roll", sides, result))
        return result

    def below(self, n: int) -> int:
        """Returns a uniform integer from 0 to ``n - 1``."""
        result = self._below(n)
        self.draws.append(Draw("below", n, result))
        return result

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffles ``items`` in place (Fisher-Yates, from the end)."""
        for i in range(len(items) - 1, 0, -1):
            j = self._below(i + 1)
            items[i], items[j] = items[j], items[i]
        self.draws.append(Draw("shuffle", len(items), 0))

    def spawn(self, salt: int) -> SeededChance:
        """Returns an independent source derived from this one's seed and ``salt``.

        Used where a caller needs a second stream (a bot's own randomness, a determinization)
        without disturbing the match's stream.
        """
        return SeededChance(SeededChance(self.seed ^ ((salt * 0x9E3779B97F4A7C15) & _MASK64))._next64())


@dataclass
class ScriptedChance:
    """A chance source that plays back exact outcomes, for rules tests.

    Args:
        rolls: The results to return, in order, from :meth:`roll` and :meth:`below`.
        shuffles: Permutations to apply, in order; a shuffle with none left keeps the order as
            given, so a test that lays out a deck gets that deck.

    Raises:
        ChanceExhaustedError: From :meth:`roll` or :meth:`below` when no scripted result is left,
            or when a scripted result does not fit the die.
    """

    rolls: list[int] = field(default_factory=list)
    shuffles: list[Sequence[int]] = field(default_factory=list)
    draws: list[Draw] = field(default_factory=list)

    @classmethod
    def of(cls, *rolls: int) -> ScriptedChance:
        """Returns a source that yields ``rolls`` in order."""
        return cls(rolls=list(rolls))

    def _take(self, kind: str, size: int, low: int) -> int:
        if not self.rolls:
            raise ChanceExhaustedError(f"no scripted outcome left for a {kind} of {size}")
        value = self.rolls.pop(0)
        if not low <= value < low + size:
            raise ChanceExhaustedError(f"scripted outcome {value!r} does not fit a {kind} of {size}")
        self.draws.append(Draw(kind, size, value))
        return value

    def roll(self, sides: int) -> int:
        """Returns the next scripted roll, checked against the die."""
        return self._take("roll", sides, 1)

    def below(self, n: int) -> int:
        """Returns the next scripted value, checked against the bound."""
        return self._take("below", n, 0)

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Applies the next scripted permutation, or leaves ``items`` as they are."""
        if self.shuffles:
            perm = self.shuffles.pop(0)
            if sorted(perm) != list(range(len(items))):
                raise ChanceExhaustedError(f"scripted permutation {list(perm)!r} does not fit {len(items)} items")
            items[:] = [items[i] for i in perm]
        self.draws.append(Draw("shuffle", len(items), 0))

    @property
    def remaining(self) -> int:
        """How many scripted rolls are left (a test asserts 0 to prove every die was used)."""
        return len(self.rolls)


def draws_digest(draws: Iterable[Draw]) -> str:
    """Returns a short text fingerprint of a sequence of draws."""
    return ";".join(f"{d.kind[0]}{d.size}:{d.result}" for d in draws)
