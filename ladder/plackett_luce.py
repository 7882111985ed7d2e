"""OpenSkill's Plackett-Luce model (Weng and Lin): a skill and its uncertainty for pods, teams and duels.

The maths is the ``openskill`` package's (:class:`openskill.models.PlackettLuce`); this module is the
ladder's boundary around it: frozen values in and out, every number checked with the ladder's own
error, and the ladder's conventions fixed in one place.

- **Tables.** A free-for-all (ScrumBrawl's 3-4 player pods) is one team per seat; a 2v2 game is two
  teams whose skill is the **sum** of their members' (the library's default, no weights, no
  ``balance``); equal ranks are ties (the library shares the mean change among tied teams).
- **No drift inside a version (tau = 0).** A bot version does not learn between its games, so its
  uncertainty never grows between them: the library's additive dynamics factor is fixed at 0, which
  also makes a version's sigma never increase with games. Halite's rescoring found that drift makes
  the final ranks of unchanged bots swing.
- **A new version** starts from its parent's skill with sigma widened: ``sqrt(sigma² + w²)``
  with ``w = SkillConfig.new_version_widening``, capped at the first-version sigma (but never below
  the parent's own): see :func:`new_version_prior`.
- **Display.** The conservative rating is ``mu - 3 sigma`` (:meth:`Skill.conservative`): a bot
  climbs by being both good and known.
- **Chances.** :func:`win_chance` is the chance that one bot finishes ahead of another,
  :func:`first_chances` the chance of each seat (or team) to finish first at a table: the model's
  own Plackett-Luce likelihood, not the library's ``predict_win``, which the prediction bench found
  overconfident (see :func:`win_chance`).

Pure: no clock, no random, no I/O. Bad numbers (NaN, infinity, non-positive deviations) are
refused with :class:`ladder.errors.InvalidResultError`, and an update the floats cannot hold
(skills thousands of sigmas apart) is refused the same way instead of returning a silent infinity.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating

from ladder.errors import InvalidResultError, require_number

DEFAULT_MU = 25.0
"""The library's prior mean."""
DEFAULT_SIGMA = 25.0 / 3.0
"""The library's prior deviation (mu / 3)."""
DEFAULT_BETA = 25.0 / 6.0
"""The library's performance spread (sigma / 2): how far one game's showing strays from the skill."""
DEFAULT_KAPPA = 0.0001
"""The library's floor on the variance shrink factor."""


@dataclass(frozen=True, slots=True)
class SkillConfig:
    """The model's constants; recomputation must use the same values.

    Raises:
        InvalidResultError: naming the value, if ``mu`` is not finite or another constant is not a
            finite number above 0 (``new_version_widening`` and ``z`` may be 0).
    """

    mu: float = DEFAULT_MU
    """Prior mean of a first version."""
    sigma: float = DEFAULT_SIGMA
    """Prior deviation of a first version; also the ceiling of a new version's widened sigma."""
    beta: float = DEFAULT_BETA
    """Performance spread of one game."""
    kappa: float = DEFAULT_KAPPA
    """Smallest factor a variance is multiplied by in one update (keeps sigma above 0)."""
    new_version_widening: float = DEFAULT_SIGMA / 2.0
    """Added in quadrature to the parent's sigma for a new version's prior."""
    z: float = 3.0
    """Deviations subtracted for the conservative display rating (``mu - z sigma``)."""

    def __post_init__(self) -> None:
        require_number("SkillConfig.mu", self.mu)
        for name in ("sigma", "beta", "kappa"):
            require_number(f"SkillConfig.{name}", getattr(self, name), minimum=0.0, exclusive=True)
        require_number("SkillConfig.new_version_widening", self.new_version_widening, minimum=0.0)
        require_number("SkillConfig.z", self.z, minimum=0.0)
        if self.kappa >= 1.0:
            raise InvalidResultError(f"SkillConfig.kappa must be below 1, got {self.kappa!r}")


