"""The organizer role: a group whose permissions let its members run tournaments.

An organizer is any user holding ``tournaments.change_tournament`` (through the ``organizers``
group, or as a superuser). Being staff alone is not enough: staff status only opens the admin,
and the admin shows nothing without permissions, which is why the role is a group with them.
"""

from __future__ import annotations

from typing import Any

ORGANIZERS_GROUP = "organizers"
"""Name of the group that makes its members organizers."""

ORGANIZER_PERMISSIONS = (
    ("tournaments", "add_tournament"),
    ("tournaments", "change_tournament"),
    ("tournaments", "view_tournament"),
    ("tournaments", "add_tournamententrant"),
    ("tournaments", "change_tournamententrant"),
    ("tournaments", "delete_tournamententrant"),
    ("tournaments", "view_tournamententrant"),
)
"""(app label, codename) of each permission the group holds: enough for the console and the admin's tournament pages."""

ORGANIZER_PERMISSION = "tournaments.change_tournament"
"""The permission that says someone is an organizer."""


def ensure_organizer_group() -> Any:
    """Creates (or completes) the ``organizers`` group with its permissions; returns it.

    Idempotent; run after every migration (``post_migrate``) and by the demo.
    """
    from django.apps import apps
    from django.contrib.auth.management import create_permissions
    from django.contrib.auth.models import Group, Permission
    from django.contrib.contenttypes.management import create_contenttypes

    # Permissions are normally created by a post_migrate handler that may run after ours.
    config = apps.get_app_config("tournaments")
    create_contenttypes(config, verbosity=0)
    create_permissions(config, verbosity=0)
    group, _ = Group.objects.get_or_create(name=ORGANIZERS_GROUP)
    wanted = [
        Permission.objects.get(content_type__app_label=app, codename=codename)
        for app, codename in ORGANIZER_PERMISSIONS
    ]
    group.permissions.add(*wanted)
    return group


def is_organizer(user: Any) -> bool:
    """Whether ``user`` may run tournaments (the organizer role, or a superuser)."""
    return bool(user is not None and user.is_authenticated and user.has_perm(ORGANIZER_PERMISSION))


def make_organizer(user: Any) -> None:
    """Gives ``user`` the organizer role (adds them to the group)."""
    ensure_organizer_group().user_set.add(user)
    # has_perm caches the user's permissions on the instance.
    for attr in ("_perm_cache", "_group_perm_cache", "_user_perm_cache"):
        if hasattr(user, attr):
            delattr(user, attr)
