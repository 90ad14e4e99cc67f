"""Sanitising untrusted server text: control characters become visible, once, at the model boundary; and
the cheap checks (of a raw JSON body, of a decoded value) that let a clean response skip the walk.

Besides C0 and C1 controls, the characters that make one name look like another are made visible: every
format character and default-ignorable code point (`domain.hidden_characters`, the one list): bidirectional
controls (`alice` + U+202E + `ecila` shows reversed), zero-width ones, U+2063 INVISIBLE SEPARATOR, U+061C
ARABIC LETTER MARK, the tag characters, the Hangul fillers, ..., each as `<U+202E>`."""

from __future__ import annotations

import json
import re

from labdeck.domain import hidden_characters as hidden

# C0 controls except \t and \n, DEL, C1 controls, and the format and default-ignorable characters.
_CONTROL = re.compile(hidden.character_class())
_IN_LINE = re.compile(hidden.character_class("\t\n"))  # the same, and tab and newline
_ASCII_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")  # what ASCII text can hold of them (a cheaper search)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        # Unicode "control pictures" block: U+2400 + code (e.g. ESC -> ␛).
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"<U+{code:04X}>"


def sanitize(text: str) -> str:
    """Return `text` with C0 (except tab and newline), DEL, C1 and every format or default-ignorable
    character (`domain.hidden_characters`) replaced by visible forms."""
    if not (_ASCII_CONTROL if text.isascii() else _CONTROL).search(text):
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
# newline, DEL), a short escape (`\b`, `\f`, `\r`), the `\uXXXX` escape of a hidden character (hex in any
# case; astral ones as surrogate pairs), or a hidden character's UTF-8 form. A body in UTF-16 or UTF-32 holds
# NUL bytes, so it always matches. Each UTF-8 search starts with a literal byte (one pattern with every
# alternative was 25 times slower: 2 ms for a page of 100 issues with newlines in their descriptions); a
# body that is all ASCII needs none of them.
_RAW_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])
_ESCAPED_CONTROL = hidden.escape_pattern()
_HIDDEN_UTF8 = hidden.utf8_patterns()
_HIDDEN_OR_DEL_UTF8 = hidden.utf8_pattern()


def may_hold_control(body: bytes, *, strict_json: bool = False) -> bool:
    """False only when the JSON text `body` cannot decode to any string (key or value) holding a character
    that `sanitize` replaces; True (a walk is needed) otherwise. About 1 ms per MB for a body that is all
    ASCII; for other bodies one fast scan per byte that starts a hidden character's UTF-8 form
    (`hidden_characters.utf8_patterns`), then a search where that byte occurs: under 1 ms per MB of CJK
    text, a few ms per MB of text dense with typographic quotes, Arabic letters or emoji (their lead bytes).
    `strict_json`: the body has been decoded by a strict JSON parser already, which refuses raw C0 bytes
    inside strings, so of the raw control bytes only DEL is looked for (a search, not a copy of the body)."""
    if strict_json:
        if b"\x7f" in body:
            return True
    elif len(body.translate(None, _RAW_CONTROL_BYTES)) != len(body):
        return True
    if b"\\" in body and _ESCAPED_CONTROL.search(body) is not None:
        return True
    return _hidden_utf8_in(body)


def _hidden_utf8_in(body: bytes) -> bool:
    """Whether `body` holds the UTF-8 form of a non-ASCII hidden character."""
    if body.isascii():
        return False
    return any(lead in body and pattern.search(body) is not None for lead, pattern in _HIDDEN_UTF8)


def escape_hidden_in_json(text: bytes) -> bytes:
    """JSON text (UTF-8) with DEL and every non-ASCII character `sanitize` replaces written as its `\\uXXXX`
    escape (a surrogate pair above U+FFFF): the same data, and a terminal shows the escape, not an invisible
    character or a reordered line (`labdeck api`'s output; JSON encoders escape C0 themselves)."""
    if b"\x7f" not in text and not _hidden_utf8_in(text):
        return text
    return _HIDDEN_OR_DEL_UTF8.sub(lambda m: hidden.json_escape(ord(m.group().decode("utf-8"))), text)


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
