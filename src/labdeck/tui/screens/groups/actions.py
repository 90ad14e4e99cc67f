"""The actions of the groups view's table tabs: add, edit and delete labels and badges (validated forms that
send the change and re-read after a lost answer), subscribe to a label, and jobs: group export (polled
until the archive is there, then saved in the folder picked; `downloads.SaveError` names a path that cannot
be written), relations export, import. The Members and Variables tabs are panes with their own actions
(`screens/panes/`).

What each tab adds, edits and deletes, and how, is its editor (`editors.py`, named by its entry in
`tab_list.GROUP_TABS`); which of the tab-specific actions apply is the entry's `actions`: nothing here
compares tab names. `GroupActions` is a mixin of `GroupsScreen` (`groups.py`), which provides `group`,
`services`, `active_tab`, `table()`, `view()`, `reload()`, `today`, `download_dir` and `relations`
(declared for the type checker in `host.py`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual import work

from labdeck.api.badges import BadgeUrlError
from labdeck.api.models.group_transfer import RelationState, RelationStatus
from labdeck.api.models.labels import GroupLabel
from labdeck.tui.downloads import ensure_folder, safe_name, save_file
from labdeck.tui.jobs import Job, counted
from labdeck.tui.screens.ci_variables import DONE
from labdeck.tui.screens.groups.editors import TabEditor
from labdeck.tui.screens.groups.file_forms import folder_form, import_form
from labdeck.tui.screens.groups.forms import (
    FormScreen,
    Renderer,
    Values,
)
from labdeck.tui.screens.groups.host import GroupsHost
from labdeck.tui.screens.groups.tab_list import TAB_ACTIONS, TAB_BY_KEY
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form


def done_text(noun: str, what: str, count: int) -> str:
    """What a change of a tab's items says when done: "Member added", "2 members added"."""
    return f"{noun.capitalize()} {DONE[what]}" if count == 1 else f"{counted(count, noun)} {DONE[what]}"


