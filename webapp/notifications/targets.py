"""The one reading of a webhook URL: what registration accepts and what the workers connect to.

Parsers disagree on odd URLs: ``http://127.0.0.1:8000\\@1.1.1.1/`` is host ``1.1.1.1`` to
``urllib.parse`` and an invalid port to ``http.client``; ``urllib.parse`` drops tabs and newlines
that another client keeps; ``0x7f.1`` or ``2130706433`` are loopback to some resolvers and names to
others. So a webhook URL is accepted only in a form where no such question arises, and what is
stored and sent is :meth:`WebhookTarget.url`, the re-serialization of the parsed parts:

- printable ASCII only (no whitespace, no control character, no non-ASCII: write an international
  name in its ``xn--`` form), at most :data:`MAX_URL_LENGTH` characters, no ``\\``, ``@``, ``#``;
- scheme ``http`` or ``https``, then ``//`` and a host: a DNS name (letters, digits and ``-`` in
  labels of 1 to 63, no trailing dot, the last label starting with a letter, so that no number
  form of an IPv4 address passes as a name), a dotted-quad IPv4 address in its plain form, or an
  IPv6 address in brackets without a zone;
- an optional port, 1 to 65535, in decimal without leading zeros;
- a path and query of URL characters, each ``%`` starting a two-digit hex escape.

This module only reads text; whether the host may be reached is the workers' check, made on the
address they then connect to (``workers/webhooks.py``).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

MAX_URL_LENGTH = 500
"""Longest webhook URL accepted (the model's column)."""

_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_TOP_LABEL = re.compile(r"[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?")
_PORT = re.compile(r"[1-9][0-9]{0,4}")
_DOTTED_QUAD = re.compile(r"(?:0|[1-9][0-9]{0,2})(?:\.(?:0|[1-9][0-9]{0,2})){3}")
_PATH_AND_QUERY = re.compile(r"(?:/[A-Za-z0-9\-._~!$&'()*+,;=:/?%]*|\?[A-Za-z0-9\-._~!$&'()*+,;=:/?%]*)?")
_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_SCHEME = re.compile(r"(https?)://", re.IGNORECASE)

RULE = (
    "a webhook URL is http:// or https://, a host name (letters, digits, '-' and dots, no trailing dot), "
    "a dotted IPv4 address or a bracketed IPv6 address, an optional port 1-65535, then a path; "
    f"printable ASCII without spaces, '\\', '@' or '#', at most {MAX_URL_LENGTH} characters"
)
"""What a refused URL's error says."""


class BadWebhookUrl(ValueError):
    """A URL outside the accepted form; the message names the rule and what broke it."""


@dataclass(frozen=True)
class WebhookTarget:
    """A webhook URL read into its parts."""

    scheme: str
    """``http`` or ``https``."""
    host: str
    """A lower-case DNS name, or an IP address's text (IPv6 without brackets)."""
    port: int
    """The port connected to (80 or 443 when the URL names none)."""
    target: str
    """The request target sent: the path (``/`` at least) and the query."""

    @property
    def is_ip(self) -> bool:
        """Whether :attr:`host` is an IP address rather than a name."""
        try:
            ipaddress.ip_address(self.host)
        except ValueError:
            return False
        return True

    @property
    def authority(self) -> str:
        """The ``Host`` header's value: the host (IPv6 in brackets), and the port when not the default."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == _DEFAULT_PORT[self.scheme] else f"{host}:{self.port}"

    def url(self) -> str:
        """The canonical text of the URL: what is stored, shown and sent."""
        return f"{self.scheme}://{self.authority}{self.target}"


_DEFAULT_PORT = {"http": 80, "https": 443}


def _refuse(url: str, why: str) -> BadWebhookUrl:
    return BadWebhookUrl(f"{RULE}; {url[:80]!r} {why}")


def _host(text: str, url: str) -> str:
    if text.startswith("["):
        if not text.endswith("]") or "%" in text:
            raise _refuse(url, "has a malformed or zoned IPv6 address")
        try:
            return str(ipaddress.IPv6Address(text[1:-1]))
        except ValueError as exc:
            raise _refuse(url, f"has a bad IPv6 address ({exc})") from exc
    if _DOTTED_QUAD.fullmatch(text):
        try:
            return str(ipaddress.IPv4Address(text))
        except ValueError as exc:
            raise _refuse(url, f"has a bad IPv4 address ({exc})") from exc
    name = text.lower()
    labels = name.split(".")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise _refuse(url, "has no valid host")
    if not _TOP_LABEL.fullmatch(labels[-1]):
        raise _refuse(url, "has a host whose last label does not start with a letter (a number form of an address?)")
    return name


def parse(url: str) -> WebhookTarget:
    """Reads ``url`` into its parts, or refuses it.

    Raises:
        BadWebhookUrl: the URL is not in the accepted form (module docstring); nothing is trimmed
            or guessed, so the message shows what to change.
    """
    if not isinstance(url, str) or not url:
        raise BadWebhookUrl(f"{RULE}; got an empty URL")
    if len(url) > MAX_URL_LENGTH:
        raise _refuse(url, f"is {len(url)} characters long")
    bad = sorted({c for c in url if not ("!" <= c <= "~") or c in "\\@#"})
    if bad:
        raise _refuse(url, f"holds {''.join(bad)!r}")
    scheme = _SCHEME.match(url)
    if scheme is None:
        raise _refuse(url, "does not start with http:// or https://")
    rest = url[scheme.end() :]
    end = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, target = rest[:end], rest[end:]
    if authority.startswith("["):
        close = authority.find("]")
        host_text, port_text = (authority, None) if close < 0 else (authority[: close + 1], authority[close + 1 :])
        if port_text is not None and port_text and not port_text.startswith(":"):
            raise _refuse(url, "has text after its IPv6 address")
        port_text = port_text[1:] if port_text else None
    else:
        host_text, colon, port_text_raw = authority.partition(":")
        port_text = port_text_raw if colon else None
    if not host_text:
        raise _refuse(url, "has no host")
    host = _host(host_text, url)
    lower = scheme.group(1).lower()
    if port_text is None:
        port = _DEFAULT_PORT[lower]
    elif _PORT.fullmatch(port_text) and int(port_text) <= 65535:
        port = int(port_text)
    else:
        raise _refuse(url, "has a port that is not 1 to 65535 in plain decimal")
    if not _PATH_AND_QUERY.fullmatch(target) or _ESCAPE.search(target):
        raise _refuse(url, "has a path or query with characters outside a URL's, or a bad % escape")
    if target.startswith("?") or not target:
        target = "/" + target
    return WebhookTarget(scheme=lower, host=host, port=port, target=target)