@dataclass(frozen=True, slots=True)
class Skill:
    """One version's skill estimate: a mean and a deviation on the model's scale (25 / 8.33 to start).

    Raises:
        InvalidResultError: naming the value, if ``mu`` is not finite or ``sigma`` not a finite
            number above 0 (so a NaN read back from storage never reaches an opponent's update).
    """

    mu: float = DEFAULT_MU
    """The skill's mean."""
    sigma: float = DEFAULT_SIGMA
    """Its deviation."""

    def __post_init__(self) -> None:
        require_number("OpenSkill mu", self.mu)
        require_number("OpenSkill sigma", self.sigma, minimum=0.0, exclusive=True)

    def conservative(self, z: float = 3.0) -> float:
        """The display rating ``mu - z sigma``: about 99.9 % sure the skill is at least this."""
        require_number("z", z, minimum=0.0)
        return self.mu - z * self.sigma

    def to_json(self) -> dict[str, float]:
        """Plain JSON data; floats round-trip exactly through ``json``."""
        return {"mu": self.mu, "sigma": self.sigma}

    @classmethod
    def from_json(cls, data: Any) -> Skill:
        """Builds a skill from :meth:`to_json` data.

        Raises:
            InvalidResultError: if the data is malformed or holds a bad number.
        """
        try:
            return cls(float(data["mu"]), float(data["sigma"]))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InvalidResultError):
                raise
            raise InvalidResultError(f"malformed OpenSkill data {data!r}: {exc}") from exc


@functools.lru_cache(maxsize=16)
def model(config: SkillConfig = SkillConfig()) -> PlackettLuce:
    """The library's model for ``config``, with tau = 0 (no drift) and sigma allowed to shrink only.

    Cached per config; the model holds constants only (``rate`` is never given ``limit_sigma``,
    which the library would store on the model).
    """
    return PlackettLuce(mu=config.mu, sigma=config.sigma, beta=config.beta, kappa=config.kappa, tau=0.0)


def initial(config: SkillConfig = SkillConfig()) -> Skill:
    """The prior of a first version (no parent)."""
    return Skill(config.mu, config.sigma)


def new_version_prior(parent: Skill, config: SkillConfig = SkillConfig()) -> Skill:
    """The prior of a new version: the parent's mu, sigma widened to ``sqrt(sigma² + w²)``.

    The widened sigma is capped at ``config.sigma`` (a new version is never less known than a
    first one), but a parent whose sigma is already above the cap keeps its own. With the defaults,
    a settled parent at sigma 1 gives sigma 4.29; one at 6 gives 7.31; one at 8 gives 8.33.
    """
    widened = math.sqrt(parent.sigma * parent.sigma + config.new_version_widening**2)
    return Skill(parent.mu, max(parent.sigma, min(widened, config.sigma)))


def _groups(n: int, teams: Sequence[int]) -> list[list[int]]:
    """Seats per team, in the order teams first appear; one team per seat without ``teams``."""
    if not teams:
        return [[i] for i in range(n)]
    order: dict[int, list[int]] = {}
    for seat, team in enumerate(teams):
        order.setdefault(team, []).append(seat)
    return list(order.values())


def _check_table(skills: Sequence[Skill], ranks: Sequence[int] | None, teams: Sequence[int]) -> None:
    n = len(skills)
    if n < 2 or (ranks is not None and len(ranks) != n) or (teams and len(teams) != n):
        raise InvalidResultError(f"mismatched table: {n} skills, ranks {ranks!r}, teams {teams!r}")
    for skill in skills:
        if not isinstance(skill, Skill):
            raise InvalidResultError(f"expected a Skill, got {skill!r}")
    if ranks is not None:
        for rank in ranks:
            if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
                raise InvalidResultError(f"ranks must be whole numbers from 1, got {ranks!r}")
    if teams:
        groups = _groups(n, teams)
        if len(groups) < 2:
            raise InvalidResultError(f"a team game needs two teams or more, got {teams!r}")
        if ranks is not None:
            for group in groups:
                if len({ranks[i] for i in group}) != 1:
                    raise InvalidResultError(f"team-mates must share a rank: teams {teams!r}, ranks {ranks!r}")


def _library_teams(skills: Sequence[Skill], groups: list[list[int]]) -> list[list[PlackettLuceRating]]:
    return [[PlackettLuceRating(skills[i].mu, skills[i].sigma) for i in group] for group in groups]


