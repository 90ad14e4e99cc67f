"""Bidi controls and zero-width characters are made visible by the one sanitiser (so `alice` + U+202E
cannot pass for another name), and the fast pre-check on page bytes finds them, raw or escaped."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.text import may_hold_control, sanitize, sanitize_json, sanitize_line, typed_text

INVISIBLE = [*range(0x200B, 0x2010), *range(0x202A, 0x202F), 0x2060, *range(0x2066, 0x206A), 0xFEFF]


@pytest.mark.parametrize("code", INVISIBLE)
def test_each_invisible_character_is_shown(code: int) -> None:
    name = f"alice{chr(code)}"
    shown = sanitize(name)
    assert shown == f"alice<U+{code:04X}>" and chr(code) not in shown
    assert sanitize_line(name) == shown
    assert sanitize_json({"username": name}) == {"username": shown}


@pytest.mark.parametrize("code", INVISIBLE)
@pytest.mark.parametrize("strict", [True, False])
def test_the_byte_check_finds_each_raw_or_escaped(code: int, strict: bool) -> None:
    raw = json.dumps({"username": f"a{chr(code)}b"}, ensure_ascii=False).encode()
    escaped = json.dumps({"username": f"a{chr(code)}b"}).encode()  # \u202e
    assert may_hold_control(raw, strict_json=strict)
    assert may_hold_control(escaped, strict_json=strict)
    upper = re.sub(rb"\\u([0-9a-f]{4})", lambda m: b"\\u" + m.group(1).upper(), escaped)
    assert may_hold_control(upper, strict_json=strict)  # \u202E: hex in any case


def test_ordinary_punctuation_is_left_alone() -> None:
    # E2 bytes, none of them hidden (U+2061 FUNCTION APPLICATION, once here, is an invisible format
    # character: issue 32 item 9 shows it, `test_text_format_characters.py`)
    text = "“quoted” – dash … ellipsis ‘x’ • € ™ \u2070 \u202f"
    body = json.dumps({"title": text}, ensure_ascii=False).encode()
    assert not may_hold_control(body, strict_json=True) and sanitize(text) == text
    assert not may_hold_control(json.dumps({"title": text}).encode(), strict_json=True)


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30))
def test_a_body_the_check_passes_needs_no_sanitising(text: str) -> None:
    for ensure_ascii in (True, False):
        body = json.dumps({"k": text}, ensure_ascii=ensure_ascii).encode()
        if not may_hold_control(body):
            assert sanitize(text) == text


@given(st.lists(st.sampled_from(["a", "b", " ", "\u202e", "\u200b", "\u2066", "\ufeff", "\n", "\x1b"]),
                max_size=12))
def test_no_hidden_character_survives(parts: list[str]) -> None:
    text = "".join(parts)
    assert not any(chr(c) in sanitize(text) for c in INVISIBLE)
    assert "\n" not in sanitize_line(text) and "\x1b" not in sanitize_line(text)


@given(st.text())
def test_typed_text_keeps_every_line_and_shows_every_control(text: str) -> None:
    """A paste or a file from the editor: CR LF and CR are line ends, and nothing but LF and tab is left
    that a terminal would act on."""
    typed = typed_text(text)
    assert "\r" not in typed
    assert typed.count("\n") == text.replace("\r\n", "\n").count("\n") + text.replace("\r\n", "").count("\r")
    assert typed == sanitize(typed)


def test_typed_text_shows_an_escape_sequence_in_place() -> None:
    assert typed_text("XXX\x1b[31mYYY\r\nnext\rlast") == "XXX␛[31mYYY\nnext\nlast"
