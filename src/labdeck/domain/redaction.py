"""Removing secrets from text that leaves the process (crash reports, notifications, one-line CLI errors, the
request log, `labdeck api` output): known secret values, and anything shaped like a GitLab token, an auth
header, or a password in a URL.

Known values come from a process-wide registry: whoever resolves a token (the config's token sources, the
API client) calls `register_secret`, and from then on every `redact` removes it, whatever its shape (a
20-character legacy token or a 64-hex OAuth token does not look like a GitLab token). The registry holds
values in memory only; it is never written anywhere.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

_TOKEN_PATTERNS = [
    # GitLab token prefixes: glpat-, gloas-, gldt-, glrt-, glcbt-, glptt-, glft-, glimt-, glsoat- ...
    re.compile(r"\bgl[a-z]{1,8}-[A-Za-z0-9_\-.]{4,}"),
    re.compile(r"(?i)((?:private|access|job|deploy|feed|runner)?[_-]?token['\"]?\s*[=:]\s*['\"]?)[^\s&'\",;)]+"),
    re.compile(r"(?i)(authorization['\"]?\s*[=:]\s*['\"]?(?:bearer|basic)\s+)[^\s'\",;)]+"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9_\-.=~+/]{8,}"),
    re.compile(r"(?i)(password['\"]?\s*[=:]\s*['\"]?)[^\s&'\",;)]+"),
    re.compile(r"(?i)(https?://[^/\s:@]+:)[^@\s/]+(@)"),
]
REDACTED = "[redacted]"
# A registered value shorter than this is not a credential anyone issues; replacing it would mangle text.
MIN_REGISTERED = 8

_lock = threading.Lock()
_registered: tuple[str, ...] = ()


def register_secret(value: str | None) -> None:
    """Remember `value` (a token) so every later `redact` removes it; empty or very short values are not
    kept. Safe from any thread."""
    global _registered
    if not value:
        return
    candidates = {value, value.strip()}
    with _lock:
        known = set(_registered)
        known.update(v for v in candidates if len(v) >= MIN_REGISTERED)
        _registered = tuple(sorted(known, key=len, reverse=True))  # longest first: no partial leftovers


def registered_secrets() -> tuple[str, ...]:
    """The registered values (longest first)."""
    return _registered


def forget_secrets() -> None:
    """Empty the registry (tests)."""
    global _registered
    with _lock:
        _registered = ()


def redact_known(text: str, secrets: Iterable[str] = ()) -> str:
    """Remove registered secret values and `secrets` from `text`, by value only (no shape matching: for
    text such as JSON output or URL paths, where a token-shaped word may be data)."""
    extra = [s for s in secrets if s and len(s) >= 4]
    for secret in (*_registered, *sorted(extra, key=len, reverse=True)):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Remove registered and given secret values, and anything that looks like a token, from `text`."""
    text = redact_known(text, secrets)
    for pattern in _TOKEN_PATTERNS:
        if pattern.groups >= 2:
            text = pattern.sub(lambda m: f"{m.group(1)}{REDACTED}{m.group(2)}", text)
        elif pattern.groups == 1:
            text = pattern.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
        else:
            text = pattern.sub(REDACTED, text)
    return text
