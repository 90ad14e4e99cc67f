"""The operator's overview (`:overview`, and beside the areas on the home view): what needs attention on this
instance right now, each line opening the place to act.

Users pending approval, dormant, blocked and banned (administrators; bars show the proportions);
registry repositories with the most tag storage among those this run already read, and repositories whose
bulk-delete lock is active; Pages certificates expired or expiring within 30 days (administrators);
deployments that failed in the last 24 hours in the groups whose deployments board was opened and the
projects opened (the heading names that scope, the count says how many projects it covers, as the
board's status line does; read again when the scope grows); labdeck's own running and failed tasks of
this session. It loads in the background within a request budget (`OverviewService`),
shows the age of each figure, and `r` reloads it; a task that finishes shows the lines again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from labdeck.api.errors import LabdeckError
from labdeck.api.models.moderation import Condition
from labdeck.api.overview import (
    BUDGET,
    FOLLOWED_GROUPS,
    RECENT_PROJECTS,
    CertificateFigures,
    FailedDeployments,
    OverviewService,
    UsersFigures,
    age_text,
    bar,
)
from labdeck.api.registry import LOCKS
from labdeck.api.registry_known import KnownRepository, known_for
from labdeck.domain.registry_sizes import size_text
from labdeck.tui.areas import AreaRequest
from labdeck.tui.clock import Today, today_of
from labdeck.tui.context import context_of
from labdeck.tui.jobs import Job, JobOutcome, JobState, counted
from labdeck.tui.screens.base import LabdeckScreen

Target = tuple[str, AreaRequest]
FAILED_SHOWN = 8  # failed deployments listed under their count
FailedScope = tuple[tuple[str, ...], tuple[tuple[int | str, str], ...]]  # (groups, (id, path) of projects)
USER_LINES = ((Condition.PENDING, "pending", "pending approval"), (Condition.DORMANT, "dormant", "dormant"),
              (Condition.BLOCKED, "blocked", "blocked"), (Condition.BANNED, "banned", "banned"),
              (Condition.DEACTIVATED, "deactivated", "deactivated"))


def registry_line(known: KnownRepository, top: int) -> str:
    """`1.6 GB  acme/platform/api-gateway, 32 tags  ████`: the repository by its path, its size (unique blobs,
    `domain.registry_sizes`: the registry screens' and the CLI's figure, in their units)."""
    tags = counted(known.tags, "tag")
    return f"{size_text(known.size):>8}  {known.path}, {tags}  {bar(known.bytes, top)}"


def _same(scope: FailedScope, read: FailedScope | None) -> bool | None:
    """Whether `scope` is the one `read` (in any order: reopening a project changes nothing); None when
    nothing was read yet."""
    if read is None:
        return None
    return (set(scope[0]), {p[1] for p in scope[1]}) == (set(read[0]), {p[1] for p in read[1]})


def scope_words(groups: Sequence[str], projects: Sequence[str]) -> str:
    """`fleet`, `fleet and infra`, `fleet and 2 projects you opened`, `1 project you opened`: the groups whose
    board was opened (their projects, subgroups included) and the projects opened outside them."""
    parts = list(groups)
    if projects:
        parts.append(f"{counted(len(projects), 'project')} you opened")
    if len(parts) <= 1:
        return parts[0] if parts else "no project"
    return f"{', '.join(parts[:-1])} and {parts[-1]}"


def failed_count_line(figures: FailedDeployments) -> str:
    """`6 deployments failed in 24h in 36 projects` (the board's figure for the same group, worded as it is),
    with what was not read."""
    return f"{figures.window.count_text(figures.count)} in {figures.coverage().text()}"


def first_line(options: list[Option], wanted: str | None) -> int | None:
    """The line to highlight: the one with id `wanted` if it is still shown, else the first line that opens
    something (the headings are not), so the cursor is visible and enter opens at once."""
    lines = [i for i, option in enumerate(options) if not option.disabled]
    return next((i for i in lines if options[i].id == wanted), lines[0] if lines else None)


class OverviewPanel(Vertical):
    """The overview's lines in an option list; enter opens the line's area."""

    DEFAULT_CSS = """
    OverviewPanel { height: 1fr; }
    OverviewPanel > #overview-lines { height: 1fr; border: round $accent 40%; padding: 0 1; }
    OverviewPanel > #overview-status { color: $text-muted; padding: 0 1; }
    """

    def __init__(self, *, today: Today | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.today = today_of(self, today)
        self.targets: dict[str, Target] = {}
        self.users: UsersFigures | None = None
        self.certificates: CertificateFigures | None = None
        self.failed: FailedDeployments | None = None
        self._failed_for: FailedScope | None = None
        self.loaded_at: dict[str, float] = {}
        self.errors: dict[str, str] = {}
        self._loaded_for: tuple[int, str] | None = None

    def compose(self) -> ComposeResult:
        yield Static("Needs attention · loading…", id="overview-status", markup=False)
        yield OptionList(id="overview-lines")

    def on_mount(self) -> None:
        self.show_lines()
        self.load_once()  # the home also asks once the user is known (`refresh_areas`)
        # a job that finishes changes what is shown (its own line; a registry deletion's sizes)
        self._stop_listening = context_of(self).jobs.on_change(self._job_changed)

    def on_unmount(self) -> None:
        self._stop_listening()

    def _job_changed(self, job: Job) -> None:
        if job.state.finished and self.is_attached:
            self.show_lines()

    def load_once(self) -> None:
        """Load for the signed-in user unless that is done or under way (`r` reloads with `load`)."""
        session = context_of(self).session
        if session is None or session.user is None:
            return
        who = (id(session), session.user.username)
        if who != self._loaded_for:
            self._loaded_for = who
            self.load()

    # -- loading --------------------------------------------------------------------------------------
    @work(exclusive=True, group="overview")
    async def load(self) -> None:
        ctx = context_of(self)
        user = await ctx.user()
        service = ctx.services.overview()
        if user.is_admin:
            await self._read("users", lambda: self._users(service))
            await self._read("certificates", service.certificates)
        await self._read_failures(service)
        if self.is_attached:
            self.query_one("#overview-status", Static).update(
                Content(f"Needs attention · {BUDGET - service.budget.left} request(s) · r reloads"))
            self.show_lines()

    def follow_scope(self) -> None:
        """Read the failed deployments again when the groups and projects followed changed since they were
        read (a board or a project opened since): the figure always covers the scope it states."""
        if self._loaded_for is not None and _same(self.failed_scope(), self._failed_for) is False:
            self.load_failures()

    @work(exclusive=True, group="overview-failed")
    async def load_failures(self) -> None:
        await self._read_failures(context_of(self).services.overview())

    def failed_scope(self) -> FailedScope:
        """The groups whose deployments board was opened and the projects opened, newest first (as many as
        the overview follows)."""
        ctx = context_of(self)
        return tuple(ctx.recent_groups[:FOLLOWED_GROUPS]), tuple(ctx.recent_projects[:RECENT_PROJECTS])

    async def _read_failures(self, service: OverviewService) -> None:
        groups, projects = self._failed_for = self.failed_scope()
        if groups or projects:  # nothing followed: no figure (it could state no scope)
            await self._read("failed", lambda: service.failed_deployments(groups, projects))

    async def _users(self, service: OverviewService) -> UsersFigures:
        days = await service.dormant_days()
        return await service.users(self.today(), days)

    async def _read(self, name: str, read: Any) -> None:
        try:
            setattr(self, name, await read())
            self.errors.pop(name, None)
        except LabdeckError as error:
            self.errors[name] = str(error)
        self.loaded_at[name] = self._now()
        if self.is_attached:
            self.show_lines()

    def _now(self) -> float:
        return context_of(self).clock()  # the app's clock (frozen in tests and snapshots)

    # -- lines ----------------------------------------------------------------------------------------
    def show_lines(self) -> None:
        options: list[Option | None] = []
        self.targets = {}
        self._user_lines(options)
        self._registry_lines(options)
        self._certificate_lines(options)
        self._deployment_lines(options)
        self._job_lines(options)
        lines = self.query_one("#overview-lines", OptionList)
        shown = [o for o in options if o is not None]
        was = lines.highlighted_option.id if lines.highlighted_option is not None else None
        lines.clear_options()
        lines.add_options(shown)
        lines.highlighted = first_line(shown, was)

    def _heading(self, options: list[Option | None], title: str, key: str | None = None) -> None:
        age = f" · {age_text(self.loaded_at.get(key), self._now())}" if key else ""
        error = f" · {self.errors[key]}" if key and key in self.errors else ""
        options.append(Option(Content.from_markup("[b]$title[/b][dim]$age$error[/dim]", title=title, age=age,
                                                  error=error), disabled=True))

    def _line(self, options: list[Option | None], key: str, text: str, target: Target,
              style: str = "") -> None:
        self.targets[key] = target
        options.append(Option(Content.styled(text, style) if style else Content(text), id=key))

    def _user_lines(self, options: list[Option | None]) -> None:
        figures = self.users
        if figures is None and "users" not in self.errors:
            return
        self._heading(options, "Users", "users")
        if figures is None:
            return
        scope = "" if figures.complete else f" (in the first {figures.scanned} of {figures.total or 'more'})"
        largest = max((figures.counts.get(c, 0) for c, _, _ in USER_LINES), default=0)
        for condition, tab, label in USER_LINES:
            count = figures.counts.get(condition, 0)
            if condition == Condition.DORMANT:
                label = f"active but dormant for over {figures.dormant_days} days"
            style = "bold $warning" if condition == Condition.PENDING and count else ""
            self._line(options, f"users.{tab}", f"{count:>5} {bar(count, largest):<12} {label}{scope}",
                       ("users", AreaRequest(scope=tab)), style)

    def _registry_lines(self, options: list[Option | None]) -> None:
        session = context_of(self).session
        if session is None:
            return
        instance = session.client.settings.base_url
        known_repositories = known_for(session.client)
        largest = known_repositories.largest(instance)
        locked = LOCKS.locked(instance)
        if not largest and not locked:
            return
        self._heading(options, "Registry (repositories read in this run; size = unique blobs)")
        top = largest[0].bytes if largest else 0
        for known in largest:
            self._line(options, f"registry.size.{known.repository_id}", registry_line(known, top),
                       ("registry", AreaRequest(scope=known.project)))
        for repository_id, left in locked:
            locked_repo = known_repositories.get(instance, repository_id)
            where = locked_repo.path if locked_repo else f"repository #{repository_id}"
            scope = locked_repo.project if locked_repo else None
            self._line(options, f"registry.lock.{repository_id}",
                       f"cleanup lock on {where}: next bulk delete in {int(left // 60)} min",
                       ("registry", AreaRequest(scope=scope)), "$warning")

    def _certificate_lines(self, options: list[Option | None]) -> None:
        figures = self.certificates
        if figures is None and "certificates" not in self.errors:
            return
        self._heading(options, "Pages certificates", "certificates")
        if figures is None:
            return
        if not figures.expired and not figures.soon:
            self._line(options, "pages.ok", f"none expired or expiring within 30 days ({figures.scanned} "
                       "domains)", ("pages", AreaRequest()), "$success")
        for i, domain in enumerate(figures.expired):
            self._line(options, f"pages.expired.{i}", f"expired: {domain.domain}", ("pages", AreaRequest()),
                       "bold $error")
        for i, domain in enumerate(figures.soon):
            self._line(options, f"pages.soon.{i}", f"expires within 30 days: {domain.domain}",
                       ("pages", AreaRequest()), "$warning")

    def _deployment_lines(self, options: list[Option | None]) -> None:
        figures = self.failed
        if figures is None and "failed" not in self.errors:
            return
        scope = scope_words(figures.groups, figures.projects) if figures is not None else "what you opened"
        self._heading(options, f"Failed deployments, last 24 hours, in {scope}", "failed")
        if figures is None:
            return
        where = ("deployments", AreaRequest(scope=figures.groups[0] if figures.groups else None))
        self._line(options, "deploy.count", failed_count_line(figures), where,
                   "$error" if figures.count else "$success")
        listed = figures.failed[:FAILED_SHOWN]
        for i, failed in enumerate(listed):
            d = failed.deployment
            env = getattr(getattr(d, "environment", None), "name", "") or ""
            self._line(options, f"deploy.{i}", f"{failed.project} → {env}: {d.ref or ''} #{d.iid or d.id}",
                       ("deployments", AreaRequest(scope=failed.project)), "$error")
        if figures.count > len(listed):
            self._line(options, "deploy.more", f"and {figures.count - len(listed):,} more", where)

    def _job_lines(self, options: list[Option | None]) -> None:
        jobs = context_of(self).jobs
        running = [j for j in jobs.jobs if j.state in (JobState.RUNNING, JobState.QUEUED)]
        failed = [j for j in jobs.jobs if j.outcome in (JobOutcome.FAILED, JobOutcome.PARTLY_FAILED)]
        if not running and not failed:
            return
        self._heading(options, "Tasks of this session")
        if running:
            self._line(options, "jobs.running", f"{len(running)} running: "
                       + ", ".join(j.title for j in running[:3]), ("tasks", AreaRequest()))
        if failed:
            self._line(options, "jobs.failed", f"{len(failed)} failed or with failed items: "
                       + ", ".join(j.title for j in failed[:3]), ("tasks", AreaRequest()), "$error")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        target = self.targets.get(event.option.id or "")
        if target is not None:
            self.app.open_area(target[0], target[1])  # type: ignore[attr-defined]


class OverviewScreen(LabdeckScreen):
    AREA = "overview"
    TITLE = "Overview"
    FOOTER_PANES = {"": ("select", "refresh")}

    def compose_body(self) -> ComposeResult:
        yield OverviewPanel(id="overview")

    def on_mount(self) -> None:
        self.query_one("#overview-lines", OptionList).focus()

    def refresh_data(self) -> None:
        self.query_one(OverviewPanel).load()

    def on_screen_resume(self) -> None:  # (the base's handler runs too: Textual calls each class's)
        self.query_one(OverviewPanel).follow_scope()


def open_overview(request: AreaRequest) -> OverviewScreen:
    """The area factory (`:overview`)."""
    return OverviewScreen()
