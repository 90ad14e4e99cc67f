"""Completion in the fields that take names, with Pilot against the tiny sandbox: the issue filter
(`label:ba` + right -> `label:backend`; a name with spaces quoted on tab), a path field, the edit dialog's
labels, and the filter's unknown names said under the bar instead of an empty list."""

from __future__ import annotations

from datetime import date
from typing import Any

from areas_fixtures import open_issues
from snapshot_apps import settle, until
from textual.widgets import Input

from labdeck.tui.app import LabdeckApp
from labdeck.tui.areas import AreaRequest
from labdeck.tui.kit.members import member_form
from labdeck.tui.screens.issues.dialogs import EditIssueScreen
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.projects.dialogs import ForkDialog
from labdeck.tui.screens.registry.registry import RegistryScreen
from labdeck.tui.widgets.completion import CompletingInput

SIZE = (160, 45)


async def type_and_wait(pilot: Any, field: CompletingInput, text: str, shown: str) -> None:
    """Type `text` into the focused `field` and wait for the suggestion `shown`."""
    await pilot.press(*text)
    await until(pilot, lambda: (s := field.suggestion()) is not None and s.shown == shown,
                f"the suggestion {shown!r}")


def message(screen: IssuesScreen) -> str:
    return str(screen.query_one("#issues-query-error").render())


async def test_filter_completes_labels_of_the_group_and_quotes_on_accept(sandbox_app: LabdeckApp) -> None:
    async with sandbox_app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, scope="group:acme")
        screen.action_focus_query()
        field = screen.query_one("#issues-query", CompletingInput)
        await type_and_wait(pilot, field, "label:ba", "label:backend")
        await pilot.press("right")
        assert field.value == "label:backend" and field.cursor_position == len(field.value)
        await type_and_wait(pilot, field, " assignee:ali", "label:backend assignee:alice")
        await pilot.press("tab")  # tab accepts too, and stays in the field
        assert field.value == "label:backend assignee:alice" and field.has_focus
        await type_and_wait(pilot, field, " label:goo", "label:backend assignee:alice label:good first issue")
        await pilot.press("tab")
        assert field.value == 'label:backend assignee:alice label:"good first issue"'
        await pilot.press("tab")  # nothing to accept: tab moves on
        assert not field.has_focus


async def test_unknown_names_are_said_instead_of_an_empty_list(sandbox_app: LabdeckApp) -> None:
    async with sandbox_app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot)
        screen.action_focus_query()
        field = screen.query_one("#issues-query", Input)
        field.value = "assignee:nosuchuser"
        await pilot.press("enter")
        await until(pilot, lambda: screen.has_class("-unknown-names"), "the unknown-name line")
        assert message(screen) == "no user called nosuchuser: no issue can match"
        assert screen.query_one("#issues-query-error").display
        screen.action_focus_query()
        field.value = "assignee:alice"
        await pilot.press("enter")
        await settle(pilot, rounds=3)
        assert not screen.has_class("-unknown-names")
        screen.action_focus_query()
        screen.query_one("#issues-scope", Input).value = "acme"
        field.value = "label:nosuchlabel milestone:v9 label:bug"
        await pilot.press("enter")
        await until(pilot, lambda: screen.has_class("-unknown-names"), "the unknown-name line")
        assert message(screen) == ("no label called nosuchlabel in acme; no milestone called v9 in acme: "
                                   "no issue can match")


async def test_path_field_completes_groups_and_projects(sandbox_app: LabdeckApp) -> None:
    async with sandbox_app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=3)
        screen = RegistryScreen(AreaRequest())
        await pilot.app.push_screen(screen)
        await settle(pilot, rounds=3)
        field = screen.query_one("#registry-scope", CompletingInput)
        field.focus()
        await type_and_wait(pilot, field, "acme/pla", "acme/platform")
        await pilot.press("right")
        await type_and_wait(pilot, field, "/api", "acme/platform/api-gateway")
        await pilot.press("right")
        assert field.value == "acme/platform/api-gateway"


async def test_edit_dialog_completes_the_projects_labels(sandbox_app: LabdeckApp) -> None:
    async with sandbox_app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot)
        issue = next(i for i in screen.table.visible_rows if i.reference == "acme/platform/api-gateway#1")
        dialog = EditIssueScreen(issue.reference, issue.title, issue.label_names)
        await pilot.app.push_screen(dialog)
        await settle(pilot)
        field = dialog.query_one("#issues-edit-labels", CompletingInput)
        field.focus()
        field.cursor_position = len(field.value)
        before = field.value
        await type_and_wait(pilot, field, ", fron", f"{before}, frontend")
        await pilot.press("right")
        assert field.value == f"{before}, frontend"


async def test_a_suggested_name_is_text_never_markup(sandbox_app: LabdeckApp) -> None:
    async with sandbox_app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, scope="group:acme")
        assert sandbox_app.session is not None
        await sandbox_app.session.client.post_json("/groups/acme/labels",
                                                   {"name": "[@click=app.quit]boom", "color": "#ff0000"})
        screen.action_focus_query()
        field = screen.query_one("#issues-query", CompletingInput)
        await type_and_wait(pilot, field, 'label:"[@', 'label:"[@click=app.quit]boom"')
        await pilot.pause()
        drawn = "".join(segment.text for y in range(field.size.height) for segment in field.render_line(y))
        assert '"[@click=app.quit]boom"' in drawn  # drawn as the name, never read as markup
        await pilot.press("right")
        assert field.value == 'label:"[@click=app.quit]boom"' and sandbox_app.is_running


async def test_member_and_fork_forms_complete_users_and_groups(sandbox_app: LabdeckApp) -> None:
    async with sandbox_app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=3)
        form = member_form("groups", date(2026, 1, 1))
        await pilot.app.push_screen(form)
        await settle(pilot)
        users = form.query_one("#field-user_ids", CompletingInput)
        users.focus()
        await type_and_wait(pilot, users, "12, @caro", "12, @carol")
        await pilot.press("tab")
        assert users.value == "12, @carol"
        form.dismiss(None)
        await settle(pilot)
        fork = ForkDialog("acme/platform/api-gateway")
        await pilot.app.push_screen(fork)
        await settle(pilot)
        namespace = fork.query_one("#fork-namespace", CompletingInput)
        namespace.focus()
        await type_and_wait(pilot, namespace, "acme/pl", "acme/platform")
