"""Removing secrets from text that leaves the process (crash reports, notifications, one-line CLI errors):
known secret values, and anything shaped like a GitLab token, an auth header, or a password in a URL."""

from __future__ import annotations

import re
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


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Remove known secret values and anything that looks like a token from `text`."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    for pattern in _TOKEN_PATTERNS:
        if pattern.groups >= 2:
            text = pattern.sub(lambda m: f"{m.group(1)}{REDACTED}{m.group(2)}", text)
        elif pattern.groups == 1:
            text = pattern.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
        else:
            text = pattern.sub(REDACTED, text)
    return text
