"""The project view's Tags tab: a list pane of the kit over the repository's tags (newest first, read
through their binding), a server search box (`ctrl+f`, as `s` sorts the table; `^v1` begins with, `rc$`
ends with), `n` to create a lightweight or annotated tag from a ref (a refusal shows the server's message
in the dialog and keeps what was typed), `delete` with confirmation, and `enter` for a tag's detail.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Input

from labdeck.api import bindings
from labdeck.api.errors import NotFound
from labdeck.api.models.project_resources import RepositoryTag
from labdeck.api.models.projects import Project
from labdeck.tui.kit.actions import Action, Shown, shown
from labdeck.tui.kit.owner import project_owner
from labdeck.tui.kit.panes import ListPane
from labdeck.tui.kit.tabs import TabSpec
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.projects.dialogs import NewTag, TagCreateDialog
from labdeck.tui.widgets.detail_fields import append_fields
from labdeck.tui.widgets.footer import LIST_KEYS, TAB_KEYS
from labdeck.tui.widgets.labelled import LabelledField
from labdeck.tui.widgets.table_model import Column
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form


def _stamp(tag: RepositoryTag) -> float:
    return tag.updated.timestamp() if tag.updated else 0.0


def tag_detail(tag: RepositoryTag) -> Text:
    detail = Text(tag.name, style="bold")
    if tag.message:
        detail.append("\n\n")
        detail.append(tag.message)
    rows = [("target", tag.target or ""), ("commit", tag.commit.id if tag.commit else ""),
            ("author", tag.commit.author_name or "" if tag.commit else ""),
            ("release", tag.release.description or "" if tag.release else "")]
    detail.append("\n")
    return append_fields(detail, rows, width=8)


TAG_COLUMNS = [
    Column("name", "Tag", min_width=16, text=lambda t: Text(t.name), data=lambda t: t.name),
    Column("kind", "Kind", width=11,
           text=lambda t: Text("annotated" if t.annotated else "lightweight", style="dim"),
           data=lambda t: "annotated" if t.annotated else "lightweight"),
    Column("commit", "Commit", width=9,
           text=lambda t: Text(t.commit.short_id or t.commit.id[:8] if t.commit else ""),
           data=lambda t: t.commit.id if t.commit else None),  # the whole SHA
    Column("title", "Commit title", min_width=20,
           text=lambda t: Text(t.commit.title or "" if t.commit else ""),
           data=lambda t: t.commit.title if t.commit else None),
    Column("updated", "Date", width=16, sort_key=_stamp,
           text=lambda t: Text(t.updated.strftime("%Y-%m-%d %H:%M") if t.updated else ""),
           data=lambda t: t.updated),
    Column("protected", "Protected", width=9,
           text=lambda t: Text("protected" if t.protected else "", style="yellow"),
           data=lambda t: bool(t.protected)),
]


TAGS = TabSpec(TAG_COLUMNS, lambda t: t.name, tag_detail, "No tags")


class TagsTab(ListPane):
    LISTING = bindings.PROJECT_TAGS
    PARAMS = {"order_by": "updated", "sort": "desc"}
    ENTER_OPENS_DETAIL = True
    # the footer while this tab has focus, most useful first (`widgets.footer`)
    ACTIONS = (
        Shown("select"),
        Action("n", "new_tag", "New tag", id="project_tags.new", mutating=True, footer=True),
        Action("delete", "delete_tag", "Delete tag", id="project_tags.delete",
               mutating=True, row=True, footer=True),
        Action("ctrl+f", "search", "Search", id="project_tags.search", footer=True),  # `s`: the table's sort
        *shown(TAB_KEYS),
        Shown("fork"),
        *shown(LIST_KEYS),
    )
    DEFAULT_CSS = """
    TagsTab #tags-search { margin: 0 0; }
    """

    def __init__(self, project: Project, *, id: str | None = None) -> None:
        super().__init__(project_owner(project), TAGS, id=id, view_id="tags-view")
        self.project = project
        self.search = ""

    def compose_above(self) -> ComposeResult:
        yield LabelledField("Search", Input(placeholder="^v1, rc$ or part of a name", id="tags-search"),
                            id="tags-search-field")

    def params(self) -> Mapping[str, Any]:
        return {**self.PARAMS, "search": self.search or None}

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "tags-search":
            event.stop()
            self.search = event.value.strip()
            self.load()
            self.table.focus()

    def action_search(self) -> None:
        self.query_one("#tags-search", Input).focus()

    def action_new_tag(self) -> None:
        project_id = self.project.id

        async def create(new: NewTag) -> RepositoryTag:
            return await self.ctx.services.tags.create(project_id, new.name, new.ref, message=new.message)

        async def exists(new: NewTag) -> bool:  # after a lost answer: is the tag there (with its message)?
            try:
                tag = await self.ctx.services.tags.tag(project_id, new.name)
            except NotFound:
                return False
            return new.message is None or (tag.message or "").strip() == new.message

        def created(tag: Any) -> None:
            if isinstance(tag, RepositoryTag):
                kind = "annotated" if tag.annotated else "lightweight"
                self.notify(f"Created {kind} tag {tag.name}", markup=False)
                self.reload()

        open_write_form(self, TagCreateDialog(self.project.default_branch or "main"), create, verify=exists,
                        row=None, done=created, refresh=lambda: self.reload() if is_live(self) else None)

    def action_delete_tag(self) -> None:
        tag = self.table.cursor_row
        if not isinstance(tag, RepositoryTag):
            return
        message = Content.from_markup("Delete the tag [b]$name[/b] of [b]$project[/b]? Releases that use it "
                                      "lose their tag.", name=tag.name, project=self.owner.where)

        def answered(yes: bool | None) -> None:
            if yes:
                self.delete_tag(tag.name)

        self.app.push_screen(ConfirmScreen("Delete tag", message, confirm_label="Delete"), answered)

    @work(group="project-tags-delete")
    async def delete_tag(self, name: str) -> None:
        await self.ctx.services.tags.delete(self.project.id, name)
        self.notify(f"Deleted tag {name}", markup=False)
        self.reload()
