"""Every invisible format character is made visible by the one sanitiser (issue 32 item 9): Unicode's format
characters (General_Category Cf: U+061C ARABIC LETTER MARK, U+2063 INVISIBLE SEPARATOR, the tag characters
U+E0001 and U+E0020 to U+E007F, ...) and every Default_Ignorable_Code_Point (the Hangul fillers U+115F,
U+1160, U+3164, U+FFA0, the variation selectors, U+034F, the reserved U+E0000 to U+E0FFF, ...), so `bug`
and `bug` + U+2063 cannot look the same in a list, a confirmation or `labdeck api`'s output. The fast check
on raw page bytes finds each of them too, raw in UTF-8 or `\\u`-escaped in either case, or a page would be
shown unsanitised."""

from __future__ import annotations

import json
import re
import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.text import may_hold_control, sanitize, sanitize_json, sanitize_line, typed_text

# Default_Ignorable_Code_Point, from Unicode 15.1's DerivedCoreProperties.txt (the whole property).
DEFAULT_IGNORABLE = [
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
]
FORMAT = [c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
HIDDEN = sorted({c for lo, hi in DEFAULT_IGNORABLE for c in range(lo, hi + 1)} | set(FORMAT))
PLAIN = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cc", "Cf", "Cs", "Cn"]),
                max_size=8).filter(lambda t: sanitize(t) == t)


def _shown(code: int) -> str:
    return f"<U+{code:04X}>"


def test_the_lists_hold_what_the_issue_names() -> None:
    assert {0x061C, 0x2063, 0xE0001, 0xE0041, 0xE007F, 0x115F, 0x1160, 0x3164, 0xFFA0} <= set(HIDDEN)
    assert len(HIDDEN) > 4000


def test_each_one_is_shown_and_found_in_the_bytes() -> None:
    """All of them, one by one (the hypothesis tests below mix them into other text)."""
    missed = []
    for code in HIDDEN:
        text = f"bug{chr(code)}"
        raw = json.dumps({"name": text}, ensure_ascii=False).encode("utf-8")
        escaped = json.dumps({"name": text}).encode()
        upper = re.sub(rb"\\u([0-9a-f]{4})", lambda m: b"\\u" + m.group(1).upper(), escaped)
        if (sanitize(text) != "bug" + _shown(code) or sanitize_line(text) != sanitize(text)
                or not all(may_hold_control(b, strict_json=s) for b in (raw, escaped, upper)
                           for s in (True, False))):
            missed.append(hex(code))
    assert missed == []


@given(PLAIN, st.sampled_from(HIDDEN), PLAIN)
def test_the_sanitised_text_shows_every_format_character(before: str, code: int, after: str) -> None:
    text = before + chr(code) + after
    shown = sanitize(text)
    assert chr(code) not in shown and shown == before + _shown(code) + after
    assert sanitize_line(text) == shown.replace("\n", " ").replace("\t", " ")
    assert sanitize_json({text: [text]}) == {shown: [shown]}
    assert typed_text(text) == shown  # a paste shows them too
    for ensure_ascii in (True, False):
        assert may_hold_control(json.dumps([text], ensure_ascii=ensure_ascii).encode(), strict_json=True)


@given(st.lists(st.sampled_from(HIDDEN), min_size=1, max_size=6), PLAIN)
def test_two_names_that_differ_by_hidden_characters_never_look_the_same(codes: list[int], name: str) -> None:
    assert sanitize(name + "".join(map(chr, codes))) != sanitize(name)


@pytest.mark.parametrize("text", ["bug", "café", "日本語のラベル", "emoji \U0001f600", "a\u00a0b", "x\u2028y",
                                  "\u0627\u0644\u0639\u0631\u0628\u064a\u0629", "한국어"])
def test_visible_text_is_left_alone_and_needs_no_walk(text: str) -> None:
    assert sanitize(text) == text
    for ensure_ascii in (True, False):
        assert not may_hold_control(json.dumps({"t": text}, ensure_ascii=ensure_ascii).encode())
