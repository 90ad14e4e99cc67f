"""What a list pane shows, declared once (`TabSpec`): its columns (each says its own text: one declaration
per column), how a row is keyed, the detail of a row and what the empty list says; and the small cell and
detail helpers the specs share (`day`, `yes`, `detail_text`). Server text is turned into `rich.text.Text`
here and never parsed as markup.

It may use the table's declarations (`widgets/table_model.py`, `widgets/detail_fields.py`); it reads no
service and knows no area.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.text import Text

from labdeck.tui.widgets.detail_fields import append_fields
from labdeck.tui.widgets.table_model import Column, cells_from

Cells = Callable[[Any], tuple[Text, ...]]


def day(value: datetime | Any | None) -> str:
    """A date or time as its day (`2026-03-01`), "" for none."""
    if value is None:
        return ""
    return value.strftime("%Y-%m-%d") if hasattr(value, "strftime") else str(value)


def yes(flag: bool | None) -> Text:
    """"yes" in green for a set flag, nothing otherwise."""
    return Text("yes" if flag else "", style="green" if flag else "")


def detail_text(title: str, pairs: list[tuple[str, Any]]) -> Text:
    """A row's detail: its title in bold, then one labelled line per field (None shown empty)."""
    fields = ((label, "" if value is None else str(value)) for label, value in pairs)
    return append_fields(Text(title, style="bold"), fields, width=14)


@dataclass(frozen=True)
class TabSpec:
    """What one list shows: its columns (each says its own text: one declaration per column), row key,
    detail and empty text."""

    columns: list[Column]
    row_key: Callable[[Any], Any]
    detail: Callable[[Any], Text]
    empty: str

    @property
    def cells(self) -> Cells:
        cells = cells_from(self.columns)
        assert cells is not None, "every column of a tab declares its text"
        return cells  # type: ignore[return-value]  # the columns' texts are Text
