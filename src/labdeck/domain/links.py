"""The one link policy: whether a link found in server data (a row's `web_url`, a link in an issue or a wiki
page) is opened at once, opened only after the operator says yes, or never opened.

- Only `http` and `https` are ever opened: `file:`, `smb:`, `javascript:`, `ssh:` or any other scheme is
  refused, even after a yes.
- http(s) on the instance's own host (and port) opens at once; anywhere else asks first.

The host is the one a browser goes to, read as browsers read URLs (the WHATWG URL standard), not as
`urllib.parse` does: leading and trailing C0 controls and spaces are dropped and tabs and newlines removed
anywhere; in http(s) a `\\` is a `/` (so `https://evil.example\\@instance/x` goes to `evil.example`, where
`urlsplit` sees the instance); any number of slashes (or none) may follow the scheme; the host follows the
last `@` of the authority; it is percent-decoded and lower-cased, and a host that ends in a number is an IPv4
address in any of the forms browsers accept (`0x7f.1`, `2130706433`). Where this parser and a browser could
disagree (a host with non-ASCII letters, user information, a host browsers refuse), the link is never
judged to be on the instance: it asks, or is refused.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Final
from urllib.parse import unquote

from labdeck.domain.digits import is_digits, parse_digits

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
# Other schemes WHATWG calls special (the `\` rule and slash skipping apply to them too).
_SPECIAL: Final = frozenset({"http", "https", "ws", "wss", "ftp", "file"})
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_EDGE = "".join(chr(c) for c in range(0x21))  # C0 controls and space
_TAB_NEWLINE = str.maketrans("", "", "\t\n\r")
# Code points a browser refuses in a domain (WHATWG "forbidden domain code point"), after percent-decoding.
_FORBIDDEN_HOST = re.compile(r"[\x00-\x20#%/:<>?@\[\\\]^|\x7f]")


class LinkAction(StrEnum):
    OPEN = "open"  # http(s) on the instance's own host: opened at once
    ASK = "ask"  # http(s) elsewhere: opened only after a yes
    REFUSE = "refuse"  # any other scheme, or not a URL a browser would go anywhere with: never opened


@dataclass(frozen=True, slots=True)
class ParsedLink:
    """What a browser makes of a link: scheme, host (lower case, IPv4 in dotted form, IPv6 in brackets),
    port (None for the scheme's default), and whether it carries user information."""

    scheme: str
    host: str
    port: int | None
    userinfo: bool
    url: str  # the link as a browser reads it, written plainly: scheme://host[:port]/path, no user name


@dataclass(frozen=True, slots=True)
class LinkVerdict:
    action: LinkAction
    url: str  # what to hand to the browser and show: `ParsedLink.url` (the link itself when refused)
    host: str | None  # where the browser would go (None when refused for not being http(s))
    reason: str


def _ipv4_part(text: str) -> int | None:
    if text.lower().startswith("0x"):
        digits, base = text[2:], 16
    elif len(text) > 1 and text.startswith("0"):
        digits, base = text[1:], 8
    else:
        digits, base = text, 10
    if digits == "":
        return 0
    try:
        return int(digits, base) if digits.isascii() and digits.isalnum() else None
    except ValueError:
        return None


def _ends_in_number(parts: list[str]) -> bool:
    last = parts[-1] if parts[-1] != "" or len(parts) == 1 else parts[-2]
    if last == "":
        return False
    return is_digits(last) or re.fullmatch(r"0[xX][0-9A-Fa-f]*", last) is not None


def _ipv4(host: str) -> str | None:
    """WHATWG's IPv4 parser: the dotted address, or None when browsers refuse the host."""
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4 or "" in parts:
        return None
    numbers = [_ipv4_part(p) for p in parts]
    if any(n is None for n in numbers):
        return None
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return None
    address = values[-1]
    for index, number in enumerate(values[:-1]):
        address += number * 256 ** (3 - index)
    return str(ipaddress.IPv4Address(address))


def _host(raw: str) -> str | None:
    """The host a browser goes to for the authority's host part, or None when it refuses it."""
    if raw.startswith("["):
        if not raw.endswith("]"):
            return None
        try:
            return f"[{ipaddress.IPv6Address(raw[1:-1]).compressed}]"
        except ValueError:
            return None
    host = unquote(raw, errors="strict") if "%" in raw else raw
    if host == "" or _FORBIDDEN_HOST.search(host):
        return None
    host = host.lower()
    if _ends_in_number(host.split(".")):
        return _ipv4(host)
    return host


def parse_link(url: str) -> ParsedLink | None:
    """The scheme and host a browser takes from `url`, or None when it has no scheme, is not a special
    (hierarchical) URL, or a browser would refuse it. Only the authority is read; the path is left alone."""
    clean = url.strip(_EDGE).translate(_TAB_NEWLINE)
    match = _SCHEME.match(clean)
    if match is None:
        return None
    scheme = match.group(1).lower()
    if scheme not in _SPECIAL:
        return ParsedLink(scheme, "", None, False, clean)  # never opened: nothing more to read
    rest = clean[match.end():].lstrip("/\\")
    end = len(rest)
    for stop in "/\\?#":
        found = rest.find(stop)
        if found != -1:
            end = min(end, found)
    authority = rest[:end]
    hostport = authority.rpartition("@")[2]
    host_text, port_text = hostport, ""
    colon = hostport.rfind(":")
    if colon != -1 and "]" not in hostport[colon:]:
        host_text, port_text = hostport[:colon], hostport[colon + 1:]
    port = parse_digits(port_text) if port_text else None
    if port_text and (port is None or port > 65535):
        return None
    if port == _DEFAULT_PORTS.get(scheme):
        port = None
    try:
        host = _host(host_text)
    except UnicodeDecodeError:
        return None
    if host is None:
        return None
    tail = rest[end:]
    cut = min((i for i in (tail.find("?"), tail.find("#")) if i != -1), default=len(tail))
    path = tail[:cut].replace("\\", "/") + tail[cut:]  # in the path of an http(s) URL, `\` is `/`
    shown_port = "" if port is None else f":{port}"
    path = path if path.startswith("/") else f"/{path}"
    return ParsedLink(scheme, host, port, "@" in authority, f"{scheme}://{host}{shown_port}{path}")


def link_verdict(url: str, instance_url: str) -> LinkVerdict:
    """Open at once, ask first, or refuse: the decision for every place that opens a link."""
    target = parse_link(url)
    if target is None or target.scheme not in _DEFAULT_PORTS:
        kind = f"a {target.scheme}: link" if target is not None else "not a link a browser can open"
        return LinkVerdict(LinkAction.REFUSE, url, None, f"{kind}: only http(s) links are opened")
    home = parse_link(instance_url)
    where = target.host if target.port is None else f"{target.host}:{target.port}"
    if target.userinfo:
        return LinkVerdict(LinkAction.ASK, target.url, where, f"the link holds a user name; goes to {where}")
    if not target.host.isascii():
        return LinkVerdict(LinkAction.ASK, target.url, where, f"the host has non-ASCII letters: {where}")
    if home is not None and home.scheme in _DEFAULT_PORTS and (home.host, home.port) == (target.host,
                                                                                          target.port):
        return LinkVerdict(LinkAction.OPEN, target.url, where, "on the instance")
    return LinkVerdict(LinkAction.ASK, target.url, where, f"the link leaves the instance for {where}")


def opens_without_asking(url: str, instance_url: str) -> bool:
    """True when `url` is http(s) on the instance's host (same explicit port, if any); anything else asks."""
    return link_verdict(url, instance_url).action is LinkAction.OPEN


def is_openable(url: str) -> bool:
    """Only http(s) links are ever opened (never file:, smb:, javascript:, ssh: or custom schemes)."""
    return link_verdict(url, "").action is not LinkAction.REFUSE
