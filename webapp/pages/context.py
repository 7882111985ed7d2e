"""Template context shared by every page: the games for the navigation bar."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from webapp.games import all_games


def site(request: HttpRequest) -> dict[str, Any]:
    """Adds ``nav_games`` (name and title of every game)."""
    return {"nav_games": all_games()}
