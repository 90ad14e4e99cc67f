"""The lists of the groups view's tabs (`TabSpec`): columns, cells and detail text for projects, subgroups,
members, labels, badges, CI variables, iterations and relation exports, each shown by its tab's pane
(`groups/panes/`; the members and variables lists by the members and variables panes, `screens/panes/`,
wherever they are shown). Server text is turned into
`rich.text.Text` here and never parsed as markup; masked variable values stay hidden unless their key is in
`revealed`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.text import Text
from textual.app import App
from textual.content import Content

from labdeck.api.models.group_transfer import RelationState, RelationStatus
from labdeck.api.models.groups import Group
from labdeck.api.models.members import BillableMember, Member
from labdeck.api.models.projects import Project
from labdeck.api.models.variables import CiVariable
from labdeck.domain.colours import is_colour, normalise_colour
from labdeck.tui.textual_internals import notify_content
from labdeck.tui.widgets.detail_fields import append_fields
from labdeck.tui.widgets.table_model import Column, cells_from

Cells = Callable[[Any], tuple[Text, ...]]


def _day(value: datetime | Any | None) -> str:
    if value is None:
        return ""
    return value.strftime("%Y-%m-%d") if hasattr(value, "strftime") else str(value)


def _yes(flag: bool | None) -> Text:
    return Text("yes" if flag else "", style="green" if flag else "")


def _detail(title: str, pairs: list[tuple[str, Any]]) -> Text:
    fields = ((label, "" if value is None else str(value)) for label, value in pairs)
    return append_fields(Text(title, style="bold"), fields, width=14)


@dataclass(frozen=True)
class TabSpec:
    """What one tab shows: its columns (each says its own text: one declaration per column), row key,
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


# --- projects and subgroups ------------------------------------------------------------------------------

def project_tab(group: Callable[[], Group | None]) -> TabSpec:
    def shared(project: Project) -> bool:
        current = group()
        return bool(current and project.namespace and project.namespace.id != current.id
                    and project.namespace.kind == "group" and not (project.path_with_namespace or "")
                    .startswith(f"{current.full_path}/"))

    columns = [
        Column("path", "Project", min_width=30,
               text=lambda p: Text(p.path_with_namespace or p.name or str(p.id)),
               data=lambda p: p.path_with_namespace or p.name),
        Column("visibility", "Visibility", width=10, text=lambda p: Text(p.visibility or ""),
               data=lambda p: p.visibility),
        Column("shared", "Shared", width=7, text=lambda p: Text("shared" if shared(p) else "", style="cyan"),
               data=shared),
        Column("archived", "Archived", width=9,
               text=lambda p: Text("archived" if p.archived else "", style="yellow"),
               data=lambda p: bool(p.archived)),
        Column("activity", "Last activity", width=13, sort_key=lambda p: _day(p.last_activity_at),
               text=lambda p: Text(_day(p.last_activity_at)), data=lambda p: p.last_activity_at)]
    return TabSpec(columns, lambda p: p.id, lambda p: _detail(p.path_with_namespace or "", [
        ("name", p.name), ("description", p.description), ("visibility", p.visibility),
        ("namespace", p.namespace.full_path if p.namespace else None), ("default branch", p.default_branch),
        ("stars", p.star_count), ("created", _day(p.created_at)), ("web", p.web_url)]), "No projects")


def subgroup_tab() -> TabSpec:
    columns = [Column("path", "Subgroup", min_width=28, text=lambda g: Text(g.full_path or g.name or ""),
                      data=lambda g: g.full_path or g.name),
               Column("name", "Name", min_width=12, text=lambda g: Text(g.name or ""), data=lambda g: g.name),
               Column("visibility", "Visibility", width=10, text=lambda g: Text(g.visibility or ""),
                      data=lambda g: g.visibility),
               Column("created", "Created", width=10, text=lambda g: Text(_day(g.created_at)),
                      data=lambda g: g.created_at)]
    return TabSpec(columns, lambda g: g.id, lambda g: _detail(g.full_path or "", [
        ("name", g.name), ("description", g.description), ("visibility", g.visibility), ("id", g.id),
        ("web", g.web_url)]), "No subgroups")


# --- members, labels, badges -----------------------------------------------------------------------------

