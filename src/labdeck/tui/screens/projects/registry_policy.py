"""The project view's Registry policy tab, a pane of the kit: the project's container registry cleanup
policy (enabled, cadence, keep_n, older_than, the two patterns, next_run_at), why its runs did or did not
happen, and what the next run would delete, summed per repository (tags, deleted, kept, space freed).

The simulation is the policy panel's (`api.cleanup_policy`, GitLab's own rules, at the instance's time),
read when the tab is first shown (a project's tags can be many), and summarised here; `p` (or `enter`)
opens the full panel of `:registry` (`registry.policy.CleanupPolicyScreen`: every tag and its reason) and
`e` opens it to edit the policy, an action read-only mode hides. The tab reads the policy again when the
panel closes. Server text (patterns, repository names) is shown as `rich.text.Text`, never markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Select, Static

from labdeck.api.cleanup_policy import ProjectSimulation, RepositorySimulation
from labdeck.api.errors import LabdeckError
from labdeck.api.models.projects import Project
from labdeck.domain.cleanup_policy import CADENCES, KEEP_N_VALUES, OLDER_THAN_VALUES, Policy
from labdeck.domain.kept_values import shown
from labdeck.domain.registry_sizes import FREES_HEADER, Figure, size_text
from labdeck.tui.clock import Now, now_of
from labdeck.tui.kit.actions import Action, Shown
from labdeck.tui.kit.actions import shown as shown_keys
from labdeck.tui.kit.owner import project_owner
from labdeck.tui.kit.panes import LoadedPane
from labdeck.tui.screens.registry.policy import CleanupPolicyScreen, summary_text
from labdeck.tui.widgets.footer import LIST_KEYS, TAB_KEYS
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column
from labdeck.tui.workers import is_live

if TYPE_CHECKING:
    from labdeck.api.services import Services


@dataclass(frozen=True, slots=True)
class RepositorySummary:
    """One repository's share of the next run: its tags, how many go and stay, the space freed."""

    id: int
    name: str
    tags: int | None
    deleted: int | None
    freed: Figure | None  # the blobs no kept tag uses
    error: str | None = None

    @property
    def kept(self) -> int | None:
        return None if self.tags is None or self.deleted is None else self.tags - self.deleted


def summaries(sim: ProjectSimulation) -> list[RepositorySummary]:
    """Per repository, most deleted first (unreadable ones last, with their error)."""
    def one(repo: RepositorySimulation) -> RepositorySummary:
        name = repo.repository.path or repo.repository.display_name
        plan = repo.plan
        if plan is None:
            return RepositorySummary(repo.repository.id, name, repo.repository.tags_count, None, None,
                                     repo.error or "not simulated")
        return RepositorySummary(repo.repository.id, name, len(plan.tags), plan.deleted_count,
                                 plan.freed)
    rows = [one(repo) for repo in sim.repositories]
    return sorted(rows, key=lambda r: (r.deleted is None, -(r.deleted or 0), r.name))


def _count(value: int | None) -> Text:
    return Text("" if value is None else f"{value:,}")


def _deleted(row: RepositorySummary) -> Text:
    if row.error is not None:
        return Text("?", style="dim")
    return Text(f"{row.deleted:,}", style="bold red" if row.deleted else "dim")


def _freed(row: RepositorySummary) -> Text:
    if row.error is not None:
        return Text(row.error, style="red")
    return Text(size_text(row.freed) if row.deleted else "")


COLUMNS = [
    Column("repository", "Repository", min_width=18, text=lambda r: Text(r.name), data=lambda r: r.name),
    Column("tags", "Tags", width=7, align="right", sort_key=lambda r: r.tags or 0,
           text=lambda r: _count(r.tags), data=lambda r: r.tags),
    Column("deleted", "Delete", width=7, align="right", sort_key=lambda r: r.deleted or 0, text=_deleted,
           data=lambda r: r.deleted),
    Column("kept", "Keep", width=7, align="right", sort_key=lambda r: r.kept or 0,
           text=lambda r: Text("?", style="dim") if r.error is not None else _count(r.kept),
           data=lambda r: None if r.error is not None else r.kept),
    Column("freed", FREES_HEADER, min_width=9, sort_key=lambda r: r.freed.bytes if r.freed else 0,
           text=_freed, data=lambda r: (r.freed.bytes if r.freed else None) if r.deleted else 0,  # bytes
           extra_data=(("error", lambda r: r.error),
                       ("freed_exact", lambda r: r.freed.exact if r.freed else None))),
]


