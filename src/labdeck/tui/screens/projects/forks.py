"""The project view's Forks tab and the fork job. The tab, a list pane of the kit, lists the project's forks
(read through their binding; enter opens one); `f` opens the fork dialog, and the fork runs as a job in the
job centre: the request, then polling the new project's `import_status` (scheduled, started, finished) with
backoff until it finishes or fails. `x` removes this project's own fork relationship (it asks first); `l`
marks the project as a fork of another.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text
from textual import work
from textual.content import Content

from labdeck.api import bindings
from labdeck.api.errors import LabdeckError
from labdeck.api.forks import ForksService, import_done
from labdeck.api.models.projects import Project
from labdeck.domain.digits import parse_digits
from labdeck.tui.jobs import Job, poll_until
from labdeck.tui.kit.actions import Action, Shown, shown
from labdeck.tui.kit.owner import project_owner
from labdeck.tui.kit.panes import ListPane
from labdeck.tui.kit.tabs import TabSpec
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.projects.dialogs import ForkDialog, ForkRequest, PathPrompt
from labdeck.tui.widgets.footer import LIST_KEYS, TAB_KEYS
from labdeck.tui.widgets.table_model import Column
from labdeck.tui.workers import is_live

IMPORT_STEPS = {"scheduled": 1, "started": 2, "finished": 3}
POLL_TIMEOUT = 30 * 60.0
STATUS_STYLES = {"finished": "green", "failed": "bold red", "scheduled": "yellow", "started": "yellow"}


class ForkFailed(LabdeckError):
    """The fork's import ended in `failed`."""


def _import_status(project: Project) -> Text:
    status = project.import_status or "none"
    return Text(status, style=STATUS_STYLES.get(status, "dim"))


FORK_COLUMNS = [
    Column("path", "Fork", min_width=24, text=lambda p: Text(p.path_with_namespace or p.name or str(p.id)),
           data=lambda p: p.path_with_namespace or p.name),
    Column("visibility", "Visibility", width=10, text=lambda p: Text(p.visibility or ""),
           data=lambda p: p.visibility),
    Column("status", "Import", width=10, text=_import_status, data=lambda p: p.import_status),
    Column("created", "Created", width=16,
           text=lambda p: Text(p.created_at.strftime("%Y-%m-%d %H:%M") if p.created_at else ""),
           data=lambda p: p.created_at),
    Column("stars", "★", width=5, align="right", sort_key=lambda p: p.star_count or 0,
           text=lambda p: Text(str(p.star_count or 0)), data=lambda p: p.star_count),
]


async def run_fork(job: Job, service: ForksService, source: Project, request: ForkRequest, *,
                   poll_initial: float = 0.5,
                   sleep: Callable[[float], Awaitable[Any]] | None = None) -> Project:
    """The fork job: send the fork, then follow `import_status` to the end (`ForkFailed` on failure)."""
    job.set_total(len(IMPORT_STEPS))
    fork = await service.fork(source.id, namespace_id=request.namespace_id,
                              namespace_path=request.namespace_path, name=request.name,
                              path=request.path, visibility=request.visibility, branches=request.branches,
                              mr_default_target_self=request.mr_default_target_self or None)

    def progress(project: Project) -> None:
        step = IMPORT_STEPS.get(project.import_status or "", 0)
        if step > job.done:
            job.advance(step - job.done)

    async def fetch() -> Project:
        project = await service.import_status(fork.id)
        progress(project)
        return project

    progress(fork)
    extra: dict[str, Any] = {"sleep": sleep} if sleep is not None else {}  # else poll_until's own
    done = fork if import_done(fork) else await poll_until(fetch, import_done, initial=poll_initial,
                                                           max_interval=10.0, timeout=POLL_TIMEOUT, **extra)
    name = done.path_with_namespace or str(done.id)
    if done.import_status == "failed":
        job.add_result(name, False, "import failed", advance=False)
        raise ForkFailed(f"the fork {name} failed to import")
    job.add_result(name, True, done.import_status or "finished", advance=False)
    return done


