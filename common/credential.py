"""The service credential of the referee's internal API, which every process of a deployment shares.

One shared secret that the workers and the web tier present to the referee's internal API
(``RefereeService``) as ``authorization: Bearer <secret>``, and that ladder referees present to the
web tier's token check. :func:`internal_token` finds it: ``BRAWL_INTERNAL_TOKEN`` from the
environment; in production (``BRAWL_ENV=production``) a missing one fails at start; elsewhere it
is generated once and kept in a 0600 file under the var dir (``$BRAWL_VAR_DIR/internal-token``),
so every process of ``brawl run`` finds the same secret without configuration. Bot tokens are
another matter (``referee.server.auth``).
"""

from __future__ import annotations

import contextlib
import hmac
import os
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

from common import settings

INTERNAL_TOKEN_ENV = "BRAWL_INTERNAL_TOKEN"
"""The environment variable holding the internal API's shared secret."""
INTERNAL_TOKEN_FILE = "internal-token"
"""The file under the var dir that keeps the generated secret on embedded defaults."""
MIN_INTERNAL_TOKEN_CHARS = 24
"""Shortest secret accepted: a guessable credential is no credential."""


class InternalTokenError(RuntimeError):
    """The internal API's secret is missing (in production), too short, or its file is unsafe."""


def _token_file(path: Path) -> str:
    """Returns the secret kept in ``path``, creating it (mode 0600) with a fresh one when missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        # Write a private temporary file, then link it into place: the link fails if another
        # process of the same run won the race, and nobody ever reads a half-written secret.
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_urlsafe(32) + "\n")
            with contextlib.suppress(FileExistsError):  # another process of the run wrote it first
                os.link(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InternalTokenError(
            f"{path} is readable by other users (mode {stat.S_IMODE(mode):o}); run `chmod 600 {path}`"
        )
    token = path.read_text().strip()
    if len(token) < MIN_INTERNAL_TOKEN_CHARS:
        raise InternalTokenError(f"{path} holds no usable secret; delete it to have a new one generated")
    return token


def internal_token(environ: Mapping[str, str] | None = None) -> str:
    """Returns the shared secret of the referee's internal API (see the module docstring).

    Args:
        environ: The environment to read (``os.environ`` by default).

    Raises:
        InternalTokenError: production without ``BRAWL_INTERNAL_TOKEN``, a secret shorter than
            :data:`MIN_INTERNAL_TOKEN_CHARS`, a secret file other users may read, or a ``BRAWL_ENV``
            that names no deployment.
    """
    token = settings.internal_token(environ)
    if token:
        if len(token) < MIN_INTERNAL_TOKEN_CHARS:
            raise InternalTokenError(
                f"{INTERNAL_TOKEN_ENV} is {len(token)} characters; use at least {MIN_INTERNAL_TOKEN_CHARS} "
                "(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
            )
        return token
    try:
        production = settings.environment(environ) is settings.Environment.PRODUCTION
    except settings.ConfigurationError as exc:
        raise InternalTokenError(str(exc)) from exc
    if production:
        raise InternalTokenError(
            f"{INTERNAL_TOKEN_ENV} is required in production: the referee's internal API accepts no call without it"
        )
    return _token_file(settings.var_dir(environ) / INTERNAL_TOKEN_FILE)


def credential_matches(presented: str | None, expected: str) -> bool:
    """Whether ``presented`` is the internal secret ``expected``, compared in constant time."""
    if not presented:
        return False
    return hmac.compare_digest(presented.encode(), expected.encode())
