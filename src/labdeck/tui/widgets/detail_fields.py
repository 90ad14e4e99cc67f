"""The `label  value` lines of the detail panes: labels dim and right-aligned to one width, values as
literal text (server text is never read as markup)."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text


def append_fields(text: Text, fields: Iterable[tuple[str, str]], *, width: int,
                  skip_empty: bool = True) -> Text:
    """Append one line per `(label, value)` to `text` (and return it); empty values are left out unless
    `skip_empty` is False."""
    for label, value in fields:
        if value or not skip_empty:
            text.append(f"\n{label:>{width}}  ", style="dim")
            text.append(value)
    return text
