"""The project view's Registry tab, a list pane of the kit: the project's container repositories with their
tag counts, ids and sizes (unique blobs), as `:registry` lists them (its columns, cells, detail and size
reads; read when the tab is first shown; sizes for the rows shown, `registry/size_column.py`), and their tags
through `:registry`'s own screens.

- `enter` opens a repository's tags (`registry.RegistryTagsScreen`: every tag's detail, `space` marks and
  `x` deletes exactly the marked tags, one request each, as a job).
- `c` opens the cleanup panel on a repository's tags: the one cleanup of labdeck (`registry/cleanup.py`,
  its preview in `registry/cleanup_preview.py`, the exact delete of `api/registry_exact.py`): what the
  preview lists is what is deleted.
- `x` deletes the repository under the cursor (its path typed first), followed as a job until it is gone.

The tag counts are read again when a job here deleted tags or a repository. The cleanup policy of the
project has its own tab (Registry policy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from labdeck.api.models.projects import Project
from labdeck.api.models.registry import RegistryRepository
from labdeck.tui.clock import Now, now_of
from labdeck.tui.kit.actions import Action, Shown, shown
from labdeck.tui.kit.owner import project_owner
from labdeck.tui.kit.panes import ListPane
from labdeck.tui.kit.tabs import TabSpec
from labdeck.tui.screens.registry.registry import RegistryTagsScreen, ask_delete_repository
from labdeck.tui.screens.registry.repositories import repository_columns, repository_detail
from labdeck.tui.screens.registry.size_column import SizeReader, Sizes, known_sizes
from labdeck.tui.widgets.footer import LIST_KEYS, TAB_KEYS
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.workers import is_live

if TYPE_CHECKING:
    from labdeck.api.services import Services


class ContainerRegistryTab(ListPane):
    READ_WHEN_SHOWN = True
    ACTIONS = (
        Shown("select"),
        Action("c", "cleanup", "Cleanup", id="project_registry.cleanup", row=True, footer=True),
        Action("x", "delete_repository", "Delete repository", id="project_registry.delete_repository",
               mutating=True, row=True, footer=True),
        *shown(TAB_KEYS),
        *shown(LIST_KEYS),
    )
    DEFAULT_CSS = """
    ContainerRegistryTab #project-containers-where { height: 1; }
    """

    def __init__(self, project: Project, *, now: Now | None = None, id: str | None = None) -> None:
        sizes = Sizes()
        spec = TabSpec(repository_columns(sizes), lambda r: r.id, lambda r: repository_detail(r, sizes),
                       "No container repositories")
        super().__init__(project_owner(project), spec, id=id, view_id="project-containers-view")
        self.project = project
        self.now = now_of(self, now)
        self.sizes = sizes
        self.size_reader = SizeReader(self, sizes, lambda: self.table)

    def compose_above(self) -> ComposeResult:
        yield Static("", markup=False, id="project-containers-where")

    async def read(self, services: Services, refresh: bool) -> list[Any]:
        """The repositories with their tag counts (every page; a count is never served from a cache)."""
        return list(await services.registry.project_repositories(self.ref))

    def on_mount(self) -> None:
        self.size_reader.watch()

    def show_data(self, data: list[Any]) -> None:
        self.size_reader.stop()
        self.sizes.clear()
        known_sizes(self, data, self.sizes)
        super().show_data(data)
        total = sum(r.tags_count or 0 for r in data)
        self.query_one("#project-containers-where", Static).update(
            Text(f"{len(data)} repositories, {total:,} tags", style="dim"))
        self.size_reader.rows_set()  # the sizes of the rows shown (and the cursor's), read as they are shown

    def on_resource_table_row_highlighted(self, event: ResourceTable.RowHighlighted) -> None:
        self.size_reader.soon()

    def on_resource_table_state_changed(self, event: ResourceTable.StateChanged) -> None:
        self.size_reader.soon()  # filtered or sorted: other rows are shown

    def changed(self) -> None:
        """A job deleted tags or a repository: the counts are read again (if the tab is still open)."""
        if is_live(self):
            self.load()

    def open_tags(self, repo: RegistryRepository, *, cleanup: bool = False) -> None:
        self.app.push_screen(RegistryTagsScreen(repo, now=self.now, open_cleanup=cleanup,
                                                on_changed=self.changed))

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        if isinstance(event.row, RegistryRepository):
            event.stop()
            self.open_tags(event.row)

    def action_cleanup(self) -> None:
        repo = self.table.cursor_row
        if isinstance(repo, RegistryRepository):
            self.open_tags(repo, cleanup=True)

    def action_delete_repository(self) -> None:
        repo = self.table.cursor_row
        if isinstance(repo, RegistryRepository):
            ask_delete_repository(self, repo, self.changed)
