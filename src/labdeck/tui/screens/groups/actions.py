"""The export of the selected group, `E` (from any tab or the tree): the folder is asked for (prefilled
with the last one used, remembered in labdeck's state), then a job starts the export, polls until the
archive is there and saves it there (`downloads.SaveError` names a path that cannot be written; an
earlier archive is never overwritten). `ask_folder` is also what the Export and import pane asks with
(`panes/transfer.py`). Every other action of `:groups` is its tabs' panes' (`tab_list.GROUP_TABS`).
`GroupActions` is a mixin of `GroupsScreen` (`groups.py`), which provides `group` and
`download_dir` (declared for the type checker in `host.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from labdeck.tui.downloads import ensure_folder, safe_name, save_file
from labdeck.tui.jobs import Job
from labdeck.tui.kit.forms import Values
from labdeck.tui.screens.groups.file_forms import folder_form
from labdeck.tui.screens.groups.host import GroupsHost


class GroupActions(GroupsHost):
    """Actions of `GroupsScreen`; see the module docstring."""

    def ask_folder(self, what: str, then: Callable[[Path], Any]) -> None:
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
        services, group = self.ctx.services, self.group
        if group is None:
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
