"""A change that writes over something says what, before it is confirmed (issue 33), in the words of
`domain.replacements.replaced_text`: a member's role, members re-added at another role, a variable's value,
an environment's deploy rules (the bulk issue changes: `test_dialog_enter.py`)."""

from __future__ import annotations

from datetime import date
from typing import Any

from snapshot_apps import make_app, settle
from test_deployments_screen import Sandbox, open_protected
from textual.app import App
from textual.screen import Screen
from textual.widgets import Button, Input, RadioButton, Select, Static

from labdeck.api.models.members import Member
from labdeck.api.models.variables import CiVariable
from labdeck.tui.kit.members import member_form
from labdeck.tui.kit.variables import variable_form
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.deployments.protected_environments import AddRuleDialog

SIZE = (100, 40)


class _Host(App[None]):
    def __init__(self, dialog: Screen[Any]) -> None:
        super().__init__()
        self.dialog = dialog

    def on_mount(self) -> None:
        self.push_screen(self.dialog)


def said(dialog: Screen[Any], selector: str = "#form-replaces") -> str:
    line = dialog.query_one(selector, Static)
    return str(line.render()) if line.display else ""


async def test_a_variable_form_says_it_writes_over_the_value() -> None:
    masked = CiVariable(key="DEPLOY_TOKEN", value="s3cret-value", masked=True, environment_scope="*")
    app = _Host(variable_form(masked))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert said(app.dialog) == ""  # nothing typed over yet
        app.dialog.query_one("#field-value", Input).value = "n3w-secret-value"
        await pilot.pause()
        assert said(app.dialog) == "This replaces the masked value of DEPLOY_TOKEN."  # never the value
    plain = CiVariable(key="LOG_LEVEL", value="debug", environment_scope="*")
    app = _Host(variable_form(plain))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.dialog.query_one("#field-value", Input).value = "info"
        await pilot.pause()
        assert said(app.dialog) == "This replaces LOG_LEVEL's value debug."
    hidden = CiVariable(key="SIGNING_KEY", value=None, masked=True, hidden=True, environment_scope="*")
    app = _Host(variable_form(hidden))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert said(app.dialog) == "This replaces the hidden value of SIGNING_KEY."


async def test_a_member_form_says_which_role_it_replaces() -> None:
    app = _Host(member_form("groups", date(2026, 1, 1), user_ids="7", level=30, editing=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert said(app.dialog) == ""
        app.dialog.query_one("#field-access_level", Select).value = 40
        await pilot.pause()
        assert said(app.dialog) == "This replaces Developer (30)."
    bob = Member(id=3, username="bob", access_level=30)
    app = _Host(member_form("groups", date(2026, 1, 1), members=[bob]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.dialog.query_one("#field-access_level", Select).value = 40
        app.dialog.query_one("#field-user_ids", Input).value = "bob"
        await pilot.pause()
        assert said(app.dialog) == ""  # one user who is a member already: GitLab refuses (409), nothing goes
        app.dialog.query_one("#field-user_ids", Input).value = "bob, carol"
        await pilot.pause()
        assert said(app.dialog) == "This replaces bob as Developer (30)."


async def test_removing_a_deploy_rule_says_what_the_rules_become() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_protected(pilot, sandbox)
        staging = [r.level.access_level_description for r in screen.table.rows if r.environment == "staging"]
        screen.table.move_cursor(2)  # staging: its user rule
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        line = said(app.screen, ".confirm-replaces")
        assert line == f"This replaces {staging[0]} and {staging[1]} with {staging[0]}.", line


async def test_adding_a_deploy_rule_says_what_the_rules_become() -> None:
    dialog = AddRuleDialog("", ["production", "staging"], rules={"staging": ["Maintainers", "carol"]})
    app = _Host(dialog)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dialog.query_one("#rule-environment", Input).value = "canary"  # not protected yet: nothing replaced
        await pilot.pause()
        assert said(dialog, "#rule-replaces") == ""
        dialog.query_one("#rule-environment", Input).value = "staging"
        dialog.query_one("#kind-user", RadioButton).value = True
        await pilot.pause()
        dialog.query_one("#rule-user", Input).value = "dave"
        await pilot.pause()
        assert said(dialog, "#rule-replaces") == (
            "This replaces Maintainers and carol with Maintainers, carol and user dave.")
        assert dialog.query_one("#rule-add", Button).label == "Add rule"
        await settle(pilot)
