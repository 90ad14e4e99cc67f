"""One project's resources, opened with enter from `:projects`: one tab per entry of `TAB_LIST`, each a pane
of the kit made for the project as its owner (`kit/panes.py`: a `ListPane` where the tab is one list, a
`LoadedPane` where it shows something else, the members and variables panes every owner has), so every tab
loads, reloads (`r`), is gated by the instance's features and the token's reach, and applies read-only
mode the same way. `]` and `[` switch to the next and previous tab and put the focus in it; `f` forks the
project from any tab (the fork runs as a job). A new tab is a pane and an entry in `TAB_LIST`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from labdeck.api.models.projects import Project
from labdeck.tui.kit.members_pane import MembersPane
from labdeck.tui.kit.owner import project_owner
from labdeck.tui.kit.panes import OwnerPane
from labdeck.tui.kit.variables_pane import VariablesPane
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.projects.branches import BranchesPane
from labdeck.tui.screens.projects.containers import ContainerRegistryTab
from labdeck.tui.screens.projects.deployments import ProjectDeploymentsTab
from labdeck.tui.screens.projects.error_tracking import ErrorTrackingTab
from labdeck.tui.screens.projects.forks import ForksTab
from labdeck.tui.screens.projects.issues import ProjectIssuesTab
from labdeck.tui.screens.projects.pages import PagesTab
from labdeck.tui.screens.projects.registry_policy import RegistryPolicyTab
from labdeck.tui.screens.projects.tags import TagsTab
from labdeck.tui.screens.projects.wiki import WikiTab
from labdeck.tui.widgets.resource_table import ResourceTable


@dataclass(frozen=True)
class Tab:
    """One tab of the project view: its name (`tab-<name>`), title, and how its pane is made."""

    name: str
    title: str
    make: Callable[[ProjectViewScreen], OwnerPane]


def project_heading(project: Project) -> Text:
    name = project.name_with_namespace or project.path_with_namespace or str(project.id)
    heading = Text(name, style="bold")
    origin = project.forked_from_project or {}
    if origin:
        heading.append("  forked from ", style="dim")
        heading.append(str(origin.get("path_with_namespace", "")))
    if project.description:
        heading.append("\n")
        heading.append(project.description, style="dim")
    return heading


def tab_widget(pane: Widget) -> OwnerPane | None:
    """The pane of the kit a tab holds."""
    return next((node for node in pane.query(Widget) if isinstance(node, OwnerPane)), None)


class ProjectViewScreen(LabdeckScreen):
    # each tab names its own keys (`FOOTER_ORDER` of its widget); the tab bar and heading these
    FOOTER_PANES = {"project-tabs": ("next_tab", "previous_tab", "fork")}
    AREA = "projects"
    TITLE = "Project"
    CSS_PATH = "view.tcss"
    MUTATING_ACTIONS = frozenset({"fork"})
    BINDINGS = [
        Binding("right_square_bracket", "next_tab", "Next tab", id="project_view.next_tab"),
        Binding("left_square_bracket", "previous_tab", "Previous tab", id="project_view.previous_tab"),
        Binding("f", "fork", "Fork", id="project_view.fork"),
    ]

    def __init__(self, project: Project, *, tab: str = "wiki",
                 now: Callable[[], datetime] | None = None) -> None:
        super().__init__()
        self.project = project
        self.owner = project_owner(project)
        self.initial_tab = tab if tab in TABS else "wiki"
        self.now: Callable[[], datetime] | None = now

    def compose_body(self) -> ComposeResult:
        yield Static(project_heading(self.project), markup=False, id="project-heading")
        with TabbedContent(initial=f"tab-{self.initial_tab}", id="project-tabs"):
            for tab in TAB_LIST:
                with TabPane(tab.title, id=f"tab-{tab.name}"):
                    yield tab.make(self)

    def on_mount(self) -> None:
        self.sub_title = self.project.path_with_namespace or str(self.project.id)
        self.ctx.note_project(self.project.id, self.sub_title)
        self.mark_data_loaded()
        self.call_after_refresh(self.focus_tab)

    def focus_tab(self) -> None:
        """Put the focus in the tab in view: its table, or the tab itself when it has none."""
        pane = self.tabs.active_pane
        if pane is None:
            return
        tables = pane.query(ResourceTable)
        target = tables.first() if tables else tab_widget(pane)
        if target is not None:
            target.focus()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.call_after_refresh(self.focus_tab)

    @property
    def tabs(self) -> TabbedContent:
        return self.query_one("#project-tabs", TabbedContent)

    def show_tab(self, name: str) -> None:
        self.tabs.active = f"tab-{name}"

    def step_tab(self, step: int) -> None:
        """The tab `step` places to the right (wrapping), with the focus in it."""
        names = list(TABS)
        current = names.index(self.tabs.active.removeprefix("tab-"))
        self.show_tab(names[(current + step) % len(names)])
        self.call_after_refresh(self.focus_tab)

    def action_next_tab(self) -> None:
        self.step_tab(1)

    def action_previous_tab(self) -> None:
        self.step_tab(-1)

    @property
    def forks_tab(self) -> ForksTab:
        return self.query_one("#project-forks", ForksTab)

    def refresh_data(self) -> None:
        """`r`: the tab in view reads its data again (each pane's `reload`)."""
        pane = self.tabs.active_pane
        widget = tab_widget(pane) if pane is not None else None
        if widget is not None:
            widget.reload()
        self.mark_data_loaded()

    def action_fork(self) -> None:
        self.show_tab("forks")
        self.forks_tab.action_fork()


# Every tab, in order: a new tab is one pane and one entry here.
TAB_LIST: tuple[Tab, ...] = (
    Tab("wiki", "Wiki", lambda view: WikiTab(view.project, id="project-wiki")),
    Tab("issues", "Issues", lambda view: ProjectIssuesTab(view.project, id="project-issues")),
    Tab("containers", "Registry",
        lambda view: ContainerRegistryTab(view.project, now=view.now, id="project-containers")),
    Tab("deployments", "Deployments",
        lambda view: ProjectDeploymentsTab(view.project, now=view.now, id="project-deployments")),
    Tab("tags", "Tags", lambda view: TagsTab(view.project, id="project-tags")),
    Tab("pages", "Pages domains", lambda view: PagesTab(view.project, now=view.now, id="project-pages")),
    Tab("errors", "Error tracking", lambda view: ErrorTrackingTab(view.project, id="project-errors")),
    Tab("forks", "Forks", lambda view: ForksTab(view.project, id="project-forks")),
    Tab("members", "Members", lambda view: MembersPane(view.owner, id="project-members")),
    Tab("variables", "Variables", lambda view: VariablesPane(view.owner, id="project-variables")),
    Tab("registry", "Registry policy",
        lambda view: RegistryPolicyTab(view.project, now=view.now, id="project-registry")),
    Tab("branches", "Branches", lambda view: BranchesPane(view.owner, id="project-branches")),
)
TABS = {tab.name: tab.title for tab in TAB_LIST}
