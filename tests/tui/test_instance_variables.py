"""Pilot tests of `:variables` (instance CI variables, administrators) against the tiny sandbox: the list,
masked values, a create refused by the form and one refused by the server (the instance variable limit),
deletion with the key typed, `y` copying a value, and a non-administrator kept out (or refused with 403)."""

from __future__ import annotations

from areas_fixtures import open_area
from snapshot_apps import (
    make_app,
    messages,
    press_for,
    sandbox,
    sandbox_settings,
    settle,
    type_to_confirm,
    until,
)
from textual.widgets import Input

from labdeck.tui.kit.forms import FormScreen
from labdeck.tui.screens.admin.instance_variables import InstanceVariablesScreen
from labdeck.tui.screens.confirm import TypeToConfirmScreen

SIZE = (140, 40)


def keys(screen: InstanceVariablesScreen) -> list[str]:
    return [v.key for v in screen.table.visible_rows]


def values(screen: InstanceVariablesScreen) -> list[str]:
    return [screen.spec.cells(v)[1].plain for v in screen.table.visible_rows]


async def test_lists_instance_variables_with_masked_values_hidden_until_revealed() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_area(pilot, "variables", InstanceVariablesScreen)
        assert sorted(keys(screen)) == ["HTTP_PROXY", "SONAR_TOKEN"]
        index = keys(screen).index("SONAR_TOKEN")
        assert values(screen)[index] == "••••••••"
        screen.table.move_cursor(index)
        await pilot.press("m")
        await pilot.pause()
        assert values(screen)[index] == "sonar-token-0123456789"
        copied: list[str] = []
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        await pilot.press("y")
        await pilot.pause()
        assert copied == ["sonar-token-0123456789"]
        assert not any("sonar-token" in m for m in messages(app))
        assert any("Copied the value of SONAR_TOKEN" in m for m in messages(app))


async def test_a_revealed_value_is_hidden_again_after_a_reload_and_when_the_row_is_left() -> None:
    """Revealing lasts until the row is left or the list is read again (issue 34): `m`, then `r`, shows the
    dots again; `m`, then a move of the cursor away and back, too."""
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_area(pilot, "variables", InstanceVariablesScreen)
        index = keys(screen).index("SONAR_TOKEN")
        screen.table.move_cursor(index)
        await pilot.press("m")
        await until(pilot, lambda: values(screen)[index] == "sonar-token-0123456789", "the value revealed")
        before = screen.table.visible_rows[index]
        await pilot.press("r")
        await until(pilot, lambda: screen.table.visible_rows
                    and screen.table.visible_rows[index] is not before, "the list read again")
        assert values(screen)[keys(screen).index("SONAR_TOKEN")] == "••••••••"
        index = keys(screen).index("SONAR_TOKEN")
        screen.table.move_cursor(index)
        await pilot.press("m")
        await until(pilot, lambda: values(screen)[index] == "sonar-token-0123456789", "revealed again")
        other = keys(screen).index("HTTP_PROXY")
        await pilot.press("down" if other > index else "up")
        await until(pilot, lambda: screen.table.cursor_row is screen.table.visible_rows[other], "moved")
        assert values(screen)[index] == "••••••••"
        await pilot.press("up" if other > index else "down")  # back on it: still hidden
        await pilot.pause()
        assert values(screen)[index] == "••••••••"


