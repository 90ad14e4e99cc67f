"""The cleanup panel: bulk tag delete rules with an exact preview, recomputed as you type.

The rules (`name_regex_delete`, `name_regex_keep`, `keep_n`, `older_than`) go through the same planner the
sandbox applies (`domain.registry_cleanup.CleanupPlanner`, built once per tag set); the rows, summary and
histogram are drawn by `cleanup_preview`. Every keystroke updates the counts per reason, the space freed
(the blobs no kept tag uses, `domain.registry_sizes`) and a histogram of tag ages with the cut-off; the tag
table (decision, and which rule decided, per tag) follows after a short pause in typing, so a 20,000-tag
repository stays responsive.
Invalid patterns (RE2) and durations are flagged while typing.

`ctrl+s` applies, from a rule field too (`a` does as well from the tag table; in a field it is a
letter): the repository's path must be typed, and exactly the names the preview listed are deleted, never
the rules (`api.registry_exact`), then the repository is read back and any difference is a failed item of
the job. The once-an-hour lock of bulk requests is shown with the time until the next allowed call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Button, Input, Label, Static

from labdeck.api.models.registry import RegistryRepository, RegistryTagDetail
from labdeck.api.registry import format_wait
from labdeck.api.registry_exact import delete_exactly
from labdeck.domain.digits import parse_integer
from labdeck.domain.journal_rules import REGISTRY_NO_INVERSE
from labdeck.domain.registry_cleanup import (
    CleanupPlan,
    CleanupPlanner,
    CleanupRules,
    Reason,
    exact_rules,
    newest_first,
    preview_order,
)
from labdeck.domain.registry_sizes import size_text
from labdeck.tui.bulk import targets_text
from labdeck.tui.clock import Now, now_of
from labdeck.tui.context import context_of
from labdeck.tui.jobs import Job, counted, poll_until
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.screens.registry.cleanup_preview import (
    HEIGHT,
    PlannedTag,
    age_histogram,
    plan_columns,
    planned_detail,
    static_cells,
    summary_text,
    timestamps,
    why_text,
)
from labdeck.tui.screens.registry.registry import POLL_TIMEOUT
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.workers import is_live

TABLE_DELAY = 0.15  # seconds of quiet typing before the tag table is rebuilt
_INPUTS = ("cleanup-delete", "cleanup-keep", "cleanup-keep-n", "cleanup-older-than")
_FIELDS = (("cleanup-delete", "Delete (RE2)", "e.g. .*"), ("cleanup-keep", "Keep (RE2)", "e.g. v.*"),
           ("cleanup-keep-n", "Keep N newest", "e.g. 5"), ("cleanup-older-than", "Older than", "e.g. 30d"))
SHORT = 30  # below this many rows the histogram shrinks, so the tag table keeps room


class RegistryCleanupScreen(LabdeckScreen):
    FOOTER_PANES = {
        "typing": ("apply", "move_focus(1)", "back", "command_palette"),  # in a rule field (enter: next)
        "": ("apply", "select", "open_filter", "cycle_sort", "toggle_detail"),
    }
    AREA = "registry"
    TITLE = "Registry cleanup"
    CSS_PATH = "registry.tcss"  # shared with the tags screen: opening the panel parses no new CSS
    MUTATING_ACTIONS = frozenset({"apply"})
    BINDINGS = [
        # a chord with priority: it works while a rule field has focus, where `a` is a letter typed
        Binding("ctrl+s", "apply", "Apply…", priority=True, id="registry_cleanup.apply_chord"),
        Binding("a", "apply", "Apply…", show=False, id="registry_cleanup.apply"),
    ]

    def __init__(self, repository: RegistryRepository, tags: list[RegistryTagDetail], *,
                 now: Now | None = None, on_deleted: Callable[[set[str]], None] | None = None,
                 on_layers: Callable[[list[RegistryTagDetail]], None] | None = None) -> None:
        super().__init__()
        self.on_deleted = on_deleted  # the tag list under the panel, told when a cleanup job finished
        self.on_layers = on_layers  # and told the tags with their layers, once read here
        self.repository = repository
        self.now = now_of(self, now)
        self.tags = list(tags)
        self.planner = CleanupPlanner([t.to_tag_info() for t in self.tags])
        self._fixed = static_cells(self.tags, self.now())
        self._order = newest_first(self.tags)
        self._times: list[float | None] | None = None
        self.rules: CleanupRules | None = None
        self.plan: CleanupPlan | None = None
        self._table_timer: Timer | None = None
        self.layers_wanted = False  # the tags lack layers: read them once a plan is shown
        self.reading_layers = False

    @property
    def repo_label(self) -> str:
        return self.repository.path or self.repository.display_name

    def compose_body(self) -> ComposeResult:
        yield Static(Text(f"Cleanup of {self.repo_label}: {len(self.tags):,} tags", style="bold"),
                     id="cleanup-title")
        with Horizontal(id="cleanup-rules"):  # every field has a label: a placeholder goes once typed in
            for key, label, example in _FIELDS:
                with Vertical(classes="cleanup-field", id=f"{key}-box"):
                    yield Label(label, classes="cleanup-label")
                    yield Input(placeholder=example, id=key,
                                restrict=r"[0-9-]*" if key == "cleanup-keep-n" else None)
            yield Button("Apply…", id="cleanup-apply", variant="error")
        yield Static("", markup=False, id="cleanup-errors")
        yield Static("", markup=False, id="cleanup-summary")
        yield Static("", markup=False, id="cleanup-lock")
        yield Static("", markup=False, id="cleanup-histogram")
        yield ResourceView(plan_columns(self._fixed), row_key=lambda r: r.name,
                           detail=planned_detail, enter_opens_detail=True,
                           empty_text="Enter a delete pattern to see the plan", id="cleanup-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#cleanup-view", ResourceView).table

    @property
    def histogram_height(self) -> int:
        return 2 if self.size.height and self.size.height < SHORT else HEIGHT

    def on_resize(self) -> None:
        short = bool(self.size.height and self.size.height < SHORT)
        if short != self.has_class("-short"):
            self.set_class(short, "-short")
            self.recompute()

    def on_mount(self) -> None:
        # read-only mode hides every mutating action: the button too, not only the key
        self.query_one("#cleanup-apply", Button).display = not context_of(self).read_only
        self.query_one("#cleanup-delete", Input).focus()
        self.update_lock()
        self.set_interval(1.0, self.update_lock)
        # the layers are read once a plan is shown (`flush_table`): only its frees figure needs them
        self.layers_wanted = any(t.layers is None and t.digest for t in self.tags) and \
            self.ctx.connected
        self.recompute()

    @work(exclusive=True, group="cleanup-layers")
    async def read_layers(self) -> None:
        """The manifests' layers, read once the preview's first plan is shown: only its frees figure needs
        them (a layer several images share counted once); until they come it is an upper bound and says so.
        A panel closed with no rule typed reads none."""
        try:
            repo = self.repository
            tags = await self.ctx.services.registry.add_layers(repo.project_id or 0, repo.id, self.tags,
                                                               path=repo.path)
        finally:
            self.reading_layers = False
        if [t.name for t in tags] != [t.name for t in self.tags]:  # a cleanup changed them meanwhile
            self.recompute()
            return
        self.tags = tags
        self.planner = CleanupPlanner([t.to_tag_info() for t in tags])
        self.recompute()
        if self.on_layers is not None:
            self.on_layers(tags)

    # -- rules and preview ----------------------------------------------------------------------------
    def read_rules(self) -> tuple[CleanupRules | None, list[str]]:
        """The rules as typed, and what is wrong with them (each bad input is flagged)."""
        values = {key: self.query_one(f"#{key}", Input).value.strip() for key in _INPUTS}
        problems: list[str] = []
        keep_n: int | None = None
        if values["cleanup-keep-n"]:
            keep_n = parse_integer(values["cleanup-keep-n"])
            if keep_n is None:
                problems.append("keep N must be a whole number (digits 0-9)")
        rules = CleanupRules(self.query_one("#cleanup-delete", Input).value, values["cleanup-keep"] or None,
                             keep_n, values["cleanup-older-than"] or None)
        problems += rules.errors()
        flags = {"cleanup-delete": "name_regex_delete:", "cleanup-keep": "name_regex_keep:",
                 "cleanup-keep-n": "keep", "cleanup-older-than": "older_than"}
        for key, word in flags.items():
            bad = any(p.startswith(word) or (word == "older_than" and "older_than" in p) for p in problems)
            self.query_one(f"#{key}", Input).set_class(bad, "-invalid")
        if rules.name_regex_delete == "":
            return None, problems
        return (None if problems else rules), problems

    def recompute(self) -> None:
        """Apply the typed rules now: summary and histogram at once, the table after a pause."""
        rules, problems = self.read_rules()
        errors = self.query_one("#cleanup-errors", Static)
        errors.update(Text("\n".join(problems), style="bold red"))
        errors.display = bool(problems)  # no blank line taken from the table when all is well
        self.rules = rules
        if rules is None:
            self.plan = None
            self.query_one("#cleanup-summary", Static).update(
                Text("Enter a delete pattern (RE2, whole tag name): .* matches every tag.", style="dim"))
            self.query_one("#cleanup-histogram", Static).update("")
        else:
            self.plan = self.planner.plan(rules, self.now())
            self.reading_layers = self.reading_layers or self.layers_wanted
            self.query_one("#cleanup-summary", Static).update(summary_text(self.plan,
                                                                           reading_layers=self.reading_layers))
            if self._times is None or len(self._times) != len(self.plan.tags):
                self._times = timestamps(self.plan)
            self.query_one("#cleanup-histogram", Static).update(
                age_histogram(self.plan, self.now(), times=self._times, height=self.histogram_height))
        self.query_one("#cleanup-apply", Button).disabled = not self.can_apply()
        if self._table_timer is not None:
            self._table_timer.stop()
        self._table_timer = self.set_timer(TABLE_DELAY, self.flush_table)

    def flush_table(self) -> None:
        """Rebuild the tag table from the current plan (newest first)."""
        self._table_timer = None
        plan = self.plan
        if plan is None:
            self.table.set_rows([])
            return
        rules = self.rules or CleanupRules("")
        words = {reason: why_text(reason, rules) for reason in Reason}
        reasons, tags = plan.reasons, self.tags
        self.table.set_rows([PlannedTag(i, tags[i], reasons[i], words[reasons[i]])
                             for i in preview_order(plan, self._order)])
        if self.layers_wanted:  # the plan is shown: now its frees figure's layers, without delaying it
            self.layers_wanted = False
            self.read_layers()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id in _INPUTS:
            event.stop()
            self.recompute()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter moves to the next rule, and from the last one to the table (where `a` applies)."""
        if event.input.id in _INPUTS:
            event.stop()
            index = _INPUTS.index(event.input.id)
            if index + 1 < len(_INPUTS):
                self.query_one(f"#{_INPUTS[index + 1]}", Input).focus()
            else:
                self.table.focus()

    # -- the lock -------------------------------------------------------------------------------------
    def lock_remaining(self) -> float | None:
        return self.ctx.services.registry.lock_remaining(self.repository.id)

    def update_lock(self) -> None:
        remaining = self.lock_remaining()
        lock = self.query_one("#cleanup-lock", Static)
        if remaining is not None:
            lock.update(Text(f"Bulk delete ran for this repository within the hour: next allowed in "
                             f"{format_wait(remaining)}; until then tags go one request each",
                             style="yellow"))
        else:
            lock.update(Text("Bulk delete: at most once an hour per repository", style="dim"))
        if self.is_mounted:
            self.query_one("#cleanup-apply", Button).disabled = not self.can_apply()

    def can_apply(self) -> bool:
        return (self.plan is not None and self.plan.deleted_count > 0
                and not context_of(self).read_only)

    # -- applying -------------------------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cleanup-apply":
            event.stop()
            self.action_apply()

    def action_apply(self) -> None:
        if context_of(self).read_only:  # however it was reached (a key is hidden already)
            return
        plan, rules = self.plan, self.rules
        if plan is None or rules is None or plan.deleted_count == 0:
            self.notify("Nothing to delete with these rules", severity="warning", markup=False)
            return
        names = [tag.name for tag in plan.to_delete()]
        how = ("one bulk request" if exact_rules(names) is not None and self.lock_remaining() is None
               else "one request per tag")
        message = Content.from_markup(
            "Delete exactly these $count tag(s) of [b]$repo[/b], freeing $size (blobs no kept tag uses, once "
            "garbage collection runs)? They are deleted by "
            "name ($how), so tags pushed since the preview are not touched; the repository is read back "
            "afterwards.", count=f"{plan.deleted_count:,}", repo=self.repo_label,
            size=size_text(plan.freed), how=how)
        named = Content(f"{counted(len(names), 'tag')}: {targets_text(names)}")  # as the bulk confirmations
        message = Content.assemble(message, "\n\n", named)

        def answered(yes: bool | None) -> None:
            if yes:  # applied: the focus leaves the rule field for the preview, where keys typed next go
                self.leave_field()
                self.start_bulk_delete(names)

        self.app.push_screen(TypeToConfirmScreen("Bulk delete tags", message, self.repo_label,
                                                 irreversible=REGISTRY_NO_INVERSE), answered)

    def start_bulk_delete(self, names: list[str]) -> Job | None:
        """Delete exactly `names` (what the preview listed), then report any difference the read-back
        finds as failed items: a name still there, or a name gone that the preview kept."""
        if self.repository.project_id is None:
            return None
        service = self.ctx.services.registry
        project, repo_id, targets = self.repository.project_id, self.repository.id, set(names)
        seen = [tag.name for tag in self.tags]

        async def run(job: Job) -> None:
            job.set_total(len(targets))

            async def wait_gone(remaining: Callable[[], Awaitable[set[str]]]) -> object:
                def done(left: set[str]) -> bool:
                    job.advance(len(targets) - len(left) - job.done)
                    return not left

                return await poll_until(remaining, done, max_interval=5.0, timeout=POLL_TIMEOUT)

            def item(name: str, ok: bool, message: str) -> None:
                if not ok:
                    job.add_result(name, False, message)
                else:
                    job.advance()

            outcome = await delete_exactly(service, project, repo_id, names, seen=seen, wait_gone=wait_gone,
                                           on_item=item)
            for name in outcome.found.left:
                if name not in outcome.refused:
                    job.add_result(name, False, "still there after the delete", advance=False)
            for name in outcome.found.extra:
                job.add_result(name, False, "gone, although the preview kept it", advance=False)
            gone = targets - set(outcome.found.left)
            job.set_summary(f"deleted {counted(len(gone), 'tag')} ({outcome.how})"
                            + ("" if outcome.found.exact else
                               f"; the read-back differs: {len(outcome.found.left)} left, "
                               f"{len(outcome.found.extra)} more deleted"))
            if is_live(self):
                self.update_lock()
                self.after_deletion(gone | set(outcome.found.extra))
            if self.on_deleted is not None:  # the list the job changed reloads, open panel or not
                self.on_deleted(gone)

        return self.ctx.start_job(f"Bulk delete {len(names):,} tag(s) of {self.repo_label}", run)

    def after_deletion(self, gone: set[str]) -> None:
        """The deleted tags leave the panel; the preview is recomputed on what is left."""
        self.tags = [tag for tag in self.tags if tag.name not in gone]
        self.planner = CleanupPlanner([t.to_tag_info() for t in self.tags])
        self._fixed[:] = static_cells(self.tags, self.now())  # in place: the columns hold it
        self._order = newest_first(self.tags)
        self._times = None
        self.query_one("#cleanup-title", Static).update(
            Text(f"Cleanup of {self.repo_label}: {len(self.tags):,} tags", style="bold"))
        self.recompute()
