"""Where registry storage goes (`t` on `:registry` with a group in scope): every project of the group and its
subgroups with its container registry size and its cleanup policy (none, disabled, enabled), largest first;
for enabled policies, what the next run would free is simulated in the background, a few projects at a time.
`enter` opens a project's cleanup policy panel.

The figures are `domain.registry_sizes`' (the registry list, the overview and the CLI show the same ones):
a project's size is GitLab's `statistics.container_registry_size` (administrators), the sum of its
repositories' unique blobs; what a run frees is the blobs no kept tag uses, never more than the size.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import Static

from labdeck.api.cleanup_policy import ProjectStorage
from labdeck.api.errors import LabdeckError
from labdeck.domain.registry_sizes import (
    FREES_HEADER,
    FREES_MEANS,
    SIZE_HEADER,
    SIZE_MEANS,
    Figure,
    size_text,
)
from labdeck.tui.clock import Now, now_of
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.registry.policy import CleanupPolicyScreen
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column
from labdeck.tui.workers import is_live

SIMULATIONS_AT_ONCE = 4


@dataclass
class StorageRow:
    project: ProjectStorage
    frees: Figure | None = None  # what the next run would free (enabled policies, once simulated)
    deletes: int | None = None
    error: str | None = None

    @property
    def key(self) -> int:
        return self.project.id


def _policy_cell(row: StorageRow) -> Text:
    project = row.project
    state = project.policy_state
    if project.policy is not None and project.policy.enabled:
        state += f" ({project.policy.cadence})"
    style = "green" if state.startswith("enabled") else ("dim" if state == "none" else "")
    return Text(state, style=style)


def _frees_cell(row: StorageRow) -> Text:
    project = row.project
    if row.error is not None:
        return Text("unknown", style="dim")
    if row.frees is None:
        return Text("…" if project.policy is not None and project.policy.enabled else "", style="dim")
    return Text(f"{size_text(row.frees)} ({row.deletes:,} tags)")


COLUMNS = [
    Column("project", "Project", min_width=24, priority=10, text=lambda r: Text(r.project.path),
           data=lambda r: r.project.path),
    Column("size", SIZE_HEADER, width=len(SIZE_HEADER), align="right", priority=8,
           sort_key=lambda r: -1 if r.project.registry_size is None else r.project.registry_size,
           text=lambda r: Text("?" if r.project.registry_size is None
                               else size_text(Figure(r.project.registry_size))),
           data=lambda r: r.project.registry_size),  # bytes: the unique blobs of its repositories
    Column("policy", "Policy", min_width=10, priority=5, text=_policy_cell,
           data=lambda r: r.project.policy_state,
           extra_data=(("cadence", lambda r: r.project.policy.cadence if r.project.policy else None),)),
    Column("frees", FREES_HEADER, min_width=16, priority=7,
           sort_key=lambda r: r.frees.bytes if r.frees else 0, text=_frees_cell,
           data=lambda r: r.frees.bytes if r.frees else None,  # bytes: the blobs no kept tag uses
           extra_data=(("frees_exact", lambda r: r.frees.exact if r.frees else None),
                       ("deletes", lambda r: r.deletes), ("error", lambda r: r.error))),
]


class RegistryStorageScreen(LabdeckScreen):
    FOOTER_PANES = {"storage-view": ("select", *LIST_KEYS)}
    AREA = "registry"
    TITLE = "Registry storage"
    CSS_PATH = "policy.tcss"

    def __init__(self, group: str, *, now: Now | None = None) -> None:
        super().__init__()
        self.group = group
        self.now = now_of(self, now)

    def compose_body(self) -> ComposeResult:
        yield Static(Text(f"Registry storage of {self.group}: reading…", style="bold"), id="storage-title")
        yield ResourceView(COLUMNS, row_key=lambda r: r.key, empty_text="No projects",
                           id="storage-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#storage-view", ResourceView).table

    def on_mount(self) -> None:
        self.load()

    def refresh_data(self) -> None:
        self.load(refresh=True)

    @work(exclusive=True, group="registry-storage")
    async def load(self, refresh: bool = False) -> None:
        service = self.ctx.services.cleanup_policy
        projects = await service.group_storage(self.group, refresh=refresh)
        if not is_live(self):
            return
        rows = [StorageRow(p) for p in projects]
        self.table.set_rows(rows)
        known = [p.registry_size for p in projects if p.registry_size is not None]
        total = f"{size_text(Figure(sum(known)))} in the registry" if known else "sizes need an administrator"
        enabled = sum(1 for p in projects if p.policy is not None and p.policy.enabled)
        title = Text(f"Registry storage of {self.group}: {len(projects)} projects, {total}; {enabled} "
                     "enabled policies", style="bold")
        title.append(f"\nsize = {SIZE_MEANS}; frees = {FREES_MEANS}", style="dim")
        self.query_one("#storage-title", Static).update(title)
        self.mark_data_loaded()
        gate = asyncio.Semaphore(SIMULATIONS_AT_ONCE)

        async def simulate(row: StorageRow) -> None:
            async with gate:
                try:
                    sim = await service.simulate(row.project.id, now=self.now())
                except LabdeckError as error:
                    row.error = str(error)
                else:
                    row.frees, row.deletes = sim.freed, sim.deleted_count
            if is_live(self):
                self.table.replace_row(row)  # the same key: the cursor and the sort stay

        await asyncio.gather(*(simulate(r) for r in rows
                               if r.project.policy is not None and r.project.policy.enabled))

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        if isinstance(event.row, StorageRow):
            event.stop()
            self.app.push_screen(CleanupPolicyScreen(event.row.project.id, now=self.now))
