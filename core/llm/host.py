"""Where Ollama listens: the setting, else ``OLLAMA_HOST``, else the local default.

The address is normalised the way Ollama itself reads ``OLLAMA_HOST`` (Go ``envconfig.Host``
and the Python client's ``_parse_host``), so a value that works for ``ollama list`` works
for Hearth too: no scheme means ``http`` and port 11434; an explicit ``http://`` or
``https://`` without a port means 80 or 443; a bare ``:PORT`` means loopback. Three
deliberate differences: the wildcard addresses a *server* binds to (``0.0.0.0``, ``::``) are
turned into loopback, because a client cannot meaningfully connect to "any address"; a
malformed port is an error naming the setting, where Ollama would quietly use its default;
and so is a host that cannot be a computer's name ("not a url"), which Ollama's client
would only fail to connect to.
"""

from __future__ import annotations

import ipaddress
import os
import re
from urllib.parse import urlsplit

from core.errors import InvalidInputError

DEFAULT_OLLAMA_PORT = 11434
DEFAULT_OLLAMA_HOST = f"http://127.0.0.1:{DEFAULT_OLLAMA_PORT}"
_SCHEME_PORTS = {"http": 80, "https": 443}
_HOST_NAME = re.compile(r"[\w.-]+|[0-9a-f:.]+(%\w+)?", re.IGNORECASE)
"""A host name (letters of any script, digits, dots, hyphens) or an IPv6 literal: what is
left of "not a url" after ``urlsplit`` ("not a url", with its spaces) is neither."""


def resolve_ollama_host(configured: str | None) -> str:
    """The normalised Ollama base URL: ``configured`` if non-blank, else ``$OLLAMA_HOST``,
    else ``http://127.0.0.1:11434``.

    Raises ``InvalidInputError`` for an address that cannot be a URL (bad port, unknown
    scheme) instead of guessing, so the user learns which value to fix.
    """
    if configured and configured.strip():
        return normalise_ollama_host(configured, source="the ollama_host setting")
    from_env = os.environ.get("OLLAMA_HOST", "")
    if from_env.strip():
        return normalise_ollama_host(from_env, source="the OLLAMA_HOST environment variable")
    return DEFAULT_OLLAMA_HOST


def normalise_ollama_host(raw: str, *, source: str = "the Ollama address") -> str:
    """``raw`` as ``scheme://host:port[/path]`` with Ollama's defaults filled in."""
    text = raw.strip()
    scheme, separator, rest = text.partition("://")
    if not separator:
        scheme, rest, default_port = "http", text, DEFAULT_OLLAMA_PORT
    else:
        scheme = scheme.lower()
        if scheme not in _SCHEME_PORTS:
            raise _invalid(raw, source, f"the scheme {scheme!r} is not http or https")
        default_port = _SCHEME_PORTS[scheme]
    parts = urlsplit(f"{scheme}://{rest}")
    try:
        port = parts.port or default_port
    except ValueError as exc:  # urlsplit raises on a non-numeric or out-of-range port
        raise _invalid(raw, source, "the port is not a number from 0 to 65535") from exc
    if parts.hostname and not _HOST_NAME.fullmatch(parts.hostname):
        raise _invalid(raw, source, "it is not a computer's name or IP address (those have "
                                    "no spaces and only letters, digits, dots and hyphens)")
    host = _client_host(parts.hostname or "127.0.0.1")
    path = parts.path.strip("/")
    return f"{scheme}://{host}:{port}" + (f"/{path}" if path else "")


def _client_host(host: str) -> str:
    """Wildcard bind addresses become loopback; IPv6 literals get their brackets back."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.is_unspecified:
        host = "::1" if address.version == 6 else "127.0.0.1"
    return f"[{host}]" if address.version == 6 else host


def _invalid(raw: str, source: str, reason: str) -> InvalidInputError:
    return InvalidInputError(
        f"{source[0].upper()}{source[1:]} ({raw.strip()!r}) is not a usable address: {reason}.",
        "Use a value like 127.0.0.1:11434 or http://my-server:11434, or remove it to use "
        "the local default.",
    )
