"""The lists only a group has (`TabSpec`s of the kit): its projects, subgroups, labels, badges, iterations and
relation exports, each shown by its tab's pane (`groups/panes/`). Server text is turned into
`rich.text.Text` here and never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from labdeck.api.models.group_transfer import RelationState, RelationStatus
from labdeck.api.models.groups import Group
from labdeck.api.models.projects import Project
from labdeck.domain.colours import is_colour, normalise_colour
from labdeck.tui.kit.tabs import TabSpec, day, detail_text
from labdeck.tui.widgets.table_model import Column


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
        Column("activity", "Last activity", width=13, sort_key=lambda p: day(p.last_activity_at),
               text=lambda p: Text(day(p.last_activity_at)), data=lambda p: p.last_activity_at)]
    return TabSpec(columns, lambda p: p.id, lambda p: detail_text(p.path_with_namespace or "", [
        ("name", p.name), ("description", p.description), ("visibility", p.visibility),
        ("namespace", p.namespace.full_path if p.namespace else None), ("default branch", p.default_branch),
        ("stars", p.star_count), ("created", day(p.created_at)), ("web", p.web_url)]), "No projects")


def subgroup_tab() -> TabSpec:
    columns = [Column("path", "Subgroup", min_width=28, text=lambda g: Text(g.full_path or g.name or ""),
                      data=lambda g: g.full_path or g.name),
               Column("name", "Name", min_width=12, text=lambda g: Text(g.name or ""), data=lambda g: g.name),
               Column("visibility", "Visibility", width=10, text=lambda g: Text(g.visibility or ""),
                      data=lambda g: g.visibility),
               Column("created", "Created", width=10, text=lambda g: Text(day(g.created_at)),
                      data=lambda g: g.created_at)]
    return TabSpec(columns, lambda g: g.id, lambda g: detail_text(g.full_path or "", [
        ("name", g.name), ("description", g.description), ("visibility", g.visibility), ("id", g.id),
        ("web", g.web_url)]), "No subgroups")


# --- labels, badges ---------------------------------------------------------------------------------------


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
    return TabSpec(columns, lambda lb: lb.id, lambda lb: detail_text(lb.name, [
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
    return TabSpec(columns, lambda b: b.id, lambda b: detail_text(b.name or f"badge {b.id}", [
        ("link", b.link_url), ("rendered link", b.rendered_link_url), ("image", b.image_url),
        ("rendered image", b.rendered_image_url)]), "No badges")


# --- iterations, relation exports --------------------------------------------------------------------------


_STATE_STYLES = {"upcoming": "cyan", "started": "green", "closed": "dim"}


def iteration_tab() -> TabSpec:
    columns = [Column("title", "Iteration", min_width=20, text=lambda it: Text(it.title or ""),
                      data=lambda it: it.title),
               Column("state", "State", width=9,
                      text=lambda it: Text(it.state_label, style=_STATE_STYLES.get(it.state_label, "")),
                      data=lambda it: it.state_label),
               Column("start", "Start", width=10, text=lambda it: Text(day(it.start_date)),
                      data=lambda it: it.start_date),
               Column("due", "Due", width=10, text=lambda it: Text(day(it.due_date)),
                      data=lambda it: it.due_date),
               Column("group", "Group id", width=8, text=lambda it: Text(str(it.group_id or "")),
                      data=lambda it: it.group_id)]
    return TabSpec(columns, lambda it: it.id, lambda it: detail_text(it.title or "", [
        ("state", it.state_label), ("start", day(it.start_date)), ("due", day(it.due_date)),
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
    return TabSpec(columns, lambda s: s.relation, lambda s: detail_text(s.relation, [
        ("status", s.status), ("error", s.error), ("updated", s.updated_at)]),
        "No relations export yet (X starts one)")