class GroupActions(GroupsHost):
    """Actions of `GroupsScreen`; see the module docstring."""

    def editor(self) -> TabEditor | None:
        """How the rows of the tab in front are added, edited and deleted (None: they are not)."""
        return TAB_BY_KEY[self.active_tab].editor

    def offers(self, action: str) -> bool:
        """Whether the tab in front declares `action` (`GroupTab.actions`)."""
        return action in TAB_BY_KEY[self.active_tab].actions

    # -- add, edit, delete ----------------------------------------------------------------------------
    def action_add(self) -> None:
        editor = self.editor()
        if self.group is None or editor is None:
            self.notify("Add works on labels and badges (members and variables: in their tab)",
                        severity="warning")
            return
        self.open_change_form(editor.add_form(self), self.active_tab, "add", None)

    def open_change_form(self, form: FormScreen, tab: str, what: str, row: Any) -> None:
        """Open an add or edit form that sends its change itself: it stays open, values kept, until the
        change is done; after a lost answer it re-reads the tab (its editor's `applied`)."""
        services, group, editor = self.services, self.group, TAB_BY_KEY[tab].editor
        if services is None or group is None or editor is None:
            return
        ref = group.id

        async def write(values: Values) -> int:
            return await editor.change(services, ref, what, row, values)

        def done(result: int | None) -> None:
            if result and is_live(self):
                self.notify(done_text(editor.noun, what, int(result)))
                self.table(tab).show_saved_row(row)  # focus back on the tab's list, on the saved row
                self.reload(tab)

        open_write_form(self, form, write, done=done,
                        verify=lambda values: editor.applied(services, ref, row, values),
                        refresh=lambda: self.reload(tab) if is_live(self) else None)

    def badge_renderer(self) -> Renderer | None:
        """Render typed badge URLs with the server's `render` (the group's first project)."""
        services, group = self.services, self.group
        if services is None or group is None:
            return None
        ref = group.id

        async def render(link: str, image: str) -> tuple[str, str]:
            rendered = await services.badges.render(ref, link, image)
            return rendered.rendered_link_url or link, rendered.rendered_image_url or image

        return render

    def action_edit(self) -> None:
        if self.tree_has_focus("edit"):
            return
        editor, row = self.editor(), self.table().cursor_row
        if self.group is None or editor is None or row is None:
            return
        form = editor.edit_form(self, row)
        if form is not None:
            self.open_change_form(form, self.active_tab, "edit", row)

    def action_delete(self) -> None:
        if self.tree_has_focus("delete"):
            return
        tab, editor, row = self.active_tab, self.editor(), self.table().cursor_row
        if self.group is None or row is None or editor is None:
            return
        def answered(yes: bool | None) -> None:
            if yes:
                self.apply_change(tab, "delete", row, {})

        self.app.push_screen(editor.confirm_delete(row, self.group.full_path or ""), answered)

    @work(group="groups-change")
    async def apply_change(self, tab: str, what: str, row: Any, values: Values) -> None:
        services, group, editor = self.services, self.group, TAB_BY_KEY[tab].editor
        if services is None or group is None or editor is None:
            return
        try:
            count = await editor.change(services, group.id, what, row, values)
        except BadgeUrlError as error:  # the forms check first; a last line of defence
            self.notify(str(error), severity="error", markup=False)
            return
        self.notify(done_text(editor.noun, what, count))
        self.reload(tab)

    # -- small toggles --------------------------------------------------------------------------------
    @work(group="groups-change")
    async def action_subscribe(self) -> None:
        if self.tree_has_focus("subscribe"):
            return
        row, services, group = self.table().cursor_row, self.services, self.group
        if not self.offers("subscribe") or not isinstance(row, GroupLabel):
            return
        if services is None or group is None:
            return
        result = await services.labels.set_subscription(group.id, row.id, not row.subscribed)
        if result is None:
            self.notify("Nothing changed", markup=False)
        else:
            self.notify(f"{'Subscribed to' if result.subscribed else 'Unsubscribed from'} {result.name}",
                        markup=False)
        self.reload()

    # -- jobs -----------------------------------------------------------------------------------------
    def ask_folder(self, what: str, then: Any) -> None:
        """Ask where to save (prefilled with the last folder used), then call `then(folder)`."""
        state = self.ctx.state  # labdeck's state: the last folder of any run
        remembered = getattr(state, "download_dir", None)
        if remembered and not self.download_dir_given:
            self.download_dir = Path(remembered)

        def chosen(values: Values | None) -> None:
            if values is not None:
                self.download_dir = Path(str(values["folder"])).expanduser()
                ensure_folder(self.app, self.download_dir, then)  # asks before creating a missing one

        self.app.push_screen(folder_form(what, self.download_dir), chosen)

    def action_export_to(self) -> None:
        if self.group is not None:
            self.ask_folder(f"the export of {self.group.full_path}", self.action_export)

    def action_export(self, folder: Path | None = None) -> Job | None:
        services, group = self.services, self.group
        if services is None or group is None:
            return None
        ref, folder = group.id, folder or self.download_dir
        name = safe_name((group.full_path or str(group.id)).replace("/", "_"))

        async def run(job: Job) -> None:
            job.set_total(2)
            await services.transfer.start_export(ref)
            job.advance()
            archive = await services.transfer.wait_for_export(ref)
            target = await save_file(folder / f"{name}_export.tar.gz", archive)  # never over an earlier one
            job.add_result(str(target), True, f"{len(archive):,} bytes", advance=False)
            job.set_summary(f"saved {target.name} ({len(archive):,} bytes)")
            self.notify(f"Saved {target}", markup=False)

        return self.ctx.start_job(f"Export group {group.full_path}", run)

    def action_export_relations(self) -> Job | None:
        services, group = self.services, self.group
        if services is None or group is None:
            return None
        ref = group.id

        async def run(job: Job) -> None:
            await services.transfer.start_relations_export(ref)
            statuses = await services.transfer.wait_for_relations(ref)
            job.set_total(len(statuses))
            for status in statuses:
                ok = status.state is RelationState.FINISHED
                job.add_result(status.relation, ok, "finished" if ok else (status.error or "failed"))
            job.summarize("relation", "exported")
            if is_live(self) and self.group is not None and self.group.id == ref:
                self.relations = statuses
                self.reload(TAB_ACTIONS["export_relations"][0])

        return self.ctx.start_job(f"Export relations of {group.full_path}", run)

    def ask_relation_download(self, status: RelationStatus) -> None:
        self.ask_folder(f"the {status.relation} relation",
                        lambda folder: self.download_relation(status, folder))

    @work(group="groups-change")
    async def download_relation(self, status: RelationStatus,
                                folder: Path | None = None) -> None:
        services, group = self.services, self.group
        if services is None or group is None:
            return
        payload = await services.transfer.download_relation(group.id, status.relation)
        if payload is None:
            self.notify(f"{status.relation} is not ready", severity="warning", markup=False)
            return
        name = safe_name((group.full_path or str(group.id)).replace("/", "_"))
        wanted = (folder or self.download_dir) / f"{name}_{safe_name(status.relation)}.ndjson.gz"
        target = await save_file(wanted, payload)
        self.notify(f"Saved {target}", markup=False)

    def action_import_group(self) -> None:
        parent = self.group.id if self.group is not None else None
        self.app.push_screen(import_form(parent), self._import_chosen)

    def _import_chosen(self, values: Values | None) -> None:
        services = self.services
        if values is None or services is None:
            return
        path = Path(str(values["file"])).expanduser()
        parent = int(values["parent_id"]) if values.get("parent_id") else None

        async def run(job: Job) -> None:
            archive = await asyncio.to_thread(path.read_bytes)
            job.set_total(1)
            await services.transfer.import_group(values["name"], values["path"], archive, filename=path.name,
                                                 parent_id=parent)
            job.add_result(values["path"], True, "accepted; the group fills in as the import completes")
            job.set_summary("import accepted")
            if is_live(self):
                self.load_roots(refresh=True)

        self.ctx.start_job(f"Import group {values['path']}", run)
