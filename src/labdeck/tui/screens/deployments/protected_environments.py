"""Protected environments of a project (opened with `p` from `:deployments`): who may deploy where.

One row per deploy rule (environment, kind, who). `a` adds a rule with a picker: a role (Developer 30,
Maintainer 40, Admin 60), a user (username or id) or a group (full path or id); the form holds exactly one
of them, checked with the domain rule before anything is sent. `x` removes the rule under the cursor after
a confirmation (removing the last rule unprotects the environment). A change rewrites the environment's
rules as a whole, and both the form and the confirmation say so before it is sent: "replaces Maintainers
and carol with Maintainers" (`rules_replaced`). The server's refusals (a user without access, a group the
project is not shared with) show as notifications.

On GitLab 15.4 and later a rule is added or removed in one request (the environment stays protected, and
`:journal` can undo it). Before 15.4 GitLab can only unprotect and protect again: the confirmation says so
first (`two_step_risk`), and when protecting again fails the screen says so loudly and offers to protect
the environment again with its previous rules (`LeftUnprotected`).

Mutating actions are hidden in read-only mode. Server text is shown as `rich.text.Text`, never markup.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Select, Static

from labdeck.api.deployments import DeploymentsService, LeftUnprotected, NotSent, rule_of, two_step_risk
from labdeck.api.errors import ApiError, LabdeckError, NotFound
from labdeck.api.models.deployments import DeployAccessLevel, ProtectedEnvironment
from labdeck.domain.deployments import ACCESS_LEVELS, DeployRule, level_description, rule_problems
from labdeck.domain.features import PROTECTED_ENVIRONMENTS
from labdeck.domain.replacements import replaced_text
from labdeck.tui.capabilities import refused
from labdeck.tui.context import context_of
from labdeck.tui.kit.forms import FormDialog, Problem
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form

KINDS = ("role", "user", "group")


@dataclass(frozen=True)
class RuleRow:
    """One deploy rule of one protected environment, as a table row."""

    environment: str
    index: int
    level: DeployAccessLevel


@dataclass(frozen=True)
class RuleRequest:
    """What the add-rule form asks for: exactly one of a role level, a user or a group."""

    environment: str
    kind: str
    level: int | None = None
    who: str | None = None


def _target_value(row: RuleRow) -> int | None:
    """The user id, the group id or the access level of a rule (its `kind` says which)."""
    level = row.level
    return (level.user_id if level.user_id is not None else level.group_id if level.group_id is not None
            else level.access_level)


def _target(row: RuleRow) -> Text:
    value = _target_value(row)
    return Text("" if value is None else str(value), style="dim")


def rule_detail(row: RuleRow) -> Text:
    """What `enter` opens on a rule: its environment and who may deploy (literal text)."""
    level = row.level
    detail = Text(row.environment, style="bold")
    for label, value in (("kind", level.kind), ("who", level.access_level_description or ""),
                         ("user id", level.user_id), ("group id", level.group_id),
                         ("level", level.access_level)):
        if value not in (None, ""):
            detail.append(f"\n{label:>8}  ", style="dim")
            detail.append(str(value))
    return detail


COLUMNS = [
    Column("environment", "Environment", min_width=16, text=lambda r: Text(r.environment),
           data=lambda r: r.environment),
    Column("kind", "Kind", width=6, text=lambda r: Text(r.level.kind), data=lambda r: r.level.kind),
    Column("who", "Who may deploy", min_width=24,
           text=lambda r: Text(r.level.access_level_description or ""),
           data=lambda r: r.level.access_level_description),
    Column("target", "Id / level", width=10, text=_target, data=_target_value),  # `kind` says which
]


def rows_of(protected: list[ProtectedEnvironment]) -> list[RuleRow]:
    return [RuleRow(pe.name, index, level) for pe in protected
            for index, level in enumerate(pe.deploy_access_levels)]


def rule_text(level: DeployAccessLevel) -> str:
    """A rule as the list shows it (GitLab's `access_level_description`: "Maintainers", a user's name)."""
    return level.access_level_description or level.kind


def rules_by_environment(rows: list[RuleRow]) -> dict[str, list[str]]:
    """Each protected environment's rules, in words, in the server's order."""
    rules: dict[str, list[str]] = {}
    for row in rows:
        rules.setdefault(row.environment, []).append(rule_text(row.level))
    return rules


def rules_replaced(before: list[str], after: list[str]) -> str:
    """What a change of an environment's rules replaces: its rules as a whole, with what comes instead."""
    return replaced_text([before], after, whole=True) if before else ""


