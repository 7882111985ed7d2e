"""The web tier's part of the settings: the deployment kind and the database URL.

The environment is read through ``common.settings`` (the one typed settings module of every
process: :func:`env`, :func:`parse_bool`, :class:`ConfigurationError` are its, re-exported
here); this module adds what only Django needs: :class:`Environment` and the ``DATABASES`` entry
a ``DATABASE_URL`` names. It does not import Django: ``webapp.settings`` calls it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from common.settings import ConfigurationError, Environment, env, parse_bool, parse_list

INSECURE_DEV_SECRET_KEY = "insecure-dev-only-secret-key-do-not-use-in-production"
"""The development default; marked insecure so nobody mistakes it for a real secret."""

__all__ = [
    "INSECURE_DEV_SECRET_KEY",
    "ConfigurationError",
    "DatabaseConfig",
    "Environment",
    "default_sqlite",
    "env",
    "parse_bool",
    "parse_database_url",
    "parse_list",
]


@dataclass(frozen=True)
class DatabaseConfig:
    """One Django ``DATABASES`` entry built from a URL."""

    engine: str
    """Django database backend module."""
    name: str
    """Database name, or the SQLite file path."""
    user: str = ""
    """Login role; empty for SQLite."""
    password: str = ""
    """Password; empty with trust authentication."""
    host: str = ""
    """Host name; empty for SQLite."""
    port: str = ""
    """TCP port as text; empty for the default."""

    def as_django(self) -> dict[str, object]:
        """Returns the dict Django expects under ``DATABASES["default"]``."""
        out: dict[str, object] = {"ENGINE": self.engine, "NAME": self.name}
        if self.engine.endswith("postgresql"):
            out.update(USER=self.user, PASSWORD=self.password, HOST=self.host, PORT=self.port, CONN_MAX_AGE=60)
            # The test database gets its own name from the URL, so that the runs of several
            # checkouts on one server do not collide.
            out["TEST"] = {"NAME": f"test_{self.name}"}
        elif self.engine.endswith("sqlite3"):
            # Several processes share the file under `brawl run` (referee, worker, web): wait for a
            # lock instead of failing, take write locks up front, and let readers run beside a writer.
            out["OPTIONS"] = {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            }
        return out


def parse_database_url(url: str) -> DatabaseConfig:
    """Returns the database a ``postgresql://`` or ``sqlite:///`` URL names.

    Raises:
        ValueError: the scheme is neither.
    """
    parts = urlparse(url)
    if parts.scheme in ("postgres", "postgresql"):
        return DatabaseConfig(
            engine="django.db.backends.postgresql",
            name=unquote(parts.path.lstrip("/")) or "brawl",
            user=unquote(parts.username or ""),
            password=unquote(parts.password or ""),
            host=parts.hostname or "",
            port=str(parts.port or ""),
        )
    if parts.scheme == "sqlite":
        return DatabaseConfig(engine="django.db.backends.sqlite3", name=parts.path or ":memory:")
    raise ValueError(f"unsupported database scheme {parts.scheme!r} (use postgresql:// or sqlite:///)")


def default_sqlite(base: Path) -> DatabaseConfig:
    """Returns the development SQLite database in ``./var/brawl.sqlite3``, creating ``./var``."""
    var = base / "var"
    var.mkdir(parents=True, exist_ok=True)
    return DatabaseConfig(engine="django.db.backends.sqlite3", name=str(var / "brawl.sqlite3"))
