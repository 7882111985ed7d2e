"""A finished, rated game as plain data: what the ratings are computed from.

This module is the boundary between a finished match and the ratings. A :class:`GameResult`
carries exactly what the rules engines' ``Outcome.ranks`` gives (1 = first, equal ranks tie),
which version sat in which seat, the teams for 2v2, and the time the match was played, passed in
by the caller. It is not a match record: replays, scores and termination reasons stay in the web
app. Unsuccessful or cancelled matches are simply never turned into a ``GameResult``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ladder.errors import InvalidResultError
from ladder.ids import BotVersionId, GameName, MatchId


@dataclass(frozen=True, slots=True)
class GameResult:
    """One rated game.

    Raises:
        InvalidResultError: on construction, if lengths differ, a version appears twice, ranks are
            not positive, teams are malformed, or ``played_at`` is naive.
    """

    match_id: MatchId
    """The match's id; the rating history is keyed on it, so it must be unique."""
    game: GameName
    """Which game was played; ratings are kept per game."""
    participants: tuple[BotVersionId, ...]
    """The version in each seat, in seat order."""
    ranks: tuple[int, ...]
    """Rank per seat, 1 best; equal ranks tie (the engines' ``Outcome.ranks``)."""
    played_at: datetime
    """When the match was played (timezone-aware); used for rating deviation growth."""
    teams: tuple[int, ...] = ()
    """Team index per seat for team games (``(0, 1, 0, 1)``); empty for free-for-all or 1v1."""

    def __post_init__(self) -> None:
        n = len(self.participants)
        if n < 2:
            raise InvalidResultError(f"a result needs at least two participants, got {self.participants!r}")
        if len(self.ranks) != n:
            raise InvalidResultError(f"ranks {self.ranks!r} do not match participants {self.participants!r}")
        if len(set(self.participants)) != n:
            raise InvalidResultError(f"a version appears twice in {self.participants!r}")
        if any(r < 1 for r in self.ranks):
            raise InvalidResultError(f"ranks must be 1 or more, got {self.ranks!r}")
        if self.played_at.tzinfo is None:
            raise InvalidResultError(f"played_at must be timezone-aware, got {self.played_at!r}")
        if self.teams:
            if len(self.teams) != n:
                raise InvalidResultError(f"teams {self.teams!r} do not match participants {self.participants!r}")
            if len(set(self.teams)) != 2:
                raise InvalidResultError(f"team games need exactly two teams, got {self.teams!r}")
            for team in set(self.teams):
                team_ranks = {r for r, t in zip(self.ranks, self.teams, strict=True) if t == team}
                if len(team_ranks) != 1:
                    raise InvalidResultError(
                        f"team-mates must share a rank: teams {self.teams!r}, ranks {self.ranks!r}"
                    )

    def to_json(self) -> dict[str, Any]:
        """Returns the result as plain JSON data (``played_at`` in ISO 8601)."""
        return {
            "match_id": self.match_id,
            "game": self.game,
            "participants": list(self.participants),
            "ranks": list(self.ranks),
            "played_at": self.played_at.isoformat(),
            "teams": list(self.teams),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameResult:
        """Builds a result from :meth:`to_json` data.

        Raises:
            InvalidResultError: if the data is malformed.
        """
        try:
            return cls(
                match_id=MatchId(str(data["match_id"])),
                game=GameName(str(data["game"])),
                participants=tuple(BotVersionId(str(p)) for p in data["participants"]),
                ranks=tuple(int(r) for r in data["ranks"]),
                played_at=datetime.fromisoformat(str(data["played_at"])),
                teams=tuple(int(t) for t in data.get("teams", ())),
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InvalidResultError):
                raise
            raise InvalidResultError(f"malformed result data {data!r}: {exc}") from exc


def pairwise_score(rank_a: int, rank_b: int) -> float:
    """Returns A's score against B from their ranks: 1 ahead, 0.5 tied, 0 behind."""
    if rank_a < rank_b:
        return 1.0
    if rank_a == rank_b:
        return 0.5
    return 0.0
