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

from labdeck.domain.digits import is_digits

# GitLab's token prefixes (its "Token prefixes" table): personal, project, group access and impersonation
# tokens, OAuth application secrets, deploy, runner (and runner created by registration), CI/CD job,
# trigger, feed, incoming mail, agent, workspace, SCIM and feature flags client tokens. Only these: a rule
# as loose as `gl` + letters + `-` turned `glenn-smith` and `global-config_export.tar.gz` into [redacted].
TOKEN_PREFIXES = ("glpat", "gloas", "gldt", "glrtr", "glrt", "glcbt", "glptt", "glft", "glimt", "glagent",
                  "glwt", "glsoat", "glffct")
_TOKEN_PATTERNS = [
    re.compile(rf"\b(?:{'|'.join(TOKEN_PREFIXES)})-[A-Za-z0-9_\-.]{{4,}}"),
    re.compile(r"\bGR1348941[A-Za-z0-9_\-]{4,}"),  # runner registration tokens
    re.compile(r"(?i)(_gitlab_session=)[^\s&'\",;)]+"),
    re.compile(r"(?i)((?:private|access|job|deploy|feed|runner)?[_-]?token['\"]?\s*[=:]\s*['\"]?)[^\s&'\",;)]+"),
    re.compile(r"(?i)(authorization['\"]?\s*[=:]\s*['\"]?(?:bearer|basic)\s+)[^\s'\",;)]+"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9_\-.=~+/]{8,}"),
    re.compile(r"(?i)(password['\"]?\s*[=:]\s*['\"]?)[^\s&'\",;)]+"),
    re.compile(r"(?i)(https?://[^/\s:@]+:)[^@\s/]+(@)"),
]
# A run of a token's alphabet that reads as a credential whatever its prefix: 32 or more hex digits (an
# OAuth token is 64), or 20 or more characters mixing upper case, lower case and digits (a legacy token).
_SECRET_LIKE = re.compile(r"(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9_\-])")
_HEX = re.compile(r"[0-9a-fA-F]{32,}")
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


def redact_known_bytes(data: bytes, secrets: Iterable[str] = ()) -> bytes:
    """`redact_known` for bytes that need not be text (an answer that is not UTF-8, written out as it came):
    each secret's bytes replaced, every other byte kept as it was (undecodable bytes round-trip through
    `surrogateescape`)."""
    text = data.decode("utf-8", "surrogateescape")
    redacted = redact_known(text, secrets)
    return data if redacted is text else redacted.encode("utf-8", "surrogateescape")


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


def _secret_like(match: re.Match[str]) -> str:
    run = match.group()
    if _HEX.search(run):
        return REDACTED
    if any(c.isupper() for c in run) and any(c.islower() for c in run) and any(is_digits(c) for c in run):
        return REDACTED
    return run


def redact_secret_like(text: str) -> str:
    """`redact`, and any run that reads as a credential whatever its shape (32+ hex digits in it; 20+ chars
    mixing upper case, lower case and digits): for text where such a run can only be a secret, such as the
    error output of a token command (`set -x` echoes the token it fetched). Not for general text, where a
    commit SHA is data."""
    return _SECRET_LIKE.sub(_secret_like, redact(text))
