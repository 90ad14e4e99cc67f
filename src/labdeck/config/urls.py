"""The rules for an instance's URL, in one place for the config loader and the first-run screen: what is
refused (no host, a bad port, spaces or non-ASCII, a query, a fragment, credentials in the URL), and what is
accepted with a warning (plain `http://` to another machine, `verify_tls = false`), since either lets
anyone on the path read the token."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

# What a header value may contain (the URL's host and path end up in headers and logs): visible ASCII only.
_VISIBLE_ASCII = re.compile(r"[\x21-\x7e]+")
_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain"})


def url_problem(url: str) -> str | None:
    """Why `url` cannot name an instance (to follow "url "), or None when it can."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http:// or https:// URL with a host"
    try:
        parts.port  # noqa: B018 (raises for a port out of range or not a number)
    except ValueError:
        return "has an invalid port"
    if not _VISIBLE_ASCII.fullmatch(url):
        return "must not hold spaces, control characters or non-ASCII text (percent-encode them)"
    if parts.query or parts.fragment or "@" in parts.netloc:
        return "must not hold a query, a fragment or credentials (give the token separately)"
    return None


def _loopback(host: str) -> bool:
    if host.lower() in _LOCAL_NAMES or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def transport_warnings(url: str, verify_tls: bool = True) -> list[str]:
    """What to warn about when the token would travel readable: plain http:// to another machine, or a
    certificate that is not checked."""
    warnings = []
    parts = urlsplit(url)
    if parts.scheme == "http" and not _loopback(parts.hostname or ""):
        warnings.append("uses http://: the token travels unencrypted; use https://")
    if parts.scheme == "https" and not verify_tls:
        warnings.append("has verify_tls = false: the server's certificate is not checked, so anyone on the "
                        "path can pose as the instance and read the token")
    return warnings
