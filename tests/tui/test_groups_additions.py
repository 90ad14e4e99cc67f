"""Pilot tests of what issue 5 added to `:groups` later: `y` copies a variable's value without showing it,
members added by username (an unknown one refused plainly), downloads saved in a folder the user picks (a
missing folder refused by the form, an unwritable target failing the job with the path), and the badge
form previewing the rendered URLs as they are typed."""

from __future__ import annotations

from pathlib import Path

from areas_fixtures import add_form, cells, on_variable, open_groups
from snapshot_apps import make_app, messages, press_for, sandbox, settle, until
from test_groups_screen import SIZE
from textual.widgets import Input

from labdeck.config.state import load_state
from labdeck.tui.jobs import JobState
from labdeck.tui.kit.forms import FormScreen
from labdeck.tui.screens.groups.badge_form import BadgeFormScreen


async def test_y_copies_a_masked_value_without_showing_it() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        table, _ = await on_variable(pilot, screen, "DEPLOY_TOKEN")
        copied: list[str] = []
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        await pilot.press("y")
        await pilot.pause()
        assert copied == ["s3cr3t-deploy-token-42"]
        assert any("Copied the value of DEPLOY_TOKEN (masked: not shown)" in m for m in messages(app))
        assert not any("s3cr3t" in m for m in messages(app))
        assert cells(screen, "variables", 1)[table.visible_rows.index(table.cursor_row)] == "••••••••"


async def test_member_added_by_username_and_an_unknown_one_refused() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, "opensource")
        form = await add_form(pilot, screen, "members")
        before = set(cells(screen, "members"))
        form.query_one("#field-user_ids", Input).value = "dave, nobody-at-all"
        assert form.submit() is True
        await settle(pilot)
        assert any("No user with the username nobody-at-all" in m for m in messages(app))
        assert set(cells(screen, "members")) == before
        form = await press_for(pilot, "a", FormScreen)
        form.query_one("#field-user_ids", Input).value = "bad name!"
        assert form.submit() is False
        assert "usernames" in str(form.query_one("#error-user_ids").render())
        form.query_one("#field-user_ids", Input).value = "@Dave, 6"
        assert form.submit() is True
        await settle(pilot)
        assert {"dave", "erin"} <= set(cells(screen, "members"))


async def test_export_saved_in_the_folder_picked(tmp_path: Path) -> None:
    _asgi, factory = sandbox(async_delay=0.05)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, download_dir=tmp_path)
        form = await press_for(pilot, "E", FormScreen)
        assert form.query_one("#field-folder", Input).value == str(tmp_path)
        (tmp_path / "a-file").write_text("x")
        form.query_one("#field-folder", Input).value = str(tmp_path / "a-file" / "missing")
        assert form.submit() is False  # missing, and cannot be created (a missing folder is offered)
        assert "no such folder" in str(form.query_one("#error-folder").render())
        form.query_one("#field-folder", Input).value = str(tmp_path / "a-file")
        assert form.submit() is False
        assert "not a folder" in str(form.query_one("#error-folder").render())
        picked = tmp_path / "picked"
        picked.mkdir()
        form.query_one("#field-folder", Input).value = str(picked)
        assert form.submit() is True
        await pilot.pause()
        job = next(j for j in app.jobs.jobs if j.title == "Export group acme")
        await app.jobs.wait(job)
        await settle(pilot)
        assert (picked / "acme_export.tar.gz").is_file() and screen.download_dir == picked
        assert any(f"Saved {picked / 'acme_export.tar.gz'}" in m for m in messages(app))
        await app.workers.wait_for_complete()
        assert app.state.download_dir == str(picked)  # remembered in labdeck's state, for the next run
        assert load_state().download_dir == str(picked)


async def test_export_to_an_unwritable_place_fails_with_the_path(tmp_path: Path) -> None:
    _asgi, factory = sandbox(async_delay=0.05)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, download_dir=tmp_path)
        gone = tmp_path / "removed-meanwhile"
        job = screen.action_export(gone)
        assert job is not None
        await app.jobs.wait(job)
        await settle(pilot)
        assert job.state is JobState.FAILED
        assert f"Cannot write {gone / 'acme_export.tar.gz'}" in (job.error or "")


async def test_badge_form_previews_rendered_urls() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, "acme/platform")
        form = await add_form(pilot, screen, "badges", BadgeFormScreen)
        form.delay = 0.05
        form.query_one("#field-link_url", Input).value = "https://ci/%{project_path}/-/tree/%{default_branch}"
        form.query_one("#field-image_url", Input).value = "https://ci/%{project_id}/[b]badge.svg"
        await until(pilot, lambda: "/[b]badge.svg" in str(form.query_one("#badge-preview").render()),
                    "the debounced badge preview")
        await settle(pilot)
        preview = str(form.query_one("#badge-preview").render())
        assert "https://ci/acme/platform/api-gateway/-/tree/main" in preview
        assert "/[b]badge.svg" in preview and "%{project_id}" not in preview
        calls = form.previews
        form.query_one("#field-link_url", Input).value = "https://ci/%{commit_sha}"
        form.query_one("#field-link_url", Input).value = "https://ci/%{commit_sha}/x"
        await pilot.pause(0.2)
        await settle(pilot)
        assert form.previews == calls + 1  # debounced: one request for the two keystrokes
        assert "%{commit_sha}" not in str(form.query_one("#badge-preview").render())
