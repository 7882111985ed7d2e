"""The matches and bots apps announce what happened; the apps above them subscribe (issue 17, item 2).

``webapp.matches.services`` imports neither rankings, tournaments nor notifications: it sends
``match_finished`` / ``match_failed`` and they react in the same transaction, in a fixed order (the
notifications read the ratings the rankings receiver has just written).
"""

from __future__ import annotations

from webapp.matches.signals import match_failed, match_finished


def _uids(signal: object) -> list[str]:
    return [key[0] for key, *_ in signal.receivers]  # type: ignore[attr-defined]


def _in_order(uids: list[str], wanted: list[str]) -> bool:
    return [u for u in uids if u in wanted] == wanted


def test_a_finished_match_is_rated_then_advanced_then_notified() -> None:
    wanted = ["rankings-rate-finished-match", "tournaments-advance-finished", "notifications-match-finished"]
    assert _in_order(_uids(match_finished), wanted), _uids(match_finished)


def test_a_failed_match_advances_its_tournament_then_notifies() -> None:
    wanted = ["tournaments-advance-failed", "notifications-match-failed"]
    assert _in_order(_uids(match_failed), wanted), _uids(match_failed)


def test_a_new_version_gets_its_rating_row_through_the_bots_signal() -> None:
    from webapp.bots.signals import version_created

    assert "rankings-new-version-row" in _uids(version_created)
