"""Sanitising untrusted server text: control characters become visible, once, at the model boundary."""

from __future__ import annotations

import re

# C0 controls except \t and \n, DEL, and C1 controls (U+0080 to U+009F).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        # Unicode "control pictures" block: U+2400 + code (e.g. ESC -> ␛).
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"<U+{code:04X}>"


def sanitize(text: str) -> str:
    """Return `text` with C0 (except tab and newline), DEL and C1 controls replaced by visible forms."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_visible, text)


def sanitize_deep(value: object) -> object:
    """Sanitise every string inside nested lists and dicts (keys included)."""
    if isinstance(value, str):
        return sanitize(value)
    if isinstance(value, list):
        return [sanitize_deep(v) for v in value]
    if isinstance(value, dict):
        return {sanitize(k) if isinstance(k, str) else k: sanitize_deep(v) for k, v in value.items()}
    return value
