"""The cleanup policy panel (`p` on `:registry`): a project's container registry cleanup policy, what its
next run deletes on every repository and why, and an editor whose preview follows every change.

The values offered are the ones GitLab accepts (`domain.cleanup_policy`: cadence, keep_n, older_than as
lists, `older_than` as the instance's version has them (`60d` from 14.4), the two patterns as RE2 text
checked as typed). An editor never changes what the operator did not change (`domain.kept_values`): a
stored value labdeck does not offer is shown as it is ("45d (not a value labdeck knows)") and kept, a field
left as it was filled is read back as loaded, and a save sends only the values the operator changed. The
simulation is `api.cleanup_policy`'s (GitLab's own run: latest kept, anchored patterns, keep wins, keep_n by
date, older_than, protection rules, the per-run limit), recomputed without a request as the operator edits;
each tag says which rule decided it (`domain.cleanup_reasons`, the wording of the bulk preview), and a
disabled policy's rows say `would delete`: nothing is deleted until it is enabled.
`ctrl+s` saves with `PUT /projects/:id` after a confirmation that names each change (refused before sending
when GitLab would refuse; after a lost answer the policy is read back), journalled with the old policy as its
undo. Server text is shown as `rich.text.Text`, never markup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Input, Label, Select, Static

from labdeck.api.cleanup_policy import ProjectSimulation
from labdeck.api.registry import format_age, format_size
from labdeck.domain.cleanup_policy import CADENCES, KEEP_N_VALUES, OLDER_THAN_VALUES, Policy
from labdeck.domain.cleanup_reasons import outcome_words, reason_words, runs, verdict_word
from labdeck.domain.kept_values import as_loaded, kept_choices
from labdeck.domain.registry_cleanup import TagInfo
from labdeck.domain.registry_sizes import size_text
from labdeck.tui.clock import Now, now_of
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column
from labdeck.tui.workers import is_live

TABLE_DELAY = 0.15  # seconds of quiet editing before the tag table is rebuilt
NONE = "none"
_SELECTS = {  # the values offered (older_than's as the instance's version has them, when known: `choices`)
    "policy-enabled": [("on", "on"), ("off", "off")],
    "policy-cadence": [(c, c) for c in CADENCES],
    "policy-keep-n": [(NONE, NONE), *((str(n), str(n)) for n in KEEP_N_VALUES)],
    "policy-older-than": [(NONE, NONE), *((v, v) for v in OLDER_THAN_VALUES)],
}
# each field: the policy's attribute, its value as its widget holds it, and the widget's value read back
_FIELDS: dict[str, tuple[str, Callable[[Policy], str], Callable[[str], object]]] = {
    "policy-enabled": ("enabled", lambda p: "on" if p.enabled else "off", lambda v: v == "on"),
    "policy-cadence": ("cadence", lambda p: p.cadence, str),
    "policy-keep-n": ("keep_n", lambda p: NONE if p.keep_n is None else str(p.keep_n),
                      lambda v: None if v == NONE else int(v)),
    "policy-older-than": ("older_than", lambda p: p.older_than or NONE, lambda v: None if v == NONE else v),
    "policy-regex": ("name_regex", lambda p: p.name_regex or "", str),
    "policy-keep": ("name_regex_keep", lambda p: p.name_regex_keep or "", lambda v: v or None),
}
_LABELS = {"policy-enabled": "Enabled", "policy-cadence": "Runs every", "policy-keep-n": "Keep newest",
           "policy-older-than": "Older than", "policy-regex": "Remove (RE2)", "policy-keep": "Keep (RE2)"}
_INPUTS = ("policy-regex", "policy-keep")


@dataclass(frozen=True, slots=True)
class PolicyRow:
    """One tag of the preview: its repository, the tag, what the next run does with it (`verdict`: `delete`,
    `keep`, or `would delete` when the policy is disabled) and which rule decided (`why`)."""

    repository: str
    tag: TagInfo
    deleted: bool
    why: str
    verdict: str = ""

    @property
    def key(self) -> str:
        return f"{self.repository}:{self.tag.name}"


def _verdict(row: PolicyRow) -> Text:
    if not row.deleted:
        return Text(row.verdict or "keep", style="green")
    return Text(row.verdict or "delete", style="bold red" if row.verdict != "would delete" else "yellow")


def policy_columns(now: Callable[[], datetime]) -> list[Column]:
    """The preview's columns (a tag's age is told as of `now()`)."""
    return [
        Column("verdict", "", width=12, text=_verdict,
               data=lambda r: r.verdict or ("delete" if r.deleted else "keep")),
        Column("repository", "Repository", min_width=10, text=lambda r: r.repository,
               data=lambda r: r.repository),
        Column("tag", "Tag", min_width=14, text=lambda r: r.tag.name, data=lambda r: r.tag.name),
        Column("age", "Age", width=5, align="right", text=lambda r: format_age(r.tag.created_at, now()),
               data=lambda r: r.tag.created_at),  # when it was created
        Column("size", "Size", width=8, align="right", text=lambda r: format_size(r.tag.total_size),
               data=lambda r: r.tag.total_size),  # bytes: all its layers (GitLab's total_size)
        Column("reason", "Reason (the rule that decided)", min_width=10, text=lambda r: r.why,
               data=lambda r: r.why),
    ]


def _said(value: object) -> str:
    return "none" if value is None else repr(value) if isinstance(value, str) else str(value).lower()


def summary_text(sim: ProjectSimulation) -> Text:
    """What the next run does (or, for a disabled policy, that nothing is deleted and what a run would
    delete), its schedule, limits and why, in words (`domain.cleanup_reasons`)."""
    policy = sim.policy
    frees = f"{size_text(sim.freed)}, blobs no kept tag uses"
    said = outcome_words(policy, sim.deleted_count, frees)
    text = Text(f"enabled: {said}" if runs(policy) else said, style="bold")
    if sim.when is not None:
        text.append(f"; {sim.when.describe()}", style="")
    text.append(f"\nper-run limit {sim.max_list_size} ({sim.limit_source}); protection rules: ", style="dim")
    text.append("unknown" if sim.protected is None else (", ".join(sim.protected) or "none"), style="dim")
    for line in sim.why:
        text.append(f"\n• {line}")
    return text


def rows_of(sim: ProjectSimulation) -> list[PolicyRow]:
    """Deleted tags first, then the kept ones; each group by repository and name."""
    rows: list[PolicyRow] = []
    policy = sim.policy
    older_than = policy.older_than if policy is not None else None
    for repo in sim.repositories:
        plan = repo.plan
        if plan is None:
            continue
        name = repo.repository.name or "(root)"
        rows.extend(PolicyRow(name, tag, plan.reasons[i].deleted,
                              reason_words(plan.reasons[i], keep_n=plan.keep_n, older_than=older_than),
                              verdict_word(plan.reasons[i].deleted, policy))
                    for i, tag in enumerate(plan.tags))
    rows.sort(key=lambda r: (not r.deleted, r.repository, r.tag.name))
    return rows


class CleanupPolicyScreen(LabdeckScreen):
    FOOTER_PANES = {
        "typing": ("save", "move_focus(1)", "back", "command_palette"),
        "": ("save", "select", "open_filter", "cycle_sort", "toggle_detail"),
    }
    AREA = "registry"
    TITLE = "Cleanup policy"
    CSS_PATH = "policy.tcss"
    MUTATING_ACTIONS = frozenset({"save"})
    BINDINGS = [Binding("ctrl+s", "save", "Save…", priority=True, id="registry_policy.save")]

    def __init__(self, project: int | str, *, now: Now | None = None) -> None:
        super().__init__()
        self.project = project
        self.now = now_of(self, now)
        self.sim: ProjectSimulation | None = None
        self.loaded: Policy | None = None
        self._filled: dict[str, str] = {}  # what `fill` put in each field
        self._filling = False
        self._table_timer: Timer | None = None

    def compose_body(self) -> ComposeResult:
        yield Static(Text(f"Cleanup policy of {self.project}: reading…", style="bold"), id="policy-title")
        with Horizontal(id="policy-fields"):
            for key, options in _SELECTS.items():
                with Vertical(classes="policy-field", id=f"{key}-box"):
                    yield Label(_LABELS[key], classes="policy-label")
                    yield Select(options, allow_blank=False, compact=True, id=key)
            for key in _INPUTS:
                with Vertical(classes="policy-field policy-pattern", id=f"{key}-box"):
                    yield Label(_LABELS[key], classes="policy-label")
                    yield Input(compact=True, id=key, placeholder="none" if key == "policy-keep" else ".*")
        yield Static("", markup=False, id="policy-errors")
        yield Static("", markup=False, id="policy-summary")
        yield ResourceView(policy_columns(self.now), row_key=lambda r: r.key, empty_text="No tags",
                           id="policy-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#policy-view", ResourceView).table

    def on_mount(self) -> None:
        self.query_one("#policy-errors", Static).display = False
        self.load()

    def refresh_data(self) -> None:
        self.load()

    @work(exclusive=True, group="registry-policy")
    async def load(self) -> None:
        service = self.ctx.services.cleanup_policy
        # a clock given, or the instance's time once its answers told it (the service's default)
        sim = await service.simulate(self.project, now=self.now())
        if not is_live(self):
            return
        self.sim, self.loaded = sim, sim.policy
        title = Text(f"Cleanup policy of {sim.path or self.project}", style="bold")
        self.query_one("#policy-title", Static).update(title)
        self.fill(sim.policy or Policy())
        self.recompute()
        self.mark_data_loaded()

    # -- the editor -----------------------------------------------------------------------------------
    def choices(self, key: str) -> list[tuple[str, str]]:
        """The values a select offers (`older_than`'s as the instance's version has them)."""
        if key == "policy-older-than" and self.ctx.connected:  # else: nothing known of the instance yet
            return [(NONE, NONE), *((v, v) for v in self.ctx.services.cleanup_policy.older_than_values())]
        return _SELECTS[key]

    def fill(self, policy: Policy) -> None:
        """Every field shows the policy's value as it is, even one labdeck does not offer (with a note)."""
        self._filling = True
        try:
            for key, (_name, held, _parse) in _FIELDS.items():
                value = held(policy)
                widget = self.query_one(f"#{key}")
                if isinstance(widget, Select):
                    widget.set_options(kept_choices(self.choices(key), value))
                widget.value = value  # type: ignore[attr-defined]  # a Select or an Input
                self._filled[key] = value
        finally:
            self._filling = False

    def read_policy(self) -> Policy:
        """The policy as edited: a field left as filled is the value loaded, a changed one as chosen or
        typed (patterns exactly as typed; an empty keep pattern is none)."""
        base = self.loaded or Policy()
        values = {}
        for key, (name, _held, parse) in _FIELDS.items():
            shown = str(self.query_one(f"#{key}").value)  # type: ignore[attr-defined]  # a Select or an Input
            values[name] = as_loaded(shown, self._filled.get(key, ""), getattr(base, name), parse)
        return replace(base, **values)

    def recompute(self) -> None:
        """The preview of the edited policy: summary at once, the tag table after a pause."""
        if self.sim is None:
            return
        policy = self.read_policy()
        errors = (self.ctx.services.cleanup_policy.errors(policy, self.loaded) if self.ctx.connected
                  else policy.errors())
        for key, name in (("policy-regex", "name_regex"), ("policy-keep", "name_regex_keep")):
            self.query_one(f"#{key}", Input).set_class(name in errors, "-invalid")
        shown = self.query_one("#policy-errors", Static)
        shown.update(Text("GitLab would refuse: " + "; ".join(f"{k} {v[0]}" for k, v in errors.items()),
                          style="bold red") if errors else "")
        shown.display = bool(errors)
        self.sim.replan(policy)
        self.query_one("#policy-summary", Static).update(summary_text(self.sim))
        if self._table_timer is not None:
            self._table_timer.stop()
        self._table_timer = self.set_timer(TABLE_DELAY, self.flush_table)

    def flush_table(self) -> None:
        self._table_timer = None
        if self.sim is not None:
            self.table.set_rows(rows_of(self.sim))

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if not self._filling:
            self.recompute()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id in _INPUTS:
            event.stop()
            if not self._filling:
                self.recompute()

    # -- saving ---------------------------------------------------------------------------------------
    def action_save(self) -> None:
        if self.sim is None:
            return
        service = self.ctx.services.cleanup_policy
        policy = self.read_policy()
        if errors := service.errors(policy, self.loaded):
            refused = "; ".join(f"{k} {v[0]}" for k, v in errors.items())
            self.notify(f"Not saved: GitLab would refuse {refused}", severity="error", markup=False)
            return
        changes = policy.changed_attributes(self.loaded)
        if not changes:
            self.notify("Nothing to save: the policy is as it was read", markup=False)
            return
        if self.loaded is None:  # nothing could be read: every value is sent, as shown
            said = "every value (the project's policy could not be read)"
        else:
            old = self.loaded.attributes()
            said = "; ".join(f"{name} {_said(old[name])} → {_said(value)}" for name, value in changes.items())
        message = Content.from_markup(
            "Save this cleanup policy for [b]$project[/b]? It changes $changes (nothing else is sent). Its "
            "next run would delete $count tags; GitLab starts the interval again from now. The change can be "
            "undone from the journal.",
            project=self.sim.path or str(self.project), changes=said, count=f"{self.sim.deleted_count:,}")

        def answered(yes: bool | None) -> None:
            if yes:  # saved: the editing is over; the focus leaves the field for the preview's tags
                self.leave_field()
                self.save(policy)

        self.app.push_screen(ConfirmScreen("Save cleanup policy", message), answered)

    @work(exclusive=True, group="registry-policy-save")
    async def save(self, policy: Policy) -> None:
        saved = await self.ctx.services.cleanup_policy.save(self.project, policy, loaded=self.loaded)
        if is_live(self):
            self.notify(f"Cleanup policy saved; next run {saved.next_run_at:%Y-%m-%d %H:%M} UTC"
                        if saved.next_run_at else "Cleanup policy saved", markup=False)
            self.load()
