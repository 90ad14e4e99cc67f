"""When a link found in server data may be opened without asking: only http(s) on the instance's own host."""

from __future__ import annotations

from urllib.parse import urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: str) -> tuple[str, str, int | None] | None:
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if not parts.hostname:
        return None
    # A default port counts as no port, so https://host and http://host:80 are both just `host`.
    return scheme, parts.hostname.lower(), None if port == _DEFAULT_PORTS.get(scheme) else port


def opens_without_asking(url: str, instance_url: str) -> bool:
    """True when `url` is http(s) on the instance's host (same explicit port, if any); anything else asks."""
    target, home = _origin(url), _origin(instance_url)
    if target is None or home is None or target[0] not in _DEFAULT_PORTS:
        return False
    return target[1:] == home[1:]


def is_openable(url: str) -> bool:
    """Only http(s) links are ever opened (never file:, javascript:, ssh: or custom schemes)."""
    origin = _origin(url)
    return origin is not None and origin[0] in _DEFAULT_PORTS
