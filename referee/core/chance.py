"""Chance: the one source of dice, shuffles and random picks an engine may use.

An engine never calls :mod:`random`; every roll, shuffle and face-down pick goes through the
:class:`Chance` handed to it by its caller. The referee hands over a :class:`SeededChance`, so a
match is a pure function of (rules version, config, seed, decisions). Rules tests hand over a
:class:`ScriptedChance` holding the exact dice of the case.

The generator is SplitMix64, specified here in full rather than borrowed from :mod:`random`, so
that the same seed gives the same dice on any Python version and in any language. The match's
source is the only generator the match seed may seed: nothing else a participant can observe (a
house bot's moves, a second stream) is derived from it (``tests/core/test_seed_derived_randomness.py``).

**Chance as data** (compare OpenSpiel's chance nodes): :func:`chance_outcomes` lists, for one
option of a match, every way the dice can fall while that option resolves, each with its exact
probability and the match it leads to, by running the option under an :class:`EnumeratingChance`
that branches on each roll and pick. Shuffles are described by their size and sampled rather than
enumerated (a deck of 18 has 18! orders). An engine needs no code for it beyond keeping its chance
source in a ``chance`` attribute (or overriding ``Match.with_chance``): it stays pure and unaware.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableSequence, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Generic, Protocol, Self, TypeVar

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


# --- chance as data ---------------------------------------------------------------------------


class _Branch(BaseException):
    """Raised inside an engine's ``apply`` at a draw not yet enumerated; unwinds to :func:`chance_outcomes`.

    A ``BaseException`` so that no engine's ``except Exception`` can swallow it; the forked match it
    unwinds through is thrown away.
    """

    def __init__(self, kind: str, size: int) -> None:
        super().__init__(kind, size)
        self.kind = kind
        self.size = size


class EnumeratingChance:
    """A chance source that replays a prefix of outcomes and branches at the next roll or pick.

    Args:
        prefix: The results of the first rolls and picks (``roll`` and ``below`` alike), in order.
        sample: Where shuffles, and rolls beyond ``depth``, are drawn from.
        depth: How many rolls and picks to enumerate; ``None`` for all of them.

    Every draw is appended to :attr:`draws`; each shuffle's permutation to :attr:`shuffles`, in the
    form :class:`ScriptedChance` takes, so an outcome can be replayed exactly.
    """

    def __init__(self, prefix: Sequence[int], sample: Chance, depth: int | None = None) -> None:
        self.prefix = list(prefix)
        self.sample = sample
        self.depth = depth
        self.draws: list[Draw] = []
        self.shuffles: list[tuple[int, ...]] = []
        self.sampled = False
        """Whether anything in this outcome was sampled rather than enumerated (a shuffle, or a draw beyond depth)."""
        self._taken = 0

    def _take(self, kind: str, size: int, low: int) -> int:
        if size <= 0:
            raise ValueError(f"bound must be positive, got {size!r}")
        if self._taken < len(self.prefix):
            value = self.prefix[self._taken]
        elif self.depth is not None and self._taken >= self.depth:
            value = self.sample.roll(size) if low == 1 else self.sample.below(size)
            self.sampled = True
        else:
            raise _Branch(kind, size)
        self._taken += 1
        self.draws.append(Draw(kind, size, value))
        return value

    def release(self) -> None:
        """Stops enumerating: from now on every roll and pick is drawn from the sample source."""
        self.depth = self._taken

    def roll(self, sides: int) -> int:
        """Returns the scripted roll, or branches over every face."""
        return self._take("roll", sides, 1)

    def below(self, n: int) -> int:
        """Returns the scripted value, or branches over ``0..n-1``."""
        return self._take("below", n, 0)

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffles from the sample source (all orders equally likely) and records the permutation."""
        perm = list(range(len(items)))
        self.sample.shuffle(perm)
        items[:] = [items[i] for i in perm]
        self.shuffles.append(tuple(perm))
        self.draws.append(Draw("shuffle", len(items), 0))
        if len(items) > 1:
            self.sampled = True