def rate(
    skills: Sequence[Skill],
    ranks: Sequence[int],
    teams: Sequence[int] = (),
    config: SkillConfig = SkillConfig(),
) -> tuple[Skill, ...]:
    """Returns every seat's skill after one game.

    Args:
        skills: skill per seat before the game.
        ranks: rank per seat, 1 best; equal ranks tie (team-mates share theirs).
        teams: team label per seat for a team game (``(0, 1, 0, 1)``), empty for a duel or pod.
        config: the model's constants.

    Returns:
        The new skill per seat, in seat order.

    Raises:
        InvalidResultError: if the lengths differ, a rank is not a whole number from 1, team-mates'
            ranks differ, a skill is not a :class:`Skill`, or the skills are so far apart that the
            update overflows (the message names the table).
    """
    _check_table(skills, ranks, teams)
    groups = _groups(len(skills), teams)
    team_ranks = [float(ranks[group[0]]) for group in groups]
    try:
        rated = model(config).rate(_library_teams(skills, groups), ranks=team_ranks)
    except (OverflowError, ZeroDivisionError, ValueError) as exc:
        raise InvalidResultError(
            f"OpenSkill cannot rate skills {[(s.mu, s.sigma) for s in skills]!r} with ranks {list(ranks)!r}: {exc}"
        ) from exc
    out: list[Skill | None] = [None] * len(skills)
    for group, members in zip(groups, rated, strict=True):
        for seat, player in zip(group, members, strict=True):
            if not (math.isfinite(player.mu) and math.isfinite(player.sigma) and player.sigma > 0.0):
                raise InvalidResultError(
                    f"OpenSkill gave a non-finite skill ({player.mu!r}, {player.sigma!r}) for seat {seat} "
                    f"of skills {[(s.mu, s.sigma) for s in skills]!r}, ranks {list(ranks)!r}"
                )
            out[seat] = Skill(player.mu, player.sigma)
    return tuple(s for s in out if s is not None)


def _side_sums(skills: Sequence[Skill], groups: list[list[int]], beta: float) -> tuple[list[float], float]:
    """Each side's summed mu, and the model's scale ``c = sqrt(sum over sides of (sigma² + beta²))``."""
    mus = [sum(skills[i].mu for i in group) for group in groups]
    variance = sum(sum(skills[i].sigma ** 2 for i in group) for group in groups)
    return mus, math.sqrt(variance + len(groups) * beta * beta)


def _chances(mus: list[float], c: float) -> list[float]:
    """Plackett-Luce first-place chances ``exp(mu_i / c) / sum_j exp(mu_j / c)``, computed without overflow."""
    top = max(mus)
    weights = [math.exp((mu - top) / c) for mu in mus]
    total = sum(weights)
    return [w / total for w in weights]


def win_chance(skill: Skill, opponent: Skill, config: SkillConfig = SkillConfig()) -> float:
    """The chance that ``skill`` finishes ahead of ``opponent`` (in a duel, or between two pod seats).

    The model's own likelihood of that order, with the uncertainty folded into its scale:
    ``1 / (1 + exp(-(mu_a - mu_b) / c))``, ``c = sqrt(sigma_a² + sigma_b² + 2 beta²)``, the ``c`` of
    the update. (The library's ``predict_win`` puts a normal curve on the same scale, which is
    steeper than the model's logistic one: ``bench.bench_prediction`` measured it overconfident,
    with a log-loss of 0.58 in duels where this gives 0.51; docs/ladder.md.)

    Raises:
        InvalidResultError: if either is not a :class:`Skill`.
    """
    return first_chances([skill, opponent], (), config)[0]


def first_chances(
    skills: Sequence[Skill], teams: Sequence[int] = (), config: SkillConfig = SkillConfig()
) -> tuple[float, ...]:
    """Each seat's chance to finish first at this table (a team's chance, given to each member).

    The Plackett-Luce chance of coming first, ``exp(mu_i / c) / sum_j exp(mu_j / c)``, with a
    team's mu the sum of its members' and ``c`` as in :func:`rate` (see :func:`win_chance`).
    The chances of the sides sum to 1.

    Raises:
        InvalidResultError: if the table is malformed (see :func:`rate`).
    """
    _check_table(skills, None, teams)
    groups = _groups(len(skills), teams)
    mus, c = _side_sums(skills, groups, config.beta)
    chances = _chances(mus, c)
    out = [0.0] * len(skills)
    for group, chance in zip(groups, chances, strict=True):
        for seat in group:
            out[seat] = chance
    return tuple(out)