def policy_text(policy: Policy | None) -> Text:
    """The policy's values as GitLab holds them, one labelled line each pair (patterns as plain text; a value
    labdeck does not know as it is, with a note)."""
    if policy is None:
        return Text("No cleanup policy: the instance gives none for this project (registry off, or no "
                    "right to read it).", style="bold")
    text = Text("Policy: ", style="bold")
    text.append("enabled" if policy.enabled else "disabled", style="bold green" if policy.enabled else "bold")
    text.append(f"  every {shown(policy.cadence, CADENCES)}  keep newest ")
    text.append("none" if policy.keep_n is None else shown(policy.keep_n, KEEP_N_VALUES))
    text.append("  older than ")
    text.append("none" if policy.older_than is None else shown(policy.older_than, OLDER_THAN_VALUES))
    text.append("\nRemove: ", style="dim")
    text.append(policy.name_regex or "none")
    text.append("  Keep: ", style="dim")
    text.append(policy.name_regex_keep or "none")
    text.append("  next_run_at: ", style="dim")
    text.append(f"{policy.next_run_at:%Y-%m-%d %H:%M} UTC" if policy.next_run_at else "none")
    return text


class RegistryPolicyTab(LoadedPane[ProjectSimulation]):
    READ_WHEN_SHOWN = True  # a project's tags can be many: read when the tab is first shown
    # the footer while this tab has focus, most useful first (`widgets.footer`)
    ACTIONS = (
        Action("p", "open_policy", "Full preview", id="project_registry_policy.open", footer=True),
        Action("e", "edit_policy", "Edit policy", id="project_registry_policy.edit",
               mutating=True, footer=True),
        *shown_keys(TAB_KEYS),
        Shown("fork"),
        *shown_keys(LIST_KEYS),
    )

    def __init__(self, project: Project, *, now: Now | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.owner = project_owner(project)
        self.project = project
        self.now = now_of(self, now)
        self.sim: ProjectSimulation | None = None
        self._panel: Screen[Any] | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="registry-policy-about"):
            yield Static(Text("Reading the cleanup policy…", style="dim"), markup=False,
                         id="registry-policy-values")
            yield Static("", markup=False, id="registry-policy-summary")
        yield ResourceView(COLUMNS, row_key=lambda r: r.id,
                           empty_text="No registry repositories", id="registry-policy-view")

    @property
    def view(self) -> ResourceView:
        return self.query_one("#registry-policy-view", ResourceView)

    def on_mount(self) -> None:
        self.app.screen_change_signal.subscribe(self, self._screen_changed)
        super().on_mount()

    def _screen_changed(self, screen: Screen[Any]) -> None:
        """Back from the panel this tab opened: the policy may have been saved there."""
        if self._panel is not None and screen is self.screen and is_live(self):
            self._panel = None
            self.reload()

    async def read(self, services: Services, refresh: bool) -> ProjectSimulation:
        return await services.cleanup_policy.simulate(self.project.id, now=self.now())

    def explain(self, error: LabdeckError) -> str | None:
        return f"The cleanup policy could not be read: {error}"

    def show_reason(self, text: str) -> None:
        self.query_one("#registry-policy-values", Static).update(Text(text, style="red"))

    def show_data(self, data: ProjectSimulation) -> None:
        self.sim = data
        self.query_one("#registry-policy-values", Static).update(policy_text(data.policy))
        self.query_one("#registry-policy-summary", Static).update(summary_text(data))
        self.view.table.set_rows(summaries(data))

    def _open(self, *, edit: bool) -> None:
        panel = CleanupPolicyScreen(self.project.id, now=self.now)
        self._panel = panel
        self.app.push_screen(panel)
        if edit:
            panel.call_after_refresh(lambda: panel.query_one("#policy-enabled", Select).focus())
        else:
            panel.call_after_refresh(lambda: panel.table.focus())

    def action_open_policy(self) -> None:
        """The full panel of `:registry`: every tag of every repository and the rule that decides it."""
        self._open(edit=False)

    def action_edit_policy(self) -> None:
        """The same panel with the focus in its editor (the preview follows every change)."""
        self._open(edit=True)

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        if isinstance(event.row, RepositorySummary):
            event.stop()
            self.action_open_policy()
