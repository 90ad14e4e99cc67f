"""Pilot tests of the project view's Variables tab against the tiny sandbox: the seeded variables with
their scopes, `m` reveals a masked value and hides it again, a hidden value is never revealed nor copied,
`y` copies without showing, `a` adds through the checked form (with an environment scope), `e` edits the
variable of its own scope, `x` deletes once the key is typed; read-only mode offers none of the changes."""

from __future__ import annotations

from typing import Any

from areas_fixtures import open_view
from snapshot_apps import make_app, messages, press_for, settle, type_to_confirm
from test_project_view import SIZE, Sandbox
from textual.widgets import Input

from labdeck.tui.kit.forms import FormScreen
from labdeck.tui.kit.variables import HIDDEN_REFUSAL
from labdeck.tui.kit.variables_pane import VariablesPane as VariablesTab
from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.widgets.resource_table import ResourceTable

HIDDEN_SECRET = "pr0d-db-never-shown-again"


def tab_of(view: Any) -> VariablesTab:
    return view.query_one(VariablesTab)


def column(tab: VariablesTab, index: int) -> list[str]:
    return [tab.spec.cells(row)[index].plain for row in tab.view.table.visible_rows]


def select(tab: VariablesTab, key: str, scope: str = "*") -> None:
    rows = tab.view.table.visible_rows
    tab.view.table.move_cursor(next(i for i, v in enumerate(rows)
                                    if v.key == key and (v.environment_scope == scope or scope == "*")))


def stored(sandbox: Sandbox) -> list[Any]:
    gateway = sandbox.store.project_by_path("acme/platform/api-gateway")
    return sandbox.store.areas["ci_variables"].projects[gateway.id]


async def test_listed_revealed_and_hidden_never_shown() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox, tab="variables")
        tab = tab_of(view)
        keys = column(tab, 0)
        assert keys.count("DATABASE_URL") == 2 and "PROD_DB_PASSWORD" in keys and "LOG_FORMAT" in keys
        assert {"staging", "production"} <= set(column(tab, 3))
        assert view.focused is tab.view.table
        select(tab, "DB_PASSWORD")
        index = tab.view.table.cursor_index
        assert column(tab, 1)[index] == "••••••••"
        await pilot.press("m")
        await pilot.pause()
        assert column(tab, 1)[index] == "staging-db-pa55word"
        await pilot.press("m")
        await pilot.pause()
        assert column(tab, 1)[index] == "••••••••"
        await pilot.press("y")  # copied, never shown
        await pilot.pause()
        assert app.clipboard == "staging-db-pa55word"
        assert "staging-db-pa55word" not in " ".join(messages(app))
        select(tab, "PROD_DB_PASSWORD")
        app.copy_to_clipboard("")
        for key in ("m", "y"):
            await pilot.press(key)
            await pilot.pause()
            assert HIDDEN_REFUSAL in messages(app)[-1]
        assert app.clipboard == ""
        screen_text = " ".join(" ".join(tab.spec.cells(row)[i].plain for i in range(6))
                               for row in tab.view.table.visible_rows)
        assert HIDDEN_SECRET not in screen_text and "hidden" in column(tab, 5)


async def test_add_edit_and_delete_with_the_key_typed() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox, tab="variables")
        tab = tab_of(view)
        form = await press_for(pilot, "a", FormScreen)
        form.query_one("#field-key", Input).value = "BAD-KEY"
        form.query_one("#field-value", Input).value = "x"
        assert form.submit() is False  # checked before sending
        assert "letters, digits" in str(form.query_one("#error-key").render())
        form.query_one("#field-key", Input).value = "NEW_KEY"
        form.query_one("#field-environment_scope", Input).value = "review/*"
        assert form.submit() is True
        await settle(pilot)
        made = next(v for v in stored(sandbox) if v.key == "NEW_KEY")
        assert (made.value, made.environment_scope) == ("x", "review/*")
        assert "NEW_KEY" in column(tab, 0)
        select(tab, "DATABASE_URL", "staging")  # a key two scopes share: the edit goes to its own scope
        form = await press_for(pilot, "e", FormScreen)
        form.query_one("#field-value", Input).value = "postgres://new@db.staging.internal/gateway"
        assert form.submit() is True
        await settle(pilot)
        by_scope = {v.environment_scope: v.value for v in stored(sandbox) if v.key == "DATABASE_URL"}
        assert by_scope["staging"] == "postgres://new@db.staging.internal/gateway"
        assert "prod" in by_scope["production"]
        tab.view.table.focus()
        select(tab, "NEW_KEY")
        confirm = await press_for(pilot, "x", TypeToConfirmScreen)
        await type_to_confirm(pilot, confirm, "NEW_KEY")
        await settle(pilot)
        assert "NEW_KEY" not in {v.key for v in stored(sandbox)}
        assert "NEW_KEY" not in column(tab, 0)


async def test_read_only_offers_no_change() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox, tab="variables")
        before = len(stored(sandbox))
        for key in ("a", "e", "x"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is view  # no form, no confirmation
        assert len(stored(sandbox)) == before
        assert column(tab_of(view), 0)  # still listed (reading is fine)


async def test_a_developer_sees_why_in_the_tab_without_a_notification() -> None:
    """alice is a developer of api-gateway: GitLab answers 403; opening the project view must not pop an
    error for a tab she did not open, and the tab says why."""
    from snapshot_apps import sandbox_settings

    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory, settings=sandbox_settings("glpat-sandbox-alice"))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox, tab="wiki")
        # Tabs in the background say their 403 where their rows would be; nothing pops up.
        assert messages(app) == []
        pages = view.query_one("#project-pages").query_one(ResourceTable)
        assert pages.load_error == "403 Forbidden"
        view.show_tab("variables")
        await settle(pilot)
        status = str(tab_of(view).query_one("#variables-status").render())
        assert "403" in status and "Maintainer" in status
        assert column(tab_of(view), 0) == []