def _rule_words(rule: DeployRule) -> str:
    """`Maintainers`, `user 5`, `group 9`: a rule as the question names it."""
    if rule.user_id is not None:
        return f"user {rule.user_id}"
    if rule.group_id is not None:
        return f"group {rule.group_id}"
    return level_description(rule.access_level)


class UnknownTarget(LabdeckError):
    """A rule names a user or group the instance does not have (nothing was sent)."""


class AddRuleDialog(FormDialog[RuleRequest]):
    """The rule picker: an environment name, then one kind (role, user or group) and its one value."""

    CSS_PATH = "protected_environments.tcss"
    AUTO_FOCUS = "#rule-environment"
    SUBMIT, ERROR = "rule-add", "rule-error"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="protected_rule.cancel")]

    def __init__(self, environment: str = "", environments: list[str] | None = None, *,
                 rules: dict[str, list[str]] | None = None) -> None:
        super().__init__()
        self.environment = environment
        self.environments = environments or []
        self.rules = rules or {}  # the protected environments' rules now, in words (`rules_by_environment`)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static("Add a deploy rule", classes="dialog-title")
            hint = ", ".join(self.environments[:4])
            yield Label("Environment")
            yield Input(self.environment, placeholder=hint or "production", id="rule-environment")
            yield Label("Who may deploy: a role, a user or a group (exactly one)")
            with RadioSet(id="rule-kind"):
                yield RadioButton("Role", value=True, id="kind-role")
                yield RadioButton("User", id="kind-user")
                yield RadioButton("Group", id="kind-group")
            yield Select([(f"{name} ({level})", level) for level, name in ACCESS_LEVELS.items()],
                         value=40, allow_blank=False, id="rule-level")
            yield Input(placeholder="username or user id", id="rule-user", classes="-off")
            yield Input(placeholder="group full path or id", id="rule-group", classes="-off")
            yield Static("", markup=False, id="rule-replaces", classes="dialog-replaces")
            yield Static("", markup=False, id="rule-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="rule-cancel")
                yield Button("Add rule", id="rule-add", variant="primary")

    def on_mount(self) -> None:
        self.show_replaced()

    def new_rule_text(self) -> str:
        """The rule the form holds now, in words ("user dave"; a role as GitLab names it)."""
        if self.kind == "role":
            level = self.query_one("#rule-level", Select).value
            return ACCESS_LEVELS.get(level, str(level)) if isinstance(level, int) else ""
        who = self.query_one(f"#rule-{self.kind}", Input).value.strip()
        return f"{self.kind} {who}" if who else ""

    def show_replaced(self) -> None:
        """Say which rules adding this one replaces, for an environment protected already."""
        before = self.rules.get(self.query_one("#rule-environment", Input).value.strip(), [])
        new = self.new_rule_text()
        text = rules_replaced(before, [*before, new]) if new else ""
        line = self.query_one("#rule-replaces", Static)
        line.update(f"This {text}." if text else "")
        line.display = bool(text)

    def on_input_changed(self, _event: Input.Changed) -> None:
        self.show_replaced()

    def on_select_changed(self, _event: Select.Changed) -> None:
        self.show_replaced()

    @property
    def kind(self) -> str:
        pressed = self.query_one("#rule-kind", RadioSet).pressed_button
        return (pressed.id or "kind-role").removeprefix("kind-") if pressed is not None else "role"

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        """Only the chosen kind's field is shown and used: the form can never hold two targets."""
        kind = self.kind
        self.query_one("#rule-level").set_class(kind != "role", "-off")
        self.query_one("#rule-user").set_class(kind != "user", "-off")
        self.query_one("#rule-group").set_class(kind != "group", "-off")
        self.show_replaced()

    def value(self) -> RuleRequest | Problem:
        """The request, or the problem with the form (the domain's exactly-one and level rules)."""
        environment = self.query_one("#rule-environment", Input).value.strip()
        if not environment:
            return Problem("environment required")
        kind = self.kind
        if kind == "role":
            level = self.query_one("#rule-level", Select).value
            element = {"access_level": level if isinstance(level, int) else None}
            problems = rule_problems(element)
            if problems:
                return Problem(problems[0])
            return RuleRequest(environment, kind, level=element["access_level"])
        who = self.query_one(f"#rule-{kind}", Input).value.strip()
        if not who:
            return Problem(f"a {kind} is required (a rule names exactly one role, user or group)")
        return RuleRequest(environment, kind, who=who)


class ProtectedEnvironmentsScreen(LabdeckScreen):
    FOOTER_PANES = {"": ("add_rule", "remove_rule", "select", *LIST_KEYS)}
    AREA = "deployments"
    TITLE = "Protected environments"
    CSS_PATH = "protected_environments.tcss"
    MUTATING_ACTIONS = frozenset({"add_rule", "remove_rule"})
    BINDINGS = [
        Binding("a", "add_rule", "Add rule", id="protected_environments.add"),
        Binding("x", "remove_rule", "Remove rule", id="protected_environments.remove"),
    ]

    def __init__(self, project: str, *, environments: list[str] | None = None) -> None:
        super().__init__()
        self.project = project
        self.environments = environments or []

    def compose_body(self) -> ComposeResult:
        yield Static(Text(f"{self.project}: who may deploy", style="bold"), id="protected-title")
        yield ResourceView(COLUMNS, row_key=lambda r: (r.environment, r.index),
                           detail=rule_detail, enter_opens_detail=True,
                           empty_text="No protected environments", id="protected-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#protected-view", ResourceView).table

    def on_mount(self) -> None:
        self.table.focus()
        self.load()

    def refresh_data(self) -> None:
        self.load(refresh=True)

    @work(exclusive=True, group="protected-environments")
    async def load(self, refresh: bool = False) -> None:
        service = self.ctx.services.deployments
        try:
            protected = await service.protected_environments(self.project, refresh=refresh)
        except ApiError as error:  # an EE instance without Premium refuses with 403 or 404
            explained = refused(context_of(self), PROTECTED_ENVIRONMENTS, error)
            if explained is None:
                raise
            self.table.empty_text = explained
            self.table.set_rows([])
            return
        self.table.set_rows(rows_of(protected))
        self.query_one("#protected-title", Static).update(
            Text(f"{self.project}: {len(protected)} protected environment(s)", style="bold"))
        self.mark_data_loaded()

    def action_add_rule(self) -> None:
        """The rule form sends the rule itself; after a lost answer it re-reads the environment's
        protection: is the rule there?"""
        row, service = self.table.cursor_row, self.ctx.services.deployments
        current = row.environment if isinstance(row, RuleRow) else ""
        project = self.project

        async def add(request: RuleRequest) -> RuleRequest | None:
            rule = await self.resolve(service, request)
            try:
                await service.add_rule(project, request.environment, rule,
                                       confirm_two_step=lambda: self.agree_to_two_steps(request.environment))
            except NotSent as declined:
                self.notify(f"Cancelled: {declined}", markup=False)
                return None
            except LeftUnprotected as left:
                self.left_unprotected(left)
                raise
            return request

        async def present(request: RuleRequest) -> bool:
            rule = await self.resolve(service, request)
            try:
                protected = await service.protected_environment(project, request.environment)
            except NotFound:
                return False
            return rule in [rule_of(level) for level in protected.deploy_access_levels]

        def added(request: RuleRequest | None) -> None:
            if request is not None and is_live(self):
                self.notify(f"{request.environment}: rule added", markup=False)
                self.load(refresh=True)

        form = AddRuleDialog(current, self.environments, rules=rules_by_environment(list(self.table.rows)))
        open_write_form(self, form, add, verify=present, row=None, done=added,
                        refresh=lambda: self.load(refresh=True) if is_live(self) else None)

    async def resolve(self, service: DeploymentsService, request: RuleRequest) -> DeployRule:
        """The rule of `request`; a user or group that does not exist is refused (`UnknownTarget`)."""
        if request.kind == "role":
            return DeployRule(access_level=request.level)
        who = request.who or ""
        if request.kind == "user":
            user_id = await service.find_user_id(who)
            if user_id is None:
                raise UnknownTarget(f"No user {who}")
            return DeployRule(user_id=user_id)
        group_id = await service.find_group_id(who)
        if group_id is None:
            raise UnknownTarget(f"No group {who}")
        return DeployRule(group_id=group_id)

    async def agree_to_two_steps(self, environment: str) -> bool:
        """GitLab before 15.4: the risk of changing `environment`'s rules, said before anything is sent (a
        question over the open form, from its worker)."""
        risk = Content(f"{two_step_risk(environment)}.")
        question = ConfirmScreen("Change rules in two steps", risk, confirm_label="Unprotect and protect")
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def answered(yes: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(yes))

        self.app.push_screen(question, answered)
        return await answer

    def left_unprotected(self, error: LeftUnprotected) -> None:
        """Said loudly (an error that stays on screen), with the offer to protect the environment again with
        the rules it had."""
        self.notify(str(error), title="Left unprotected", severity="error", timeout=120, markup=False)
        question = Content.from_markup(
            "[b]$env[/b] is not protected: anyone who can run a pipeline may deploy to it. Protect it again "
            "with the rules it had ($rules)?", env=error.environment,
            rules=", ".join(_rule_words(rule) for rule in error.rules))

        def answered(yes: bool | None) -> None:
            if yes and is_live(self):
                self.protect_again(error)

        self.app.push_screen(ConfirmScreen("Protect again", question, confirm_label="Protect again",
                                           danger=False), answered)

    @work(group="protected-mutation")
    async def protect_again(self, error: LeftUnprotected) -> None:
        try:
            await self.ctx.services.deployments.protect(self.project, error.environment, error.rules)
        except LabdeckError as again:
            self.left_unprotected(LeftUnprotected(error.environment, error.rules, again))
        else:
            self.notify(f"{error.environment} is protected again", markup=False)
        self.load(refresh=True)

    def action_remove_rule(self) -> None:
        row = self.table.cursor_row
        if not isinstance(row, RuleRow):
            return
        service = self.ctx.services.deployments
        rules = [r for r in self.table.rows if r.environment == row.environment]
        last = len(rules) == 1
        more = " It is the last rule: the environment will no longer be protected." if last else ""
        if not last and not service.rules_in_place():
            more = f" {two_step_risk(row.environment)}."
        message = Content.from_markup(
            "Remove [b]$who[/b] from who may deploy to [b]$env[/b] of [b]$project[/b]?$more",
            who=rule_text(row.level), env=row.environment, project=self.project, more=more)
        replaces = rules_replaced([rule_text(r.level) for r in rules],
                                  [rule_text(r.level) for r in rules if r != row])

        def answered(yes: bool | None) -> None:
            if yes:
                self.remove_rule(row)

        self.app.push_screen(ConfirmScreen("Remove deploy rule", message, confirm_label="Remove",
                                           replaces=replaces), answered)

    @work(group="protected-mutation")
    async def remove_rule(self, row: RuleRow) -> None:
        service = self.ctx.services.deployments
        try:
            await service.remove_rule(self.project, row.environment, rule_of(row.level))
        except (NotFound, LookupError):
            self.notify(f"{row.environment} no longer has that rule", severity="warning", markup=False)
        except LeftUnprotected as left:
            self.left_unprotected(left)
        self.load(refresh=True)
