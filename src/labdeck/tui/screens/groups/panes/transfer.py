"""The Export and import tab of `:groups` (relations export: GitLab 13.12): the status of the group's
relations export, `X` starting one (a job: one result per relation), enter on a relation downloading it
into a folder the user picks, `I` importing a group from an export archive (a job; the tree is read again
when it is accepted). `E`, the export of the whole group, is the screen's (it works from any tab). The
folder asked for and remembered, and the tree, are the screen's (`Transfers`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual import work
from textual.binding import Binding

from labdeck.api.models.group_transfer import RelationState, RelationStatus
from labdeck.domain.digits import parse_digits
from labdeck.domain.features import RELATIONS_EXPORT
from labdeck.tui.downloads import safe_name, save_file
from labdeck.tui.jobs import Job
from labdeck.tui.kit.forms import Values
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.panes import EVERY_LIST_FOOTER, ListPane
from labdeck.tui.screens.groups.file_forms import import_form
from labdeck.tui.screens.groups.tabs import relation_tab
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.workers import is_live

if TYPE_CHECKING:
    from labdeck.api.services import Services


class Transfers(Protocol):
    """What the pane uses of its screen: the download folder, asking for one, reading the tree again."""

    download_dir: Path

    def ask_folder(self, what: str, then: Callable[[Path], Any]) -> None: ...
    def load_roots(self, refresh: bool = False) -> Any: ...


class TransferPane(ListPane):
    FEATURE = RELATIONS_EXPORT
    HELP = ("E: export this group (saved in a folder you pick) · X: export its relations · enter on a "
            "relation: download it · I: import a group")
    FOOTER_ORDER = ("export_to", "export_relations", "import_group", *EVERY_LIST_FOOTER)
    BINDINGS = [
        Binding("X", "export_relations", "Relations export", id="groups.export_relations"),
        Binding("I", "import_group", "Import", id="groups.import"),
    ]
    MUTATING_ACTIONS = frozenset({"import_group"})

    def __init__(self, owner: Owner, transfers: Transfers, *, id: str | None = None,
                 view_id: str | None = None) -> None:
        super().__init__(owner, relation_tab(), id=id, view_id=view_id)
        self.transfers = transfers
        self.relations: list[RelationStatus] = []  # the last status read or exported, for this group

    def forget(self) -> None:
        self.relations = []

    async def read(self, services: Services, refresh: bool) -> list[Any]:
        if refresh or not self.relations:
            self.relations = await services.transfer.relations_status(self.ref)
        return list(self.relations)

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        if isinstance(event.row, RelationStatus):
            event.stop()
            self.ask_relation_download(event.row)

    def action_export_relations(self) -> Job | None:
        services, ref, where = self.ctx.services, self.ref, self.owner.where

        async def run(job: Job) -> None:
            await services.transfer.start_relations_export(ref)
            statuses = await services.transfer.wait_for_relations(ref)
            job.set_total(len(statuses))
            for status in statuses:
                ok = status.state is RelationState.FINISHED
                job.add_result(status.relation, ok, "finished" if ok else (status.error or "failed"))
            job.summarize("relation", "exported")
            if is_live(self) and self.owner.ref == ref:
                self.relations = statuses
                self.load()

        return self.ctx.start_job(f"Export relations of {where}", run)

    def ask_relation_download(self, status: RelationStatus) -> None:
        self.transfers.ask_folder(f"the {status.relation} relation",
                                  lambda folder: self.download_relation(status, folder))

    @work(group="groups-change")
    async def download_relation(self, status: RelationStatus, folder: Path | None = None) -> None:
        services, ref, where = self.ctx.services, self.ref, self.owner.where
        payload = await services.transfer.download_relation(ref, status.relation)
        if payload is None:
            self.notify(f"{status.relation} is not ready", severity="warning", markup=False)
            return
        name = safe_name((where or str(ref)).replace("/", "_"))
        wanted = (folder or self.transfers.download_dir) / f"{name}_{safe_name(status.relation)}.ndjson.gz"
        target = await save_file(wanted, payload)
        self.notify(f"Saved {target}", markup=False)

    def action_import_group(self) -> None:
        self.app.push_screen(import_form(int(self.ref)), self.import_chosen)

    def import_chosen(self, values: Values | None) -> None:
        if values is None:
            return
        services = self.ctx.services
        path = Path(str(values["file"])).expanduser()
        parent = parse_digits(str(values.get("parent_id") or ""))  # checked by the form

        async def run(job: Job) -> None:
            archive = await asyncio.to_thread(path.read_bytes)
            job.set_total(1)
            await services.transfer.import_group(values["name"], values["path"], archive, filename=path.name,
                                                 parent_id=parent)
            job.add_result(values["path"], True, "accepted; the group fills in as the import completes")
            job.set_summary("import accepted")
            if is_live(self):
                self.transfers.load_roots(refresh=True)

        self.ctx.start_job(f"Import group {values['path']}", run)