def member_tab(overrides: Collection[int] = ()) -> TabSpec:
    """Members (`Member`) or, in billable mode, billable members (`BillableMember`: the access column says
    "billable" and the expiry column shows the last activity)."""
    def level(member: Member | BillableMember) -> Text:
        if isinstance(member, BillableMember):
            return Text("billable", style="cyan")
        text = Text(member.level_label)
        if member.id in overrides:
            text.append(" (override)", style="magenta")
        return text

    def expires(member: Member | BillableMember) -> Text:
        billable = isinstance(member, BillableMember)
        return Text(_day(member.last_activity_on if billable else member.expires_at))  # type: ignore[union-attr]

    def detail(member: Member | BillableMember) -> Text:
        if isinstance(member, BillableMember):
            return _detail(member.username or "", [
                ("name", member.name), ("user id", member.id), ("membership", member.membership_type),
                ("last activity", _day(member.last_activity_on)), ("removable", member.removable),
                ("email", member.email), ("web", member.web_url)])
        return _detail(member.username or "", [
            ("name", member.name), ("user id", member.id),
            ("access", f"{member.level_label} ({member.access_level})"), ("expires", _day(member.expires_at)),
            ("member since", _day(member.created_at)), ("state", member.state),
            ("override", "on" if member.id in overrides else None), ("web", member.web_url)])

    def expiry(member: Member | BillableMember) -> Any:
        return member.last_activity_on if isinstance(member, BillableMember) else member.expires_at

    columns = [Column("username", "Username", min_width=16, text=lambda m: Text(m.username or str(m.id)),
                      data=lambda m: m.username),
               Column("name", "Name", min_width=16, text=lambda m: Text(m.name or ""), data=lambda m: m.name),
               Column("level", "Access", width=24, sort_key=lambda m: getattr(m, "access_level", 0) or 0,
                      text=level, data=lambda m: getattr(m, "access_level", None),  # GitLab's number
                      extra_data=(("override", lambda m: m.id in overrides),)),
               Column("expires", "Expires", width=10, text=expires, data=expiry),
               Column("state", "State", width=10,
                      text=lambda m: Text(m.state or "", style="" if m.state == "active" else "yellow"),
                      data=lambda m: m.state)]
    return TabSpec(columns, lambda m: m.id, detail, "No members")


def swatch(colour: str | None) -> Text:
    """A coloured block for a label colour (only for values that are really colours)."""
    if colour and is_colour(colour):
        return Text("██", style=normalise_colour(colour))
    return Text("  ")


def label_tab() -> TabSpec:
    columns = [Column("swatch", "", width=2, text=lambda lb: swatch(lb.color), exported=False),  # `color`
               Column("name", "Label", min_width=16, text=lambda lb: Text(lb.name), data=lambda lb: lb.name),
               Column("color", "Colour", width=8, text=lambda lb: Text(lb.color or ""),
                      data=lambda lb: lb.color),
               Column("description", "Description", min_width=20,
                      text=lambda lb: Text(lb.description or "", overflow="ellipsis", no_wrap=True),
                      data=lambda lb: lb.description),
               Column("subscribed", "Subscribed", width=10,
                      text=lambda lb: Text("subscribed" if lb.subscribed else "", style="cyan"),
                      data=lambda lb: bool(lb.subscribed))]
    return TabSpec(columns, lambda lb: lb.id, lambda lb: _detail(lb.name, [
        ("colour", lb.color), ("text colour", lb.text_color), ("description", lb.description),
        ("open issues", lb.open_issues_count), ("closed issues", lb.closed_issues_count),
        ("open MRs", lb.open_merge_requests_count), ("subscribed", "yes" if lb.subscribed else "no")]),
        "No labels")


def badge_tab() -> TabSpec:
    columns = [Column("name", "Badge", min_width=12, text=lambda b: Text(b.name or ""),
                      data=lambda b: b.name),
               Column("link", "Link (rendered)", min_width=30,
                      text=lambda b: Text(b.rendered_link_url or b.link_url or ""),
                      data=lambda b: b.rendered_link_url or b.link_url),
               Column("image", "Image (rendered)", min_width=30,
                      text=lambda b: Text(b.rendered_image_url or b.image_url or ""),
                      data=lambda b: b.rendered_image_url or b.image_url)]
    return TabSpec(columns, lambda b: b.id, lambda b: _detail(b.name or f"badge {b.id}", [
        ("link", b.link_url), ("rendered link", b.rendered_link_url), ("image", b.image_url),
        ("rendered image", b.rendered_image_url)]), "No badges")


# --- variables, iterations, relation exports -------------------------------------------------------------

def variable_key(variable: CiVariable) -> tuple[str, str]:
    return variable.key, variable.environment_scope or "*"


HIDDEN_REFUSAL = "is masked and hidden: GitLab never sends its value, so it cannot be revealed or copied"


def refuse_hidden(app: App[Any], variable: CiVariable) -> bool:
    """True (after saying why) when `variable` is hidden: `m` and `y` have nothing to show or copy."""
    if not variable.hidden:
        return False
    notify_content(app, Content.assemble(variable.key, " ", HIDDEN_REFUSAL), severity="warning", timeout=4)
    return True


