"""Which characters `domain.text.sanitize` makes visible, declared once, and the patterns derived from that
one list: a character class for text, and byte patterns that find them in a JSON body (raw in UTF-8, or as a
`\\uXXXX` escape in either case) so a clean page can skip the walk and `labdeck api` can escape them.

The characters: C0 controls (tab and newline are kept by the sanitiser), DEL and C1 controls, which a
terminal acts on; and every character that is invisible or changes how the text around it shows, so one
name could pass for another (`bug` and `bug` + U+2063 INVISIBLE SEPARATOR):
- Unicode's Default_Ignorable_Code_Point property (Unicode 15.1, DerivedCoreProperties.txt): soft hyphen,
  combining grapheme joiner, ARABIC LETTER MARK (U+061C), the Hangul fillers (U+115F, U+1160, U+3164,
  U+FFA0), Khmer inherent vowels, Mongolian variation selectors and vowel separator, the zero-width and bidi
  controls (U+200B to U+200F, U+202A to U+202E, U+2060 to U+206F), the variation selectors (U+FE00 to
  U+FE0F, U+E0100 to U+E01EF), the byte order mark, shorthand format controls, musical beam and phrase
  controls, and U+E0000 to U+E0FFF (the tag characters, U+E0001 and U+E0020 to U+E007F, among them);
- the rest of General_Category Cf (format characters; UnicodeData.txt): the Arabic and Syriac prepended
  concatenation marks (U+0600 to U+0605, U+06DD, U+070F, U+0890, U+0891, U+08E2, U+110BD, U+110CD), the
  interlinear annotation controls (U+FFF9 to U+FFFB) and the Egyptian hieroglyph format controls (U+13430
  to U+1343F).
A variation selector after an emoji shows as `<U+FE0F>` too: it is also what makes two names differ
invisibly, and the zero-width joiner of emoji sequences was already shown this way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final

CONTROLS: Final = ((0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F))  # C0 but tab and newline, DEL, C1
DEFAULT_IGNORABLE: Final = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
OTHER_FORMAT: Final = (
    (0x0600, 0x0605), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2),
    (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F),
)
HIDDEN: Final = tuple(sorted((*CONTROLS, *DEFAULT_IGNORABLE, *OTHER_FORMAT)))


def codes(ranges: Iterable[tuple[int, int]] = HIDDEN) -> Iterator[int]:
    for low, high in ranges:
        yield from range(low, high + 1)


def character_class(extra: str = "") -> str:
    """A regex class of every hidden character (and the characters in `extra`)."""
    parts = [re.escape(chr(low)) + ("" if low == high else "-" + re.escape(chr(high)))
             for low, high in HIDDEN]
    return "[" + "".join(parts) + re.escape(extra) + "]"


_Trie = dict[int, "_Trie"]


def _trie_pattern(words: Iterable[bytes]) -> bytes:
    """A regex matching exactly `words` (byte strings none of which is a prefix of another), built as a trie
    whose siblings with the same continuation share one byte class: U+E0000 to U+E0FFF in UTF-8 is
    `\\xf3\\xa0[\\x80-\\x83][\\x80-\\xbf]`."""
    trie: _Trie = {}
    for word in words:
        node = trie
        for byte in word:
            node = node.setdefault(byte, {})

    def emit(node: _Trie) -> bytes:
        if not node:
            return b""
        by_rest: dict[bytes, list[int]] = {}
        for byte, child in sorted(node.items()):
            by_rest.setdefault(emit(child), []).append(byte)
        branches = [_byte_class(heads) + rest for rest, heads in by_rest.items()]
        return branches[0] if len(branches) == 1 else b"(?:" + b"|".join(branches) + b")"

    return emit(trie)


def _byte_class(values: list[int]) -> bytes:
    if len(values) == 1:
        return re.escape(bytes(values))
    runs: list[list[int]] = []
    for value in values:
        if runs and runs[-1][1] == value - 1:
            runs[-1][1] = value
        else:
            runs.append([value, value])
    parts = [b"\\x%02x" % lo + (b"-\\x%02x" % hi if hi != lo else b"") for lo, hi in runs]
    return b"[" + b"".join(parts) + b"]"


def json_escape(code: int) -> bytes:
    """The `\\uXXXX` escape of a code point in JSON (a surrogate pair above U+FFFF), lower-case hex."""
    if code <= 0xFFFF:
        return b"\\u%04x" % code
    code -= 0x10000
    return b"\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))


def utf8_patterns() -> list[tuple[bytes, re.Pattern[bytes]]]:
    """For each byte that starts the UTF-8 form of a non-ASCII hidden character, that byte and a pattern of
    those forms: a body without the byte cannot hold one of them (`bytes.__contains__` is a fast scan)."""
    by_lead: dict[int, list[bytes]] = {}
    for code in codes():
        if code >= 0x80:
            form = chr(code).encode("utf-8")
            by_lead.setdefault(form[0], []).append(form)
    return [(bytes([lead]), re.compile(_trie_pattern(forms))) for lead, forms in sorted(by_lead.items())]


def utf8_pattern() -> re.Pattern[bytes]:
    """Every hidden character that is not ASCII, in UTF-8, as one pattern (and DEL)."""
    forms = [chr(code).encode("utf-8") for code in codes() if code >= 0x7F]
    return re.compile(_trie_pattern(forms))


def escape_pattern() -> re.Pattern[bytes]:
    """A JSON escape that can stand for a hidden character: `\\b`, `\\f`, `\\r` or the `\\uXXXX` form of one
    (hex in either case; both halves of a surrogate pair)."""
    forms = [json_escape(code)[1:] for code in codes()]  # without the leading backslash: `u200b`
    return re.compile(rb"\\(?:[bfr]|" + _trie_pattern(forms) + rb")", re.IGNORECASE)