class Forkable(Protocol):
    """What :func:`chance_outcomes` asks of a match (``referee.core.contract.Match`` has it all)."""

    def option(self, option_id: str) -> object:
        """Returns the legal option ``option_id`` (raises when it is not legal)."""
        ...

    def with_chance(self, chance: Chance) -> Self:
        """Returns an independent copy that draws every later die from ``chance``."""
        ...

    def apply(self, option_id: str) -> object:
        """Takes the option ``option_id``."""
        ...


M = TypeVar("M", bound=Forkable)


@dataclass(frozen=True)
class ChanceOutcome(Generic[M]):
    """One way the dice can fall while an option resolves (one leaf of its chance nodes)."""

    probability: Fraction
    """Exact probability of the enumerated draws; the outcomes of one option sum to 1."""
    draws: tuple[Draw, ...]
    """Every draw made, in order: rolls and picks with their results, shuffles with their size."""
    shuffles: tuple[tuple[int, ...], ...]
    """The permutation each shuffle applied (sampled), in :class:`ScriptedChance` form."""
    sampled: bool
    """True when a shuffle (or a draw beyond ``depth``) was sampled: ``match`` is then one sample of
    this outcome, not the only state it stands for."""
    match: M
    """An independent copy of the match after the option with these draws; plan on from it (its later
    draws come from the ``sample`` source)."""

    @property
    def rolls(self) -> list[int]:
        """The results of the rolls and picks, in order: what :class:`ScriptedChance` replays."""
        return [d.result for d in self.draws if d.kind != "shuffle"]

    def scripted(self) -> ScriptedChance:
        """A :class:`ScriptedChance` that replays exactly this outcome's draws and shuffles."""
        return ScriptedChance(rolls=self.rolls, shuffles=[list(p) for p in self.shuffles])

    def to_json(self) -> dict[str, Any]:
        """The outcome as plain data (without the match)."""
        return {
            "probability": float(self.probability),
            "draws": [{"kind": d.kind, "size": d.size, "result": d.result} for d in self.draws],
            "sampled": self.sampled,
        }


def chance_outcomes(
    match: M,
    option_id: str,
    *,
    sample: Chance | None = None,
    depth: int | None = None,
    limit: int = 10_000,
) -> list[ChanceOutcome[M]]:
    """Lists every outcome of the chance draws that option ``option_id`` makes, with its probability.

    The option is applied to copies of ``match`` (``match.with_chance``), never to ``match`` itself.
    Each roll (``roll``/``below``) is a chance node whose outcomes are all equally likely, so the
    tree of draws is walked depth first, one branch per face; an option that draws nothing gives
    one outcome of probability 1. Shuffles are not enumerated: each is described in ``draws`` by its
    size (all its orders equally likely) and one order is dealt from ``sample``.

    A search bot calls this on its own determinized world (``match.determinize(me, chance)``),
    never on the referee's match: draws such as a face-down token are hidden information.

    Args:
        match: The match, at a decision.
        option_id: A legal option of the pending decision.
        sample: Source for shuffles and for draws beyond ``depth``; ``SeededChance(0)`` by default.
        depth: Enumerate only the first ``depth`` rolls and picks (``None``: all of them).
        limit: Most outcomes to enumerate before giving up.

    Returns:
        The outcomes in the order of their draws (lowest face first); probabilities sum to 1.

    Raises:
        IllegalOptionError: ``option_id`` is not legal now.
        MatchOverError: the match is over.
        ValueError: the option has more than ``limit`` outcomes (pass a ``depth``).
    """
    match.option(option_id)  # validates before anything is copied
    source = sample if sample is not None else SeededChance(0)
    out: list[ChanceOutcome[M]] = []
    stack: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while stack:
        prefix, probability = stack.pop()
        chance = EnumeratingChance(prefix, source, depth)
        fork = match.with_chance(chance)
        try:
            fork.apply(option_id)
        except _Branch as branch:
            low = 1 if branch.kind == "roll" else 0
            faces = range(low, low + branch.size)
            stack += [([*prefix, v], probability / branch.size) for v in reversed(faces)]
            if len(out) + len(stack) > limit:
                raise ValueError(
                    f"option {option_id!r} has more than {limit} chance outcomes; enumerate fewer draws with depth"
                ) from None
            continue
        outcome = ChanceOutcome(probability, tuple(chance.draws), tuple(chance.shuffles), chance.sampled, fork)
        chance.release()  # planning on from the outcome's match draws from the sample source
        out.append(outcome)
    return out
