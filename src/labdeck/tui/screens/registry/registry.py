"""`:registry`: container registry repositories of a project or a group (with tag counts, ids and sizes), and
the tags of one repository (name, age, size, digest).

A repository's size is its unique blobs (`domain.registry_sizes`, the figure of every screen and the CLI;
the list's columns and sizes are `repositories.py`'s). A tag's size is GitLab's `total_size`: all its layers,
shared ones included.

- Repositories: type a project or group path (`f`) and press enter; `enter` opens a repository's tags;
  `x` deletes the repository (its path must be typed), then follows the deletion as a job until it is
  gone; `c` opens the cleanup panel; `p` the cleanup policy panel of the project; `t` the registry
  storage of the group in scope, project by project.
- Tags: the detail of every tag is fetched (the list endpoint gives names only); `space` marks tags and `x`
  deletes exactly the marked ones (or the one under the cursor), one request each, as a job with progress;
  `c` opens the cleanup panel on these tags (its rules are `domain.registry_cleanup`'s).

Mutating actions are hidden in read-only mode. Server text is shown as `rich.text.Text`, never markup.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.dom import DOMNode
from textual.widgets import Static

from labdeck.api.errors import NotFound
from labdeck.api.models.registry import RegistryRepository, RegistryTagDetail
from labdeck.api.registry import format_age, format_size
from labdeck.domain.journal_rules import REGISTRY_NO_INVERSE
from labdeck.domain.registry_sizes import SIZE_MEANS, TAG_SIZE_MEANS
from labdeck.tui.areas import AreaRequest
from labdeck.tui.bulk import BulkAction, BulkQuestion, confirm_bulk, start_bulk
from labdeck.tui.clock import Now, now_of
from labdeck.tui.context import context_of
from labdeck.tui.jobs import Job, counted, poll_until
from labdeck.tui.screens.base import LabdeckScreen, ScopedScreen
from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.screens.registry.repositories import repository_columns, repository_detail
from labdeck.tui.screens.registry.size_column import SizeReader, Sizes, known_sizes
from labdeck.tui.widgets.detail_fields import append_fields
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.labelled import LabelledField
from labdeck.tui.widgets.path_input import PathInput
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column
from labdeck.tui.workers import is_live

POLL_TIMEOUT = 600.0


def _timestamp(value: datetime | None) -> float:
    return value.timestamp() if value is not None else float("inf")


# --- repositories ---------------------------------------------------------------------------------------

class RegistryScreen(ScopedScreen):
    FOOTER_PANES = {
        "registry-view": ("select", "cleanup", "delete_repository", "scope", *LIST_KEYS),
        "": ("scope",),
    }
    AREA = "registry"
    TITLE = "Registry"
    CSS_PATH = "registry.tcss"
    SCOPE_INPUT = "registry-scope"
    MUTATING_ACTIONS = frozenset({"delete_repository"})
    ROW_ACTIONS = MUTATING_ACTIONS
    CURSOR_ACTIONS = frozenset({"cleanup"})
    ROW_NAME = "a repository"
    BINDINGS = [
        Binding("f", "scope", "Project/group", id="registry.scope"),
        Binding("x", "delete_repository", "Delete repository", id="registry.delete_repository"),
        Binding("c", "cleanup", "Cleanup", id="registry.cleanup"),
        Binding("p", "policy", "Policy", id="registry.policy"),
        Binding("t", "storage", "Storage", id="registry.storage"),
    ]

    def __init__(self, request: AreaRequest | None = None, *, now: Now | None = None) -> None:
        super().__init__(request)
        self.now = now_of(self, now)
        self.sizes = Sizes()
        self.size_reader = SizeReader(self, self.sizes, lambda: self.table)

    def compose_body(self) -> ComposeResult:
        scope = PathInput(self.scope, placeholder="e.g. acme/platform/api-gateway", id="registry-scope")
        yield LabelledField("Project or group", scope, id="registry-scope-field")
        yield Static("", markup=False, id="registry-where")
        yield ResourceView(repository_columns(self.sizes), row_key=lambda r: r.id,
                           detail=lambda r: repository_detail(r, self.sizes), empty_text="No repositories",
                           id="registry-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#registry-view", ResourceView).table

    def on_mount(self) -> None:  # (then ScopedScreen's own, which loads: Textual calls each class's)
        self.size_reader.watch()

    def load_scope(self) -> None:
        self.load_repositories()

    def refresh_data(self) -> None:
        self.load_repositories()

    @work(exclusive=True, group="registry-repositories")
    async def load_repositories(self) -> None:
        if not self.scope:
            return
        service = self.ctx.services.registry
        where = self.query_one("#registry-where", Static)
        self.table.loading_more = True
        try:
            try:
                repos, kind = await service.project_repositories(self.scope), "project"
            except NotFound:
                repos, kind = await service.group_repositories(self.scope), "group"
        finally:
            self.table.loading_more = False
        self.size_reader.stop()
        self.sizes.clear()  # read again: a deletion may have changed them
        known_sizes(self, repos, self.sizes)
        self.table.set_rows(repos)
        self.size_reader.rows_set()  # the sizes of the rows shown (and the cursor's), read as they are shown
        total = sum(r.tags_count or 0 for r in repos)
        where.update(Text(f"{kind} {self.scope}: {len(repos)} repositories, {total:,} tags; size = "
                          f"{SIZE_MEANS}"))
        self.mark_data_loaded()

    def on_resource_table_row_highlighted(self, event: ResourceTable.RowHighlighted) -> None:
        self.size_reader.soon()

    def on_resource_table_state_changed(self, event: ResourceTable.StateChanged) -> None:
        self.size_reader.soon()  # filtered or sorted: other rows are shown

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        if isinstance(event.row, RegistryRepository):
            event.stop()
            self.app.push_screen(RegistryTagsScreen(event.row, now=self.now, on_changed=self.tags_changed))

    def action_cleanup(self) -> None:
        repo = self.table.cursor_row
        if isinstance(repo, RegistryRepository):
            self.app.push_screen(RegistryTagsScreen(repo, now=self.now, open_cleanup=True,
                                                    on_changed=self.tags_changed))

    def action_policy(self) -> None:
        """The cleanup policy panel of the project under the cursor (or of the project in scope)."""
        from labdeck.tui.screens.registry.policy import CleanupPolicyScreen

        repo = self.table.cursor_row
        project = repo.project_id if isinstance(repo, RegistryRepository) and repo.project_id else self.scope
        if project:
            self.app.push_screen(CleanupPolicyScreen(project, now=self.now))

    def action_storage(self) -> None:
        """Where the storage of the group in scope goes: its projects by registry size, with policies."""
        from labdeck.tui.screens.registry.storage import RegistryStorageScreen

        if self.scope:
            self.app.push_screen(RegistryStorageScreen(self.scope, now=self.now))

    def tags_changed(self) -> None:
        """A job deleted tags of one of the repositories: their tag counts (and sizes) are read again."""
        if is_live(self):
            self.load_repositories()

    def action_delete_repository(self) -> None:
        repo = self.table.cursor_row
        if isinstance(repo, RegistryRepository):
            ask_delete_repository(self, repo, self.load_repositories)

    def delete_repository(self, repo: RegistryRepository) -> Job | None:
        return delete_repository(self, repo, self.load_repositories)


def ask_delete_repository(owner: DOMNode, repo: RegistryRepository, reload: Callable[[], object]) -> None:
    """`x` on a repository (of `:registry` or the project view's Registry tab): its path typed, then
    `delete_repository`."""
    if repo.project_id is None:
        return
    expected = repo.path or repo.display_name
    message = Content.from_markup(
        "Delete repository [b]$path[/b] and all its $count tags? GitLab deletes it in the background.",
        path=expected, count=str(repo.tags_count if repo.tags_count is not None else "its"))

    def answered(yes: bool | None) -> None:
        if yes:
            delete_repository(owner, repo, reload)

    owner.app.push_screen(TypeToConfirmScreen("Delete repository", message, expected,
                                              irreversible=REGISTRY_NO_INVERSE), answered)


def delete_repository(owner: DOMNode, repo: RegistryRepository, reload: Callable[[], object]) -> Job | None:
    """Delete `repo` as a job that follows the deletion until it is gone, then `reload` if `owner` is
    still open."""
    if repo.project_id is None:
        return None
    service = context_of(owner).services.registry
    project_id, repo_id = repo.project_id, repo.id

    async def run(job: Job) -> None:
        await service.delete_repository(project_id, repo_id)
        job.set_total(1)
        await poll_until(lambda: service.repository_exists(repo_id), lambda exists: not exists,
                         max_interval=5.0, timeout=POLL_TIMEOUT)
        job.advance()
        job.set_summary("repository deleted")
        if is_live(owner):
            reload()

    return context_of(owner).start_job(f"Delete repository {repo.path or repo.display_name}", run)


# --- tags -----------------------------------------------------------------------------------------------

PROGRESS_EVERY = 0.25  # seconds between two progress updates of the tags title


def tag_columns(now: datetime) -> list[Column]:
    """Plain-string cells (the digest styled by its column), so 15,000 rows load fast; ages are told as of
    `now`. Tag names are made safe by the model layer and `ResourceTable` never parses cells as markup."""
    return [
        Column("name", "Tag", min_width=16, priority=10, text=lambda t: t.name, data=lambda t: t.name),
        Column("age", "Age", width=5, priority=8, align="right", sort_key=lambda t: -_timestamp(t.created_at),
               text=lambda t: format_age(t.created_at, now), exported=False),  # `created` is the data
        Column("size", "Size", width=9, priority=7, align="right", sort_key=lambda t: t.total_size or 0,
               text=lambda t: format_size(t.total_size), data=lambda t: t.total_size),  # bytes
        Column("digest", "Digest", width=12, priority=3, style_fn=lambda _t: "dim",
               text=lambda t: (t.digest or "").removeprefix("sha256:")[:12], data=lambda t: t.digest),
        Column("created", "Created", width=16, priority=5, sort_key=lambda t: _timestamp(t.created_at),
               text=lambda t: t.created_at.isoformat(" ", "minutes")[:16] if t.created_at else "—",  # fast
               data=lambda t: t.created_at),
    ]


def tag_detail(tag: RegistryTagDetail) -> Text:
    return append_fields(Text(tag.name, style="bold"), (
        ("digest", tag.digest or ""), ("revision", tag.revision or ""),
        ("size", f"{format_size(tag.total_size)} ({TAG_SIZE_MEANS})"),
        ("created", tag.created_at.isoformat() if tag.created_at else "unknown"),
        ("location", tag.location or "")), width=10, skip_empty=False)


class RegistryTagsScreen(LabdeckScreen):
    FOOTER_PANES = {"": ("toggle_mark", "delete_tags", "cleanup", "select", "mark_range", "unmark_all",
                         *LIST_KEYS)}
    AREA = "registry"
    TITLE = "Registry tags"
    CSS_PATH = "registry.tcss"
    MUTATING_ACTIONS = frozenset({"delete_tags"})
    ROW_ACTIONS = MUTATING_ACTIONS
    BINDINGS = [
        Binding("x", "delete_tags", "Delete marked", id="registry_tags.delete"),
        Binding("c", "cleanup", "Cleanup", id="registry_tags.cleanup"),
    ]

    def __init__(self, repository: RegistryRepository, *, now: Now | None = None,
                 open_cleanup: bool = False, on_changed: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.repository = repository
        self.on_changed = on_changed  # the repositories list, told when a job here deleted tags
        self.now = now_of(self, now)
        self.open_cleanup = open_cleanup
        self.details: list[RegistryTagDetail] = []
        self._rows_stale = False  # details read while the cleanup panel covered this screen

    @property
    def project(self) -> int:
        return self.repository.project_id or 0

    def compose_body(self) -> ComposeResult:
        yield Static(Text(self.repository.path or self.repository.display_name, style="bold"),
                     id="registry-tags-title")
        yield ResourceView(tag_columns(self.now()), row_key=lambda t: t.name,
                           detail=tag_detail, empty_text="No tags", enter_opens_detail=True,
                           id="registry-tags-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#registry-tags-view", ResourceView).table

    def on_mount(self) -> None:
        self.table.focus()
        self.load_tags()

    def refresh_data(self) -> None:
        self.load_tags(refresh=True)  # `r` reads every tag again; digest facts still come from the cache

    @work(exclusive=True, group="registry-tags")
    async def load_tags(self, refresh: bool = False) -> None:
        service = self.ctx.services.registry
        title = self.query_one("#registry-tags-title", Static)
        name = self.repository.path or self.repository.display_name

        shown = [float("-inf")]

        def progress(done: int, total: int) -> None:
            # at most a few times a second: each update lays the screen out again, and a read of 15,000
            # tags reports after every page and batch (hundreds of times)
            now = time.monotonic()
            if now - shown[0] >= PROGRESS_EVERY:
                shown[0] = now
                title.update(Text(f"{name}: reading tag details {done:,}/{total:,}"))

        self.table.loading_more = True
        try:
            # the layers only where a figure needs them: the cleanup panel reads them once it shows its plan
            self.details = await service.tag_details(self.project, self.repository.id, on_progress=progress,
                                                     refresh=refresh, path=self.repository.path, layers=False)
        finally:
            self.table.loading_more = False
        self.details.sort(key=lambda t: -_timestamp(t.created_at))
        title.update(Text(f"{name}: {len(self.details):,} tags", style="bold")
                     + Text(f"  read by {service.last_source}", style="dim"))
        if self.open_cleanup:  # the panel first: this table, hidden under it, is filled once it is back
            self.open_cleanup = False
            self._rows_stale = True
            self.mark_data_loaded()
            self.action_cleanup()
            return
        self._rows_stale = False
        self.table.set_rows(self.details)
        self.mark_data_loaded()

    def on_screen_resume(self) -> None:
        if self._rows_stale:
            self._rows_stale = False
            self.table.set_rows(self.details)

    def action_cleanup(self) -> None:
        from labdeck.tui.screens.registry.cleanup import RegistryCleanupScreen

        self.app.push_screen(RegistryCleanupScreen(self.repository, self.details, now=self.now,
                                                   on_deleted=self.tags_deleted, on_layers=self.layers_read))

    def layers_read(self, details: list[RegistryTagDetail]) -> None:
        """The cleanup panel read the tags' layers: the next panel opened here has them."""
        if {d.name for d in details} == {d.name for d in self.details}:
            self.details = sorted(details, key=lambda t: -_timestamp(t.created_at))

    def tags_deleted(self, names: set[str]) -> None:
        """A cleanup job removed `names`: this list and the repositories list reload from the server (no
        `r` needed), each if it is still open."""
        if is_live(self):
            self.load_tags()
        if self.on_changed is not None:
            self.on_changed()

    def action_delete_tags(self) -> None:
        tags = [t for t in self.table.marked_rows if isinstance(t, RegistryTagDetail)]
        if not tags and isinstance(self.table.cursor_row, RegistryTagDetail):
            tags = [self.table.cursor_row]
        if not tags:
            return
        where = self.repository.path or self.repository.display_name
        confirm_bulk(self, self.tags_action([t.name for t in tags]), BulkQuestion(
            "Delete tags", f"Delete {counted(len(tags), 'tag')} of {where}? Blobs stay until garbage "
            "collection.", "Delete", irreversible=REGISTRY_NO_INVERSE), table=self.table)

    def delete_tags(self, names: list[str]) -> Job:
        """Delete `names` now (no confirmation): the job."""
        return start_bulk(self, self.tags_action(names), table=self.table)

    def tags_action(self, names: list[str]) -> BulkAction[str]:
        """Deleting each tag of `names`, one request each, as one bulk action."""
        service = self.ctx.services.registry
        project, repo_id = self.project, self.repository.id

        async def delete(name: str) -> tuple[bool, str]:
            await service.delete_tag(project, repo_id, name)
            return True, "deleted"

        title = f"Delete {len(names)} tag(s) of {self.repository.path or self.repository.display_name}"
        return BulkAction(title, names, str, delete, noun="tag", verb="deleted", refresh=self.load_tags,
                          changed=self.on_changed)


def open_registry(request: AreaRequest) -> RegistryScreen:
    """The area factory (`:registry`)."""
    return RegistryScreen(request)
