"""The matches and bots apps announce what happened where the listeners are independent; a result is not announced.

``webapp.matches.services`` imports neither rankings, tournaments nor notifications. A match that
ends without a result sends ``match_failed``, whose listeners (tournament progress, author
notifications) do not depend on each other. A result is recorded by ``webapp.results``, which calls
counts, ratings and tournament in order (``tests/webapp/test_results.py``), so no signal's order matters.
"""

from __future__ import annotations

from webapp.matches import signals


def _uids(signal: object) -> list[str]:
    return [key[0] for key, *_ in signal.receivers]  # type: ignore[attr-defined]


def test_a_result_is_not_announced_by_a_signal() -> None:
    assert not hasattr(signals, "match_finished")


def test_a_failed_match_reaches_its_tournament_and_its_authors() -> None:
    uids = _uids(signals.match_failed)
    assert {"tournaments-advance-failed", "notifications-match-failed"} <= set(uids), uids


def test_a_new_version_gets_its_rating_row_through_the_bots_signal() -> None:
    from webapp.bots.signals import version_created

    assert "rankings-new-version-row" in _uids(version_created)
