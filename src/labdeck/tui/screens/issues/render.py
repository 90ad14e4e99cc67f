"""What the issues view draws: the table's columns and cells (label names on their own colours) and the
detail pane (meta, time stats, related and closing merge requests, the description as Markdown with links
shown but never opened by themselves, and the latest notes). Every server string is literal `Text` or
Markdown source, never Textual markup."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from operator import attrgetter
from typing import Final

from rich.cells import cell_len, set_cell_size
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


def label_chips(labels: Sequence[LabelDetail], width: int | None = None) -> Text:
    """Label names on their own colours (colours that are not `#rrggbb` are ignored); in `width` cells,
    those that fit whole and `+N` for the others (the first cut when not even it fits beside its count)."""
    text = Text()
    for index, label in enumerate(labels):
        chip = f" {label.name} "
        if width is not None:
            after = len(labels) - index - 1  # labels after this one: `+after` if they are left out
            more = len(f" +{after}") if after else 0
            gap = 1 if text else 0
            if text.cell_len + gap + cell_len(chip) + more > width:
                if text:  # room was kept for the count of the others, this one among them
                    text.append(f" +{after + 1}", style="dim")
                    return text
                room = width - more
                if room < 2:  # no room for a count: the chip is cut where the line ends
                    room, more = width, 0
                cut = set_cell_size(chip, room - 1) + "…"
                text.append(cut, style=_chip_style(label.color, label.text_color))
                if more:
                    text.append(f" +{after}", style="dim")
                return text
        if text:
            text.append(" ")
        text.append(chip, style=_chip_style(label.color, label.text_color))
    return text


def _chips_plain(labels: Sequence[LabelDetail]) -> str:
    return " ".join(f" {label.name} " for label in labels)


def labels_first(labels: list[LabelDetail], first: Collection[str]) -> list[LabelDetail]:
    """`labels` with those named in `first` (the labels a filter asks for) before the others, each group
    in its own order."""
    if not first or not labels:
        return labels
    wanted = {name.casefold() for name in first}
    return sorted(labels, key=lambda label: label.name.casefold() not in wanted)


def reference_in(reference: str, width: int) -> str:
    """`reference` in `width` cells: whole when it fits, else its start, `…` and its end (the project's own
    name and `#iid`, which a cut at the end would lose): `stark-indus…/scheduler-core#6`. References
    are GitLab paths: ASCII."""
    if len(reference) <= width:
        return reference
    if width <= 1:
        return "…"[:width]
    tail = reference[reference.rfind("/"):] if "/" in reference else reference
    head = width - 1 - len(tail)
    if head >= 3:
        return reference[:head] + "…" + tail
    if len(tail) < width:  # too little room for its start to say anything: its last part
        return "…" + tail
    return "…" + reference[len(reference) - width + 1:]  # the end, with its number


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


def issue_columns(first_labels: Callable[[], Collection[str]] = tuple) -> list[Column]:
    """The issues' columns; `first_labels()` names the labels the list is filtered by, shown first in the
    Labels cell (a list filtered by `label:bug` shows `bug` in every row).

    The reference is the key: whole up to 32 cells, and further once the others have their room, as far as
    the title, the state and the labels (essential) leave room, else cut in its middle (`reference_in`);
    then the assignees, the update, the due date and the milestone as room allows. The title and the
    reference are read whole in the detail pane."""
    def labels(issue: Issue) -> list[LabelDetail]:
        return labels_first(issue.labels, first_labels())

    return [
        plain_column("reference", "Reference", attrgetter("reference"), min_width=14, max_width=32,
                     priority=10, fitted=lambda i, width: reference_in(i.reference, width),
                     sort_key=lambda i: (i.reference.rpartition("#")[0], i.iid),
                     data=attrgetter("reference")),
        plain_column("title", "Title", attrgetter("title"), min_width=20, max_width=40, priority=9,
                     essential=True, data=attrgetter("title")),
        Column("state", "State", width=8, priority=8, essential=True, text=_state_cell, plain=_state_plain,
               data=attrgetter("state"), extra_data=(("confidential", attrgetter("confidential")),)),
        Column("labels", "Labels", min_width=10, priority=7, essential=True,
               text=lambda i: label_chips(labels(i)), plain=lambda i: _chips_plain(labels(i)),
               fitted=lambda i, width: label_chips(labels(i), width), data=attrgetter("label_names")),
        plain_column("assignees", "Assignees", lambda i: ", ".join(i.assignee_usernames), min_width=9,
                     priority=5, data=attrgetter("assignee_usernames")),
        plain_column("milestone", "Milestone", lambda i: i.milestone.title if i.milestone else "",
                     min_width=9, priority=2, data=lambda i: i.milestone.title if i.milestone else None),
        plain_column("due", "Due", lambda i: i.due_date.isoformat() if i.due_date else "", width=10,
                     priority=3, data=attrgetter("due_date")),
        plain_column("updated", "Updated", lambda i: _day(i.updated_at), width=10, priority=4,
                     sort_key=lambda i: i.updated_at.timestamp() if i.updated_at else 0,
                     data=attrgetter("updated_at")),
    ]


COLUMNS = issue_columns()
"""The columns of a list filtered by no label (the project view's Issues tab takes them from the title)."""

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