def copy_variable_value(app: App[Any], variable: CiVariable) -> None:
    """Copy a variable's value (masked ones too) to the clipboard; the notification never shows it.
    A hidden variable has no value to copy: that is said instead."""
    if refuse_hidden(app, variable):
        return
    app.copy_to_clipboard(variable.value or "")
    hidden = " (masked: not shown)" if variable.masked else ""
    notify_content(app, Content.assemble("Copied the value of ", variable.key, hidden), timeout=3)


def _masking(variable: CiVariable) -> str:
    if variable.hidden:
        return "masked and hidden (never revealed)"
    return "yes (m reveals)" if variable.masked else "no"


def variable_tab(revealed: Collection[tuple[str, str]]) -> TabSpec:
    def value(variable: CiVariable) -> Text:
        shown = variable.shown_value(variable_key(variable) in revealed)
        return Text(shown.replace("\n", "⏎"), no_wrap=True, overflow="ellipsis")

    columns = [Column("key", "Key", min_width=16, text=lambda v: Text(v.key), data=lambda v: v.key),
               Column("value", "Value", min_width=20, exported=False, text=value),
               Column("type", "Type", width=8, text=lambda v: Text(v.variable_type or ""),
                      data=lambda v: v.variable_type),
               Column("scope", "Scope", width=12, text=lambda v: Text(v.environment_scope or ""),
                      data=lambda v: v.environment_scope),
               Column("protected", "Protected", width=9, text=lambda v: _yes(v.protected),
                      data=lambda v: bool(v.protected)),
               Column("masked", "Masked", width=7,
                      text=lambda v: Text("hidden") if v.hidden else _yes(v.masked),
                      data=lambda v: bool(v.masked), extra_data=(("hidden", lambda v: bool(v.hidden)),))]

    def detail(variable: CiVariable) -> Text:
        return _detail(variable.key, [("value", variable.shown_value(variable_key(variable) in revealed)),
                                      ("type", variable.variable_type), ("scope", variable.environment_scope),
                                      ("protected", "yes" if variable.protected else "no"),
                                      ("masked", _masking(variable)),
                                      ("raw", "yes (not expanded)" if variable.raw else "no"),
                                      ("description", variable.description)])

    return TabSpec(columns, variable_key, detail, "No variables")


_STATE_STYLES = {"upcoming": "cyan", "started": "green", "closed": "dim"}


def iteration_tab() -> TabSpec:
    columns = [Column("title", "Iteration", min_width=20, text=lambda it: Text(it.title or ""),
                      data=lambda it: it.title),
               Column("state", "State", width=9,
                      text=lambda it: Text(it.state_label, style=_STATE_STYLES.get(it.state_label, "")),
                      data=lambda it: it.state_label),
               Column("start", "Start", width=10, text=lambda it: Text(_day(it.start_date)),
                      data=lambda it: it.start_date),
               Column("due", "Due", width=10, text=lambda it: Text(_day(it.due_date)),
                      data=lambda it: it.due_date),
               Column("group", "Group id", width=8, text=lambda it: Text(str(it.group_id or "")),
                      data=lambda it: it.group_id)]
    return TabSpec(columns, lambda it: it.id, lambda it: _detail(it.title or "", [
        ("state", it.state_label), ("start", _day(it.start_date)), ("due", _day(it.due_date)),
        ("description", it.description), ("web", it.web_url)]), "No iterations")


_RELATION_STYLES = {RelationState.STARTED: ("started", "yellow"),
                    RelationState.FINISHED: ("finished", "green"), RelationState.FAILED: ("failed", "red")}


def relation_tab() -> TabSpec:
    def word(status: RelationStatus) -> tuple[str, str]:
        try:
            return _RELATION_STYLES[status.state]
        except ValueError:
            return str(status.status), ""

    def state(status: RelationStatus) -> Text:
        label, style = word(status)
        return Text(label, style=style)

    columns = [Column("relation", "Relation", min_width=18, text=lambda s: Text(s.relation),
                      data=lambda s: s.relation),
               Column("status", "Status", width=9, text=state, data=lambda s: word(s)[0]),
               Column("error", "Error", min_width=16, text=lambda s: Text(s.error or "", style="red"),
                      data=lambda s: s.error),
               Column("updated", "Updated", width=19, text=lambda s: Text(
                   s.updated_at.strftime("%Y-%m-%d %H:%M:%S") if s.updated_at else ""),
                   data=lambda s: s.updated_at)]
    return TabSpec(columns, lambda s: s.relation, lambda s: _detail(s.relation, [
        ("status", s.status), ("error", s.error), ("updated", s.updated_at)]),
        "No relations export yet (X starts one)")
