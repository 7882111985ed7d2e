"""Template context shared by every page: the games for the navigation bar, and the organizer role."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from webapp.games import all_games


def site(request: HttpRequest) -> dict[str, Any]:
    """Adds ``nav_games`` (name and title of every game) and ``is_organizer`` (read lazily: only pages
    that show the navigation of a signed-in user ask for the user's permissions)."""
    from webapp.roles import is_organizer

    return {"nav_games": all_games(), "is_organizer": lambda: is_organizer(request.user)}
