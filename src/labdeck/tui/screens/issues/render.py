"""What the issues view draws: the table's columns and cells (label names on their own colours) and the
detail pane (meta, time stats, related and closing merge requests, the description as Markdown with links
shown but never opened by themselves, and the latest notes). Every server string is literal `Text` or
Markdown source, never Textual markup."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from operator import attrgetter
from typing import Final

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.style import Style
from rich.text import Text

from labdeck.api.models.issues import Issue, IssueMergeRequest, LabelDetail, Note
from labdeck.tui.screens.issues.time_tracking import stats_text
from labdeck.tui.widgets.table_columns import plain_column
from labdeck.tui.widgets.table_model import Column, LazyCells, cells_from

_HEX = re.compile(r"#[0-9a-fA-F]{6}")

DETAIL_NOTES: Final = 20


def _colour(value: str | None) -> str | None:
    return value if value and _HEX.fullmatch(value) else None


@lru_cache(maxsize=1024)
def _chip_style(color: str | None, text_color: str | None) -> Style:
    """One shared Style per (colour, text colour) pair: instances have only a few distinct labels."""
    background, foreground = _colour(color), _colour(text_color)
    return Style(bgcolor=background, color=foreground) if background else Style(reverse=True)


def label_chips(labels: list[LabelDetail]) -> Text:
    """Label names on their own colours (colours that are not `#rrggbb` are ignored)."""
    text = Text()
    for label in labels:
        if text:
            text.append(" ")
        text.append(f" {label.name} ", style=_chip_style(label.color, label.text_color))
    return text


def _chips_plain(labels: list[LabelDetail]) -> str:
    return " ".join(f" {label.name} " for label in labels)


def _state_plain(issue: Issue) -> str:
    return issue.state + " ⊘" if issue.confidential else issue.state


def _day(stamp: datetime | None) -> str:
    """`%Y-%m-%d` of a timestamp (the date's own ISO form: strftime is several times slower)."""
    if stamp is None:
        return ""
    return stamp.date().isoformat() if stamp.year >= 1000 else stamp.strftime("%Y-%m-%d")


def _state_cell(issue: Issue) -> Text:
    state = Text(issue.state, style="green" if issue.state == "opened" else "magenta")
    if issue.confidential:
        state.append(" ⊘", style="yellow")
    return state


COLUMNS = [
    plain_column("reference", "Reference", attrgetter("reference"), min_width=14, priority=6,
                 sort_key=lambda i: (i.reference.rpartition("#")[0], i.iid), data=attrgetter("reference")),
    plain_column("title", "Title", attrgetter("title"), min_width=20, max_width=60, priority=10,
                 data=attrgetter("title")),
    Column("state", "State", width=8, priority=7, text=_state_cell, plain=_state_plain,
           data=attrgetter("state"), extra_data=(("confidential", attrgetter("confidential")),)),
    Column("labels", "Labels", min_width=18, priority=8, text=lambda i: label_chips(i.labels),
           plain=lambda i: _chips_plain(i.labels), data=attrgetter("label_names")),
    plain_column("assignees", "Assignees", lambda i: ", ".join(i.assignee_usernames), min_width=9,
                 priority=5, data=attrgetter("assignee_usernames")),
    plain_column("milestone", "Milestone", lambda i: i.milestone.title if i.milestone else "", min_width=9,
                 priority=2, data=lambda i: i.milestone.title if i.milestone else None),
    plain_column("due", "Due", lambda i: i.due_date.isoformat() if i.due_date else "", width=10, priority=3,
                 data=attrgetter("due_date")),
    plain_column("updated", "Updated", lambda i: _day(i.updated_at), width=10, priority=4,
                 sort_key=lambda i: i.updated_at.timestamp() if i.updated_at else 0,
                 data=attrgetter("updated_at")),
]

_cells = cells_from(COLUMNS)
assert isinstance(_cells, LazyCells), "every issue column declares its text and its plain text"
issue_cells: LazyCells = _cells
"""The cells of one issue row, from the columns: the table builds them only for the rows it draws."""


def issue_plains(issue: Issue) -> tuple[str, ...]:
    """The plain text of each cell of `issue_cells(issue)` (what the filter searches), without any styling."""
    return tuple(issue_cells.plains(issue))


@dataclass
class Extras:
    """What the detail pane loads for one issue after the cursor settles on it."""

    notes: list[Note] = field(default_factory=list)
    related: list[IssueMergeRequest] = field(default_factory=list)
    closing: list[IssueMergeRequest] = field(default_factory=list)
    error: str | None = None


def _mr_lines(title: str, mrs: list[IssueMergeRequest]) -> Text:
    text = Text(f"\n{title}", style="bold")
    if not mrs:
        text.append("  none", style="dim")
    for mr in mrs:
        text.append(f"\n  {mr.reference} ", style="cyan")
        text.append(mr.title)
        text.append(f"  ({mr.state})", style="dim")
    return text


def issue_detail(issue: Issue, extras: Extras | None) -> RenderableType:
    """The detail pane of one issue (every server string as literal text or as Markdown)."""
    head = Text(issue.reference, style="dim")
    head.append("\n")
    head.append(issue.title, style="bold")
    meta = Text()
    rows = (("state", issue.state + (" · confidential" if issue.confidential else "")),
            ("type", issue.issue_type or "issue"),
            ("author", issue.author.username or "" if issue.author else ""),
            ("assignees", ", ".join(issue.assignee_usernames) or "none"),
            ("milestone", issue.milestone.title if issue.milestone else "none"),
            ("due", issue.due_date.isoformat() if issue.due_date else "none"))
    for name, value in rows:
        meta.append(f"\n{name:>10}  ", style="dim")
        meta.append(value)
    meta.append(f"\n{'labels':>10}  ", style="dim")
    meta.append_text(label_chips(issue.labels) if issue.labels else Text("none"))
    meta.append(f"\n{'time':>10}  ", style="dim")
    meta.append_text(stats_text(issue.time_stats))
    parts: list[RenderableType] = [head, meta]
    if extras is None:
        parts.append(Text("\nloading merge requests and notes…", style="dim"))
    elif extras.error:
        parts.append(Text(f"\n{extras.error}", style="red"))
    else:
        parts.append(_mr_lines("Related merge requests", extras.related))
        parts.append(_mr_lines("Closed by", extras.closing))
    parts.append(Text("\nDescription", style="bold"))
    parts.append(Markdown(issue.description or "_no description_", hyperlinks=False))
    if extras is not None and not extras.error:
        notes = [n for n in extras.notes if not n.system][-DETAIL_NOTES:]
        parts.append(Text(f"\nNotes ({len(notes)})", style="bold"))
        for note in notes:
            line = Text(f"\n{note.author.username if note.author else '?'}: ", style="cyan")
            line.append(note.body)
            parts.append(line)
    return Group(*parts)