FORKS = TabSpec(FORK_COLUMNS, lambda p: p.id, lambda p: Text(p.path_with_namespace or p.name or str(p.id)),
               "No forks")


class ForksTab(ListPane):
    LISTING = bindings.PROJECT_FORKS
    # the footer while this tab has focus, most useful first (`widgets.footer`)
    ACTIONS = (
        Action("f", "fork", "Fork", id="project_forks.fork", mutating=True, footer=True),
        Action("l", "link", "Mark as a fork of…", id="project_forks.link", mutating=True, footer=True),
        Action("x", "unlink", "Remove fork relationship", id="project_forks.unlink",
               mutating=True, footer=True),
        Shown("select"),
        *shown(TAB_KEYS),
        *shown(LIST_KEYS),
    )

    def __init__(self, project: Project, *, id: str | None = None) -> None:
        super().__init__(project_owner(project), FORKS, id=id, view_id="forks-view")
        self.project = project
        self.poll_initial = 0.5
        self.last_job: Job | None = None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.policy_allows(action):
            return False
        if action == "unlink":
            return self.project.forked_from_project is not None
        if action == "link":
            return self.project.forked_from_project is None
        return True

    def on_resource_table_row_selected(self, event: Any) -> None:
        if isinstance(event.row, Project):
            event.stop()
            from labdeck.tui.screens.projects.view import ProjectViewScreen

            self.app.push_screen(ProjectViewScreen(event.row))

    def action_fork(self) -> None:
        def chosen(request: ForkRequest | None) -> None:
            if request is not None:
                self.start_fork(request)

        self.app.push_screen(ForkDialog(self.project.path_with_namespace or str(self.project.id)), chosen)

    def start_fork(self, request: ForkRequest) -> Job:
        service, source, initial = self.ctx.services.forks, self.project, self.poll_initial

        async def run(job: Job) -> None:
            done = await run_fork(job, service, source, request, poll_initial=initial)
            self.app.notify(f"Fork ready: {done.path_with_namespace}", markup=False)
            if is_live(self):
                self.reload()

        self.last_job = self.ctx.start_job(f"Fork {source.path_with_namespace or source.id}", run)
        return self.last_job

    def action_link(self) -> None:
        def chosen(source: str | None) -> None:
            if source:
                self.link(source)

        self.app.push_screen(PathPrompt("Mark this project as a fork of (project id or path)",
                                        "group/project"), chosen)

    @work(group="project-forks-link")
    async def link(self, source: str) -> None:
        services = self.ctx.services
        origin = parse_digits(source)
        if origin is None:
            origin = (await services.projects.project(source)).id
        self.project = await services.forks.create_relationship(self.project.id, origin)
        origin_path = (self.project.forked_from_project or {}).get("path_with_namespace", source)
        self.notify(f"Marked as a fork of {origin_path}", markup=False)
        self.refresh_bindings()

    def action_unlink(self) -> None:
        origin = self.project.forked_from_project or {}
        message = Content.from_markup(
            "Remove the fork relationship of [b]$path[/b] with [b]$origin[/b]? Merge requests to the "
            "upstream project stop working.", path=self.project.path_with_namespace or "",
            origin=str(origin.get("path_with_namespace", "its source")))

        def answered(yes: bool | None) -> None:
            if yes:
                self.unlink()

        self.app.push_screen(ConfirmScreen("Remove fork relationship", message, confirm_label="Remove"),
                             answered)

    @work(group="project-forks-unlink")
    async def unlink(self) -> None:
        removed = await self.ctx.services.forks.delete_relationship(self.project.id)
        if removed:
            self.project = self.project.model_copy(update={"forked_from_project": None})
        self.notify("Fork relationship removed" if removed else "This project was not a fork", markup=False)
        self.refresh_bindings()