async def test_create_refused_by_the_form_then_by_the_server_limit() -> None:
    asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_area(pilot, "variables", InstanceVariablesScreen)
        form = await press_for(pilot, "a", FormScreen)
        assert not form.query("#field-environment_scope")
        form.query_one("#field-key", Input).value = "BAD KEY"
        form.query_one("#field-value", Input).value = "x" * 10_001
        assert form.submit() is False
        assert "letters, digits" in str(form.query_one("#error-key").render())
        assert "10000" in str(form.query_one("#error-value").render()).replace(",", "")
        state = asgi.state.store.areas["ci_variables"]
        state.instance_limit = len(state.instance)
        form.query_one("#field-key", Input).value = "ONE_TOO_MANY"
        form.query_one("#field-value", Input).value = "v"
        assert form.submit() is True
        await settle(pilot)
        assert app.screen is form  # refused: the form stays open with what was typed
        assert form.query_one("#field-key", Input).value == "ONE_TOO_MANY"
        assert "ONE_TOO_MANY" not in {v.key for v in state.instance}
        assert any("Maximum number of ci instance level variables (2) exceeded" in m for m in messages(app))
        assert "Maximum number" in str(form.query_one("#form-message").render())
        state.instance_limit = 10
        assert form.submit() is True  # sent again, as typed
        for _ in range(20):
            await settle(pilot)
            if app.screen is screen:
                break
        assert app.screen is screen
        assert "ONE_TOO_MANY" in {v.key for v in state.instance} and "ONE_TOO_MANY" in keys(screen)


async def test_delete_needs_the_key_typed() -> None:
    asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_area(pilot, "variables", InstanceVariablesScreen)
        screen.table.move_cursor(keys(screen).index("HTTP_PROXY"))
        confirm = await press_for(pilot, "x", TypeToConfirmScreen)
        confirm.query_one("#confirm-name", Input).value = "HTTP_PROX"
        await pilot.pause()
        assert confirm.query_one("#confirm").disabled
        await type_to_confirm(pilot, confirm, "HTTP_PROXY")
        await settle(pilot)
        assert "HTTP_PROXY" not in {v.key for v in asgi.state.store.areas["ci_variables"].instance}
        assert keys(screen) == ["SONAR_TOKEN"]


async def test_a_regular_user_is_kept_out_and_a_403_is_shown() -> None:
    _asgi, factory = sandbox()
    app = make_app(settings=sandbox_settings("glpat-sandbox-alice"), transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_area("variables")
        await pilot.pause()
        assert not isinstance(app.screen, InstanceVariablesScreen)
        assert any("administrators only" in m for m in messages(app))
        screen = InstanceVariablesScreen()
        await app.push_screen(screen)
        await settle(pilot)
        assert keys(screen) == []
        assert "403" in str(screen.query_one("#instance-vars-status").render())


async def test_edit_keeps_the_key_and_read_only_hides_changes() -> None:
    asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_area(pilot, "variables", InstanceVariablesScreen)
        screen.table.move_cursor(keys(screen).index("HTTP_PROXY"))
        form = await press_for(pilot, "e", FormScreen)
        assert form.query_one("#field-key", Input).disabled
        form.query_one("#field-value", Input).value = "http://proxy2.internal:3128"
        assert form.submit() is True
        await settle(pilot)
        stored = {v.key: v.value for v in asgi.state.store.areas["ci_variables"].instance}
        assert stored["HTTP_PROXY"] == "http://proxy2.internal:3128"
        assert "http://proxy2.internal:3128" in values(screen)
    read_only = make_app(transport_factory=factory, read_only=True)
    async with read_only.run_test(size=SIZE) as pilot:
        screen = await open_area(pilot, "variables", InstanceVariablesScreen)
        await pilot.press("a")
        await pilot.pause()
        assert read_only.screen is screen
        pane = screen.pane  # the variables pane of the instance
        assert pane.check_action("delete_variable", ()) is False
        assert pane.check_action("copy_value", ()) is True


def test_admin_areas_are_listed_for_administrators_only() -> None:
    from labdeck.tui.areas import AreaRequest, complete, find_area, shown_areas

    assert {"variables", "pages"} <= {a.name for a in shown_areas(True)}
    assert not {"variables", "pages"} & {a.name for a in shown_areas(False)}
    assert complete("var", is_admin=False) == [] and complete("var", is_admin=True) == ["variables"]
    area = find_area(":variables")
    assert area is not None and area.admin_only
    assert isinstance(area.open(AreaRequest()), InstanceVariablesScreen)
