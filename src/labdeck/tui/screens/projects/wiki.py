"""The project view's Wiki tab (a list pane of the kit: the pages, `n` new, `delete` to delete) and the wiki
editor: a TextArea with a live Markdown preview whose links are never opened automatically (the one link
policy, `tui.links.open_link`: a link elsewhere than the instance's own http(s) host asks first, other
schemes never open). The editor never loses typed text: a failed save keeps it, says why and can be retried
(`ctrl+s` again), and leaving with unsaved changes asks first (the one rule of every editor,
`confirm.DraftGuard`). It also uploads an attachment (`ctrl+t`) and inserts its Markdown at the cursor.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Input, Markdown, Select, Static, TextArea

from labdeck.api import bindings
from labdeck.api.errors import LabdeckError
from labdeck.api.models.project_resources import WIKI_FORMATS, WikiPage
from labdeck.api.models.projects import Project
from labdeck.tui.kit.actions import Action, Shown, shown
from labdeck.tui.kit.owner import project_owner
from labdeck.tui.kit.panes import ListPane
from labdeck.tui.kit.tabs import TabSpec, detail_text
from labdeck.tui.links import open_link
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.confirm import ConfirmScreen, DraftGuard
from labdeck.tui.screens.projects.dialogs import PathPrompt, error_text
from labdeck.tui.widgets.footer import TAB_KEYS
from labdeck.tui.widgets.table_model import Column
from labdeck.tui.writes import attempt_write

PAGE_COLUMNS = [Column("slug", "Slug", min_width=24, text=lambda p: Text(p.slug), data=lambda p: p.slug),
                Column("title", "Title", min_width=16, text=lambda p: Text(p.title), data=lambda p: p.title),
                Column("format", "Format", width=9, text=lambda p: Text(p.format, style="dim"),
                       data=lambda p: p.format)]


def page_detail(page: WikiPage) -> Text:
    return detail_text(page.title, [("slug", page.slug), ("format", page.format)])


PAGES = TabSpec(PAGE_COLUMNS, lambda p: p.slug, page_detail, "No wiki pages")


class WikiTab(ListPane):
    """The project's wiki pages (a list pane of the kit, read through their binding); enter opens the
    editor."""

    LISTING = bindings.PROJECT_WIKIS
    # the footer while this tab has focus, most useful first (`widgets.footer`)

    ACTIONS = (
        Shown("select"),
        Action("n", "new_page", "New page", id="project_wiki.new", mutating=True, footer=True),
        Action("delete", "delete_page", "Delete page", id="project_wiki.delete",
               mutating=True, row=True, footer=True),
        *shown(TAB_KEYS),
        Shown("fork"),
        Shown("open_filter"),
    )

    def __init__(self, project: Project, *, id: str | None = None) -> None:
        super().__init__(project_owner(project), PAGES, id=id, view_id="wiki-pages")
        self.project = project

    def open_editor(self, slug: str | None) -> None:
        self.app.push_screen(WikiEditorScreen(self.project, slug), lambda _changed: self.reload())

    def on_resource_table_row_selected(self, event: Any) -> None:
        if isinstance(event.row, WikiPage):
            event.stop()
            self.open_editor(event.row.slug)

    def action_new_page(self) -> None:
        self.open_editor(None)

    def action_delete_page(self) -> None:
        page = self.table.cursor_row
        if not isinstance(page, WikiPage):
            return
        message = Content.from_markup("Delete the wiki page [b]$slug[/b] of [b]$project[/b]?", slug=page.slug,
                                      project=self.owner.where)

        def answered(yes: bool | None) -> None:
            if yes:
                self.delete_page(page.slug)

        self.app.push_screen(ConfirmScreen("Delete wiki page", message, confirm_label="Delete"), answered)

    @work(group="project-wiki-delete")
    async def delete_page(self, slug: str) -> None:
        await self.ctx.services.wikis.delete(self.project.id, slug)
        self.notify(f"Deleted wiki page {slug}", markup=False)
        self.reload()


class WikiEditorScreen(DraftGuard, LabdeckScreen):
    """Edit one page (or a new one when `slug` is None). Dismisses with True when something was saved."""
    FOOTER_PANES = {"typing": ("save", "toggle_preview", "upload", "leave", "move_focus(1)")}

    CSS_PATH = "wiki.tcss"
    ACTIONS = (
        Action("ctrl+s", "save", "Save", id="wiki_editor.save", priority=True, mutating=True, footer=True),
        Action("ctrl+r", "toggle_preview", "Preview", id="wiki_editor.preview", footer=True),
        Action("ctrl+t", "upload", "Attach file", id="wiki_editor.upload", mutating=True, footer=True),
        Action("escape", "leave", "Back", id="wiki_editor.leave", footer=True),
        Shown("move_focus(1)"),
    )

    def __init__(self, project: Project, slug: str | None) -> None:
        super().__init__()
        self.project = project
        self.slug = slug
        self.saved: dict[str, str] = {"title": "", "content": "", "format": "markdown"}
        self.loaded = slug is None
        self.saved_once = False

    def compose_body(self) -> ComposeResult:
        with Vertical(id="wiki-editor"):
            with Horizontal(id="wiki-editor-bar"):
                yield Input(placeholder="Title (a/b makes a page in directory a)", id="wiki-title")
                yield Select([(f, f) for f in WIKI_FORMATS], value="markdown", allow_blank=False,
                             id="wiki-format")
            with Horizontal(id="wiki-editor-body"):
                yield TextArea("", soft_wrap=True, id="wiki-text")
                yield Markdown("", open_links=False, id="wiki-preview")
            yield Static("", markup=False, id="wiki-status")

    @property
    def text_area(self) -> TextArea:
        return self.query_one("#wiki-text", TextArea)

    @property
    def status(self) -> Static:
        return self.query_one("#wiki-status", Static)

    def on_mount(self) -> None:
        self.sub_title = self.slug or "New wiki page"
        if self.slug is None:
            self.query_one("#wiki-title", Input).focus()
            self.set_status("New page: give it a title, write, ctrl+s to save.")
        else:
            self.load_page()

    def set_status(self, message: str, *, error: bool = False) -> None:
        self.status.update(Text(message, style="bold red" if error else ""))
        self.status.set_class(error, "-error")

    def current(self) -> dict[str, str]:
        fmt = self.query_one("#wiki-format", Select).value
        return {"title": self.query_one("#wiki-title", Input).value.strip(), "content": self.text_area.text,
                "format": fmt if isinstance(fmt, str) else "markdown"}

    @property
    def dirty(self) -> bool:
        return self.loaded and self.current() != self.saved

    @work(exclusive=True, group="wiki-editor-load")
    async def load_page(self) -> None:
        if self.slug is None:
            return
        try:
            page = await self.ctx.services.wikis.page(self.project.id, self.slug)
        except LabdeckError as error:
            self.set_status(f"Could not load the page: {error_text(error)}", error=True)
            return
        self.saved = {"title": page.title, "content": page.content or "", "format": page.format}
        self.query_one("#wiki-title", Input).value = page.title
        self.query_one("#wiki-format", Select).value = page.format if page.format in WIKI_FORMATS \
            else "markdown"
        self.text_area.load_text(page.content or "")
        self.loaded = True
        self.text_area.focus()
        self.set_status(f"{page.slug} ({page.format})")

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.query_one("#wiki-preview", Markdown).update(event.text_area.text)
        if self.loaded:
            self.sub_title = f"{self.slug or 'New wiki page'}{' (modified)' if self.dirty else ''}"

    def action_toggle_preview(self) -> None:
        self.query_one("#wiki-preview", Markdown).toggle_class("-hidden")

    def action_save(self) -> None:
        if not self.loaded:
            return
        self.save()

    @work(exclusive=True, group="wiki-editor-save")
    async def save(self) -> None:
        service = self.ctx.services.wikis
        now = self.current()
        changed = {key: value for key, value in now.items() if value != self.saved[key]}
        if self.slug is not None and not changed:
            self.set_status("Nothing to save.")
            return
        self.set_status("Saving…")
        project, slug = self.project.id, self.slug

        async def write() -> WikiPage:
            if slug is None:
                return await service.create(project, now["title"], now["content"], format=now["format"])
            return await service.update(project, slug, title=changed.get("title"),
                                        content=changed.get("content"), format=changed.get("format"))

        found: list[WikiPage] = []

        async def saved_already() -> bool:  # after a lost answer: is a page of this title and text there?
            for listed in await service.pages(project, refresh=True):
                if listed.title == now["title"]:
                    page = await service.page(project, listed.slug)
                    if (page.content or "").rstrip("\n") == now["content"].rstrip("\n"):
                        found.append(page)
                        return True
            return False

        outcome = await attempt_write(write, saved_already, error_text, (ValueError,))
        if not outcome.done and not outcome.applied:
            # the typed text stays exactly as it is; the operator can fix the cause and press ctrl+s again
            reason = outcome.message.rstrip(".")
            self.set_status(f"Save failed: {reason}. Your text is kept: ctrl+s to retry.", error=True)
            self.notify(outcome.message, title="Wiki page not confirmed" if outcome.uncertain
                        else "Wiki page not saved", severity="warning" if outcome.uncertain else "error",
                        markup=False, timeout=10)
            return
        if outcome.applied:
            self.notify(outcome.message, title="Applied", markup=False, timeout=10)
        page = outcome.value if outcome.done else found[0]
        self.saved = now
        self.slug = page.slug
        self.saved_once = True
        self.sub_title = page.slug
        self.set_status(f"Saved {page.slug}.")
        self.notify(f"Saved wiki page {page.slug}", markup=False)

    def unsaved_changes(self) -> bool:
        """Title, text or format differ from the page as read or last saved (`DraftGuard`)."""
        return self.dirty

    def action_leave(self) -> None:
        self.close_keeping_drafts(lambda: self.dismiss(self.saved_once))

    def action_upload(self) -> None:
        def chosen(path: str | None) -> None:
            if path:
                self.upload(path)

        self.app.push_screen(PathPrompt("Attach a file to the wiki", "~/path/to/file.png"), chosen)

    @work(group="wiki-editor-upload")
    async def upload(self, path_text: str) -> None:
        service = self.ctx.services.wikis
        path = await asyncio.to_thread(lambda: Path(path_text).expanduser())
        try:
            content = await asyncio.to_thread(path.read_bytes)
        except OSError as error:
            self.notify(f"Cannot read {path}: {error.strerror or error}", severity="error", markup=False)
            return
        result = await service.upload_attachment(self.project.id, path.name, content)
        self.text_area.insert(result.link.markdown)
        self.notify(f"Attached {result.file_name}", markup=False)

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """A link in the preview opens under the one link policy (`tui.links.open_link`), never by itself."""
        event.prevent_default()
        event.stop()
        open_link(self.app, event.href)
