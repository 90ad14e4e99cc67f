"""CI variables in the groups view (issue 15, item 5): a masked-and-hidden variable can never be revealed
or copied (`m` and `y` say so), `raw` and `description` are shown and editable, and "masked and hidden"
is offered when creating a variable only."""

from __future__ import annotations

from areas_fixtures import add_form, cells, open_groups, pane, show_tab
from snapshot_apps import make_app, messages, sandbox, settle
from test_groups_screen import SIZE
from textual.widgets import Checkbox, Input

from labdeck.api.models.variables import NEVER_SHOWN
from labdeck.tui.kit.forms import FormScreen


async def test_a_hidden_variable_is_never_revealed_nor_copied() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, "acme/platform")
        await show_tab(pilot, screen, "variables")
        table = screen.table("variables")
        keys = [v.key for v in table.visible_rows]
        index = keys.index("SIGNING_KEY")
        table.move_cursor(index)
        table.focus()
        await pilot.pause()
        assert cells(screen, "variables", 1)[index] == NEVER_SHOWN
        assert cells(screen, "variables", 5)[index] == "hidden"
        await pilot.press("m")
        await pilot.pause()
        assert cells(screen, "variables", 1)[index] == NEVER_SHOWN
        await pilot.press("y")
        await pilot.pause()
        refusals = [m for m in messages(app) if "cannot be revealed or copied" in m]
        assert len(refusals) == 2 and app.clipboard == ""
        raw = table.visible_rows[keys.index("DOLLAR_TEMPLATE")]
        detail = pane(screen, "variables").spec.detail(raw).plain
        assert "yes (not expanded)" in detail and "passed as typed" in detail


async def test_create_with_raw_description_and_masked_and_hidden() -> None:
    asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        form = await add_form(pilot, screen, "variables")
        form.query_one("#field-key", Input).value = "RELEASE_KEY"
        form.query_one("#field-value", Input).value = "abc$defgh"  # `$` only allowed masked when raw
        form.query_one("#field-masked_and_hidden", Checkbox).value = True
        form.query_one("#field-description", Input).value = "d" * 256
        assert form.submit() is False
        assert "maximum is 255" in str(form.query_one("#error-description").render())
        assert "invalid" in str(form.query_one("#error-value").render())
        form.query_one("#field-description", Input).value = "Signs releases"
        form.query_one("#field-raw", Checkbox).value = True
        assert form.submit() is True
        await settle(pilot)
        store = asgi.state.store
        made = next(v for v in store.areas["ci_variables"].groups[store.group_by_path("acme").id]
                    if v.key == "RELEASE_KEY")
        assert (made.hidden, made.masked, made.raw, made.description) == (True, True, True, "Signs releases")
        row = next(v for v in screen.table("variables").visible_rows if v.key == "RELEASE_KEY")
        assert row.hidden and row.value is None  # GitLab never sends it back
        # editing: no "masked and hidden" switch, masking locked, a new value must be typed
        screen.table("variables").move_cursor(list(screen.table("variables").visible_rows).index(row))
        screen.table("variables").focus()
        await pilot.press("e")
        await settle(pilot)
        edit = app.screen
        assert isinstance(edit, FormScreen)
        assert not edit.query("#field-masked_and_hidden")
        assert edit.query_one("#field-masked", Checkbox).disabled
        assert edit.query_one("#field-value", Input).value == ""
