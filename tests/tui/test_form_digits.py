"""A form given a digit that is not 0-9 says so (issue 32 item 9): `²` (a digit to `str.isdigit`, which
`int` refuses) ended the app from the member form; `٣` (3 to `int`) added user 3. Each is a clear error
under its field, the form stays open with the text as typed, and nothing is sent."""

from __future__ import annotations

from areas_fixtures import open_view
from snapshot_apps import make_app, press_for, settle
from test_project_view import Sandbox
from textual.widgets import Input, Static

from labdeck.tui.kit.forms import FormScreen
from labdeck.tui.kit.members_pane import MembersPane
from labdeck.tui.screens.projects.dialogs import fork_target

SIZE = (140, 44)


async def test_a_wide_digit_in_the_member_form_is_a_clear_error() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await open_view(pilot, sandbox, tab="members")
        tab = app.screen.query_one(MembersPane)
        project = sandbox.store.project_by_path("acme/platform/api-gateway")
        before = dict(sandbox.store.project_members.get(project.id, {}))
        form = await press_for(pilot, "a", FormScreen)
        for typed, wide in (("²", "²"), ("٣", "٣"), ("12, ３", "３")):
            form.query_one("#field-user_ids", Input).value = typed
            assert form.submit() is False
            await pilot.pause()
            error = str(form.query_one("#error-user_ids", Static).render())
            assert error == f"{wide} is not one of the digits 0-9", error
            assert app.screen is form and form.query_one("#field-user_ids", Input).value == typed
        form.query_one("#field-user_ids", Input).value = "dave"
        form.query_one("#field-expires_at", Input).value = "٢٠٩٩-٠١-٠١"
        assert form.submit() is False
        await pilot.pause()
        assert str(form.query_one("#error-expires_at", Static).render()) == "٢ is not one of the digits 0-9"
        await settle(pilot)
        assert [m.username for m in tab.view.table.visible_rows] == []
        assert sandbox.store.project_members.get(project.id, {}) == before  # nothing was sent


def test_the_fork_target_reads_only_ascii_digits_as_an_id() -> None:
    assert fork_target("42") == (42, None)
    assert fork_target("²") == (None, "²")  # not an id (it ended the app); GitLab says the path is unknown
    assert fork_target("٣") == (None, "٣")  # not namespace 3
