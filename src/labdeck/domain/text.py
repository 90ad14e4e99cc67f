"""Sanitising untrusted server text: control characters become visible, once, at the model boundary; and
the cheap checks (of a raw JSON body, of a decoded value) that let a clean response skip the walk.

Besides C0 and C1 controls, the characters that make one name look like another are made visible:
bidirectional controls (U+202A to U+202E, U+2066 to U+2069: `alice` + U+202E + `ecila` shows reversed) and
zero-width ones (U+200B to U+200F, U+2060, U+FEFF), each as `<U+202E>`."""

from __future__ import annotations

import json
import re

# C0 controls except \t and \n, DEL, C1 controls (U+0080 to U+009F), zero-width and bidi controls.
_INVISIBLE = "\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff"
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f{_INVISIBLE}]")
_IN_LINE = re.compile(f"[\x00-\x1f\x7f\x80-\x9f{_INVISIBLE}]")  # the same, and tab and newline


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        # Unicode "control pictures" block: U+2400 + code (e.g. ESC -> ␛).
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"<U+{code:04X}>"


def sanitize(text: str) -> str:
    """Return `text` with C0 (except tab and newline), DEL, C1, bidi and zero-width controls replaced by
    visible forms."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_visible, text)


def sanitize_line(text: str) -> str:
    """`sanitize` for text shown on one terminal line: newline and tab become spaces too."""
    if not _IN_LINE.search(text):
        return text
    return sanitize(text.replace("\n", " ").replace("\t", " "))


def typed_text(text: str) -> str:
    """Text that comes in from outside the keyboard, as it goes into a field: a paste (terminals send its
    line ends as CR) or a file read back from the user's editor. Line ends (CR LF, CR) become LF; every
    other control is made visible (`sanitize`), in place: `XXX` ESC `[31mYYY` reads `XXX␛[31mYYY`."""
    return sanitize(text.replace("\r\n", "\n").replace("\r", "\n"))


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
# newline, DEL), a short escape (`\b`, `\f`, `\r`), a `\uXXXX` escape of C0, DEL, C1, a zero-width or a bidi
# control (hex in any case), C1 in UTF-8 (C2 80 to C2 9F), or a zero-width or bidi control in UTF-8 (E2 80 8B
# to 8F, E2 80 AA to AE, E2 81 A0, E2 81 A6 to A9, EF BB BF). A body in UTF-16 or UTF-32 holds NUL bytes, so
# it always matches. Each search starts with a literal byte (one pattern with every alternative was 25 times
# slower: 2 ms for a page of 100 issues with newlines in their descriptions); E2 starts common punctuation
# (quotes, dashes, the ellipsis), so its search is a pattern anchored on that byte.
_RAW_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])
_ESCAPED_CONTROL = re.compile(rb"\\(?:[bfr]|u(?:00(?:[01][0-9a-fA-F]|7[fF]|[89][0-9a-fA-F])"
                              rb"|20(?:0[b-fB-F]|2[a-eA-E]|6[06-9])|[fF][eE][fF][fF]))")
_C1_UTF8 = re.compile(rb"\xc2[\x80-\x9f]")
_INVISIBLE_UTF8 = re.compile(rb"\xe2(?:\x80[\x8b-\x8f\xaa-\xae]|\x81[\xa0\xa6-\xa9])")


def may_hold_control(body: bytes, *, strict_json: bool = False) -> bool:
    """False only when the JSON text `body` cannot decode to any string (key or value) holding a character
    that `sanitize` replaces; True (a walk is needed) otherwise. Under 1 ms per MB when the body has no
    backslash and no C2, E2 or EF byte, about 0.5 ms per MB when it has (2 to 3 ms per MB of text dense
    with typographic quotes and dashes, E2 80 9x). `strict_json`: the body has been
    decoded by a strict JSON parser already, which refuses raw C0 bytes inside strings, so of the raw
    control bytes only DEL is looked for (a search, not a copy of the body)."""
    if strict_json:
        if b"\x7f" in body:
            return True
    elif len(body.translate(None, _RAW_CONTROL_BYTES)) != len(body):
        return True
    if b"\\" in body and _ESCAPED_CONTROL.search(body) is not None:
        return True
    if b"\xc2" in body and _C1_UTF8.search(body) is not None:
        return True
    if b"\xe2" in body and _INVISIBLE_UTF8.search(body) is not None:
        return True
    return b"\xef" in body and b"\xef\xbb\xbf" in body  # memchr first: a 3-byte search costs 1.5 ms per MB


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
