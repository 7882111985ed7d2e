"""Static file URLs that change when the file does: ``?v=`` and the first 12 hex digits of its SHA-256.

The site serves its own static files (no CDN, no ``collectstatic`` step: see webapp/urls.py), so a
browser may keep an old script across a deploy. The viewer's script and the frames' patch form
change together; a versioned URL makes a browser fetch the new script with the new page. Digests
are computed once per process (a deploy restarts the processes).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import StaticFilesStorage

_digests: dict[str, str] = {}


def digest(name: str) -> str:
    """Returns the first 12 hex digits of the SHA-256 of static file ``name``, or "" if no finder has it."""
    if name not in _digests:
        found = finders.find(name)
        path = Path(found) if isinstance(found, str) else None
        _digests[name] = hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path and path.is_file() else ""
    return _digests[name]


class VersionedStaticFilesStorage(StaticFilesStorage):
    """``{% static %}`` URLs carry ``?v=<digest>`` of the file's content; the files themselves are unchanged."""

    def url(self, name: str | None) -> str:
        base = super().url(name)
        version = digest(name) if name else ""
        return f"{base}?v={version}" if version else base
