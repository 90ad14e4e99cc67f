"""JSON output of `labdeck api`, as `gh api` writes it: indented on a terminal, compact otherwise, encoded
by orjson, and for `--paginate` one array written page by page as the pages arrive (no copy of the whole
result is ever held). DEL, C1 and every character `domain.text.sanitize` shows (bidi and zero-width controls,
format and default-ignorable characters) are escaped as `\\uXXXX`, so server text cannot drive the terminal,
reorder a line or hide a character, and the configured token(s) are removed by value."""

from __future__ import annotations

import json
from typing import Any, BinaryIO

import orjson

from labdeck.api.errors import MalformedResponse
from labdeck.domain.redaction import redact_known
from labdeck.domain.text import escape_hidden_in_json


def encode(value: Any, *, pretty: bool) -> bytes:
    """`value` as JSON bytes (2-space indent when `pretty`), DEL, C1 and hidden characters escaped. orjson
    first; what it refuses (integers beyond 64 bits, nesting deeper than 254 levels) goes through the
    standard encoder, and nesting too deep for that too is a `MalformedResponse`, never a `RecursionError`."""
    try:
        out = orjson.dumps(value, option=orjson.OPT_INDENT_2 if pretty else 0)
    except TypeError:
        try:
            text = json.dumps(value, indent=2 if pretty else None, ensure_ascii=False,
                              separators=None if pretty else (",", ":"))
        except RecursionError:
            raise MalformedResponse("the response is nested too deeply to print") from None
        out = text.encode("utf-8", "surrogatepass")
    out = escape_hidden_in_json(out)  # DEL, C1 and the invisible characters `sanitize` shows, as `\uXXXX`
    text = out.decode("utf-8", "surrogatepass")
    redacted = redact_known(text)  # the configured token(s), by value
    return out if redacted is text else redacted.encode("utf-8", "surrogatepass")


class ArrayWriter:
    """Writes one JSON array to `out` from successive lists of items (`add`), then `close`. The text equals
    `encode(all_items, pretty=...)`; only the current page's items are held."""

    def __init__(self, out: BinaryIO, *, pretty: bool) -> None:
        self._out = out
        self._pretty = pretty
        self._started = False

    def add(self, items: list[Any]) -> None:
        if not items:
            return
        body = encode(items, pretty=self._pretty)
        # `[` + items + `]`, or `[\n  ` + items + `\n]` when indented: keep the items, join with commas.
        inner = body[2:-2] if self._pretty else body[1:-1]
        if self._started:
            self._out.write(b",\n" if self._pretty else b",")
        else:
            self._out.write(b"[\n" if self._pretty else b"[")
            self._started = True
        self._out.write(inner)
        self._out.flush()

    def close(self) -> None:
        if not self._started:
            self._out.write(b"[]\n")
        else:
            self._out.write(b"\n]\n" if self._pretty else b"]\n")
        self._out.flush()
