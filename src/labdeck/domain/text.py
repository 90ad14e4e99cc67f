"""Sanitising untrusted server text: control characters become visible, once, at the model boundary; and
the cheap checks (of a raw JSON body, of a decoded value) that let a clean response skip the walk."""

from __future__ import annotations

import json
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


# What a JSON body holding a control character in some string must contain: the raw byte (C0 but tab and
# newline, DEL), a short escape (`\b`, `\f`, `\r`), a `\u00XX` escape of C0, DEL or C1 (hex in any case),
# or C1 in UTF-8 (C2 80 to C2 9F). A body in UTF-16 or UTF-32 holds NUL bytes, so it always matches.
_RAW_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])
_ESCAPED_CONTROL = re.compile(rb"\\(?:[bfr]|u00(?:[01][0-9a-fA-F]|7[fF]|[89][0-9a-fA-F]))|\xc2[\x80-\x9f]")


def may_hold_control(body: bytes) -> bool:
    """False only when the JSON text `body` cannot decode to any string (key or value) holding a control
    character that `sanitize` replaces; True (a walk is needed) otherwise. Under 1 ms per MB when the body
    has no backslash and no C2 byte, about 3 ms per MB when it has."""
    if len(body.translate(None, _RAW_CONTROL_BYTES)) != len(body):
        return True
    if b"\\" not in body and b"\xc2" not in body:
        return False
    return _ESCAPED_CONTROL.search(body) is not None


def parsed_may_hold_control(body: bytes) -> bool:
    """`may_hold_control` for a body that a strict JSON parser (orjson) has just accepted, which is faster:
    such a body holds no raw C0 byte inside a string (JSON forbids it; outside strings only whitespace is
    allowed), so only raw DEL, C1 in UTF-8 and escapes are left to look for."""
    if b"\x7f" in body:
        return True
    if b"\\" not in body and b"\xc2" not in body:
        return False
    return _ESCAPED_CONTROL.search(body) is not None


def sanitize_json(value: object) -> object:
    """`sanitize_deep(value)` for decoded JSON, faster when nothing needs replacing (the usual case): the
    value itself when its JSON text cannot hold a control character, else the walked copy."""
    try:
        body = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError):  # not plain JSON data: walk it
        return sanitize_deep(value)
    return sanitize_deep(value) if may_hold_control(body) else value


def status_line(status: int | None, message: str) -> str:
    """An HTTP status and the server's message with the status said once: GitLab's messages often start with
    it ("404 Project Not Found"), others do not ("400: status is missing"); no status: "error: ..."."""
    if status is None:
        return f"error: {message}"
    code = str(status)
    return message if message == code or message.startswith(f"{code} ") else f"{code}: {message}"
