"""The row actions of `:issues`: on the issue under the cursor, edit (`e`), comment (`c`), time tracking
(`t`), promote to an epic (`p`), copy its reference (`y`) and list its links (`l`); on the marked issues, a
bulk action (`b`) run as one job with a result per issue. Every write goes through `open_write_form` (the
form sends it and re-reads after a lost answer) or `start_bulk`.

`IssueActions` is a mixin of `IssuesScreen` (`issues.py`) and of the project view's Issues tab, which provide
`table`, `extras` and `updated()` (declared for the type checker in `IssuesHost` below); the service is the
session's (`ctx.services.issues`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from textual import work
from textual.content import Content

from labdeck.api.errors import LabdeckError, lost_write
from labdeck.api.issues import BulkAction as IssueChange
from labdeck.api.issues import BulkKind
from labdeck.api.models.issues import Issue, TimeStats
from labdeck.domain.label_edits import LabelEdit, split_labels
from labdeck.domain.text import status_line
from labdeck.tui.bulk import BulkAction, BulkQuestion, confirm_bulk, start_bulk
from labdeck.tui.jobs import Job
from labdeck.tui.links import copy_text, open_link
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.issues.dialogs import (
    BULK_CHOICES,
    BulkMenu,
    CommentScreen,
    EditIssueScreen,
    LinkMenu,
    PromptScreen,
    bulk_completion,
    bulk_question,
    bulk_replaces,
    links_in,
)
from labdeck.tui.screens.issues.time_tracking import TimeRequest, TimeTrackingScreen, stats_text, time_applied
from labdeck.tui.screens.scope_choice import Scope, choose_scope
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form

if TYPE_CHECKING:
    from labdeck.api.issue_scopes import GroupId
    from labdeck.api.issues import IssuesService
    from labdeck.tui.screens.base import LabdeckScreen
    from labdeck.tui.screens.issues.render import Extras
    from labdeck.tui.widgets.resource_table import ResourceTable

    class IssuesHost(LabdeckScreen):
        """The members of `IssuesScreen` its actions use (see there for what each means)."""

        extras: dict[int, Extras]
        stale_extras: set[int]
        group: GroupId | None

        @property
        def table(self) -> ResourceTable: ...
        def updated(self, issue: Issue) -> None: ...
else:
    IssuesHost = object

_PROMPTS: Final[dict[str, tuple[str, str]]] = {
    "add_labels": ("Labels to add (comma-separated)", "bug, needs-review"),
    "remove_labels": ("Labels to remove (comma-separated)", "wontfix"),
    "assign": ("Assign to (usernames, comma-separated)", "alice, bob"),
    "set_milestone": ("Milestone title (empty removes the milestone)", "v2.0"),
}


class IssueActions(IssuesHost):
    """The row and bulk actions of `IssuesScreen`; see the module docstring."""

    # -- single-issue actions -------------------------------------------------------------------------
    def current(self) -> Issue | None:
        """The issue under the cursor; with none (an empty list), says so rather than doing nothing."""
        row = self.table.cursor_row
        if not isinstance(row, Issue):
            self.notify("No issue under the cursor", severity="warning", markup=False)
            return None
        return row

    def _write_target(self) -> tuple[Issue, IssuesService] | None:
        """The issue under the cursor and the service to write it with (None when there is no issue)."""
        issue = self.current()
        return None if issue is None else (issue, self.ctx.services.issues)

    def action_copy_reference(self) -> None:
        issue = self.current()
        if issue is not None:
            copy_text(self.app, issue.reference, "reference")

    def action_links(self) -> None:
        """Choose a link of the description or the loaded notes to open (never opened by themselves)."""
        issue = self.current()
        if issue is None:
            return
        extras = self.extras.get(issue.id)
        texts = [issue.description or "", *(n.body for n in (extras.notes if extras else []))]
        urls = links_in("\n".join(texts))
        if not urls:
            self.notify("No links in this issue", severity="warning", markup=False)
            return

        def chosen(url: str | None) -> None:
            if url:
                open_link(self.app, url)

        self.app.push_screen(LinkMenu(issue.reference, urls), chosen)

    def action_edit(self) -> None:
        target = self._write_target()
        if target is None:
            return
        issue, service = target
        pid, iid = issue.project_id, issue.iid

        async def saved_already(changes: dict[str, str]) -> bool:  # after a lost answer: GET and compare
            fresh = await service.get_issue(pid, iid)
            edit = LabelEdit(tuple(split_labels(changes.get("add_labels", ""))),
                             tuple(split_labels(changes.get("remove_labels", ""))))
            return (edit.applied_to(fresh.label_names) and fresh.title == changes.get("title", fresh.title)
                    and (fresh.description or "").rstrip() == changes.get("description",
                                                                          fresh.description or "").rstrip())

        def edited(result: Issue | dict[str, str] | None) -> None:
            if isinstance(result, Issue):
                self.notify("saved", title=issue.reference, markup=False, timeout=4)
                self.updated(result)

        open_write_form(self, EditIssueScreen(issue.reference, issue.title, issue.label_names,
                                             issue.description or ""),
                        lambda changes: service.update_issue(pid, iid, **changes), verify=saved_already,
                        row=issue, done=edited, refresh=lambda: self.refresh_issue(issue))

    def action_comment(self) -> None:
        target = self._write_target()
        if target is None:
            return
        issue, service = target
        pid, iid = issue.project_id, issue.iid

        async def present(body: str) -> bool:  # after a lost answer: is the comment there?
            return any(note.body == body for note in await service.notes(pid, iid, refresh=True))

        def sent(note: object) -> None:
            if note is not None:
                self.notify("comment added", title=issue.reference, markup=False, timeout=4)
                self.refresh_issue(issue)

        editor = CommentScreen(Content.from_markup("Comment on [b]$ref[/b]", ref=issue.reference))
        open_write_form(self, editor, lambda body: service.add_note(pid, iid, body), verify=present,
                        row=issue, done=sent, refresh=lambda: self.refresh_issue(issue))

    @work(group="issues-single")
    async def refresh_issue(self, issue: Issue) -> None:
        """Re-read one issue (and its notes) after a write, done or not known."""
        service = self.ctx.services.issues
        self.stale_extras.add(issue.id)
        self.updated(await service.get_issue(issue.project_id, issue.iid))

    def action_time_tracking(self) -> None:
        issue = self.current()
        if issue is None:
            return
        service = self.ctx.services.issues
        pid, iid = issue.project_id, issue.iid
        before: dict[str, TimeStats] = {}

        async def track(request: TimeRequest) -> TimeStats:  # the stats are read first, to check with
            before["stats"] = await service.time_stats(pid, iid)
            return await service.track_time(pid, iid, request.action, request.duration)

        async def applied(request: TimeRequest) -> bool:
            return "stats" in before and time_applied(request, before["stats"],
                                                      await service.time_stats(pid, iid))

        def tracked(stats: TimeStats | None) -> None:
            if isinstance(stats, TimeStats):
                self.notify(f"time: {stats_text(stats).plain}", title=issue.reference, markup=False,
                            timeout=4)
                self.refresh_issue(issue)

        open_write_form(self, TimeTrackingScreen(issue.reference, issue.time_stats), track, verify=applied,
                        row=issue, done=tracked, refresh=lambda: self.refresh_issue(issue))

    def action_promote(self) -> None:
        issue = self.current()
        if issue is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_single(issue, "promote", {})

        # GitLab closes a promoted issue (a closed one stays closed): said as what will happen
        after = "It stays closed." if issue.state == "closed" else "The issue will be closed."
        self.app.push_screen(ConfirmScreen(
            "Promote to an epic",
            Content.from_markup("Promote [b]$ref[/b] to an epic of its group? $after",
                                ref=issue.reference, after=after),
            confirm_label="Promote"), answered)

    @work(group="issues-single")
    async def run_single(self, issue: Issue, what: str, args: dict[str, Any]) -> None:
        service = self.ctx.services.issues
        pid, iid = issue.project_id, issue.iid
        try:
            if what == "update":
                await service.update_issue(pid, iid, **args)
                message = "saved"
            elif what == "comment":
                await service.add_note(pid, iid, args["body"])
                message = "comment added"
            elif what == "promote":
                promoted = await service.promote(pid, iid)
                message = ("promoted to an epic" if promoted
                           else "not promoted (needs a group project and Reporter)")
            else:
                stats = await service.track_time(pid, iid, what, args.get("duration"))
                message = f"time: {stats_text(stats).plain}"
            fresh = await service.get_issue(pid, iid)
        except LabdeckError as exc:
            lost = lost_write(exc)  # "the server may have applied this": read the issue again
            self.notify(self.ctx.describe(exc), title=issue.reference, markup=False, timeout=8,
                        severity="warning" if lost else "error")
            if lost:
                self.refresh_issue(issue)
            return
        self.notify(message, title=issue.reference, markup=False, timeout=4)
        self.updated(fresh)

    # -- bulk -----------------------------------------------------------------------------------------
    def action_bulk(self) -> None:
        issues = [row for row in self.table.marked_rows if isinstance(row, Issue)]
        if not issues:
            self.notify("Mark issues with space first", severity="warning", markup=False)
            return
        choose_scope(self, self.table, issues, "marked", "Bulk", self.bulk_menu)  # a partial list: which

    def bulk_menu(self, scope: Scope[Issue]) -> None:
        issues = list(scope.rows)

        def chosen(kind: BulkKind | None) -> None:
            if kind is None:
                return
            if kind not in _PROMPTS:
                self.confirm_bulk(issues, kind, "", scope)
                return
            title, example = _PROMPTS[kind]
            self.app.push_screen(
                PromptScreen(title, example, allow_empty=kind == "set_milestone",
                             complete=bulk_completion(kind, issues, self.group)),
                lambda text: None if text is None else self.confirm_bulk(issues, kind, text, scope))

        self.app.push_screen(BulkMenu(len(issues)), chosen)

    def confirm_bulk(self, issues: list[Issue], kind: BulkKind, text: str,
                     scope: Scope[Issue] | None = None) -> None:
        names = tuple(part.strip().lstrip("@") for part in text.split(",") if part.strip())
        label = BULK_CHOICES[kind].rstrip("…")
        named = f"{label} {text}" if text else label  # "Assign to alice"
        title = f"{named} ({len(issues)} issue{'' if len(issues) == 1 else 's'})"
        question = bulk_question(kind, text, len(issues))
        replaces = bulk_replaces(kind, issues, names, text)
        if scope is not None and scope.partial:  # say how much of the listing it covers
            title = f"{named} ({scope.text})"
            question = f"{named}: {scope.text}" + (", read first?" if scope.all_matching else "?")
            if replaces and scope.all_matching:
                replaces += " of those loaded"  # the rest is read when it runs
        message = Content.assemble(question + " ",
                                   "Those the server refuses are listed in the task's results.")
        action = self.bulk_action(issues, kind, names, text, title, scope)
        confirm_bulk(self, action, BulkQuestion(title, message, label,
                                                danger=kind in ("close", "unassign", "remove_labels"),
                                                replaces=replaces),
                     table=self.table)

    def run_bulk(self, issues: list[Issue], kind: BulkKind, names: tuple[str, ...], text: str,
                 title: str, scope: Scope[Issue] | None = None) -> Job:
        """Apply the change to `issues` now (no confirmation): the job."""
        return start_bulk(self, self.bulk_action(issues, kind, names, text, title, scope), table=self.table)

    def bulk_action(self, issues: list[Issue], kind: BulkKind, names: tuple[str, ...], text: str,
                    title: str, scope: Scope[Issue] | None = None) -> BulkAction[Issue]:
        """The change of `kind` (with `names` or `text`) to every issue of `issues` (or all matching, with
        `scope`), as one bulk action."""
        service = self.ctx.services.issues
        change = IssueChange(kind, labels=names, milestone_title=text if kind == "set_milestone" else "")

        async def resolve_users(job: Job) -> None:
            nonlocal change
            if kind == "assign":
                ids = await service.find_user_ids(names)
                for name in names:
                    if name not in ids:
                        job.add_result(f"@{name}", False, "unknown user", advance=False)
                change = IssueChange("assign", user_ids=tuple(ids.values()))

        async def apply(issue: Issue) -> tuple[bool, str]:
            result = await service.apply(issue, change)
            if result.issue is not None and is_live(self):
                self.updated(result.issue)
            return result.ok, result.message if result.ok else status_line(result.status, result.message)

        return BulkAction(title, issues, lambda issue: issue.reference, apply, noun="issue", verb="updated",
                          prepare=resolve_users, scope=scope)
