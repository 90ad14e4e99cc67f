"""The cleanup panel applies with `ctrl+s` from inside a rule field (where `a` is a letter), the footer
shows that key, and a finished cleanup job (or deletion of marked tags) reloads the tag list under the panel
and the repositories list (tag counts) under that."""

from __future__ import annotations

from typing import Any

from snapshot_apps import make_app, settle
from test_registry_screen import (
    GATEWAY,
    SIZE,
    Sandbox,
    confirm_typed,
    open_repositories,
    open_tags,
    type_into,
)
from textual.widgets import Input

from labdeck.tui.jobs import JobState
from labdeck.tui.screens.registry.cleanup import RegistryCleanupScreen
from labdeck.tui.screens.registry.registry import RegistryTagsScreen


async def test_apply_from_inside_a_field_and_the_tag_list_follows_the_job() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        tags_screen = await open_tags(pilot, sandbox)
        assert {t.name for t in tags_screen.table.rows} >= {"pr-1", "pr-2", "pr-3"}
        await pilot.press("c")
        await pilot.pause()
        panel = app.screen
        assert isinstance(panel, RegistryCleanupScreen)
        await type_into(pilot, "#cleanup-delete", "pr-.*")
        await type_into(pilot, "#cleanup-older-than", "30d")
        field = panel.query_one("#cleanup-older-than", Input)
        assert panel.focused is field
        footer_keys = {key for key, b in panel.active_bindings.items() if b.binding.show and b.enabled}
        assert "ctrl+s" in footer_keys  # the footer shows the chord while the field has focus
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert field.value == "30d"  # nothing typed into the field
        await confirm_typed(pilot, f"{GATEWAY}/known")
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        await settle(pilot, rounds=2)
        assert job.state is JobState.SUCCEEDED
        assert sandbox.tag_names() == {"latest", "v2.0.0", "v1.0.0", "pr-2", "main-abc"}
        await pilot.press("escape")  # from a field, escape first hands focus back to the table
        await settle(pilot)
        if app.screen is not tags_screen:
            await pilot.press("escape")
            await settle(pilot)
        assert app.screen is tags_screen
        assert {t.name for t in tags_screen.table.rows} == sandbox.tag_names()  # without `r`


async def wait_for_tag_count(pilot: Any, screen: Any, repo_id: int, expected: int) -> int | None:
    """The repositories list's tag count of `repo_id` once it is `expected` (reloads run as workers)."""
    count = None
    for _ in range(20):
        await settle(pilot, rounds=2)
        count = next(r.tags_count for r in screen.table.rows if r.id == repo_id)
        if count == expected:
            break
    return count


async def test_a_finished_cleanup_job_refreshes_the_repositories_list_too() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        repos = await open_repositories(pilot, sandbox)
        assert next(r.tags_count for r in repos.table.rows if r.id == sandbox.repo.id) == 7
        repos.table.move_cursor(next(i for i, r in enumerate(repos.table.visible_rows)
                                     if r.id == sandbox.repo.id))
        await pilot.press("c")  # tags of the repository, then its cleanup panel
        await settle(pilot, rounds=2)
        panel = app.screen
        assert isinstance(panel, RegistryCleanupScreen)
        await type_into(pilot, "#cleanup-delete", "pr-.*")
        await type_into(pilot, "#cleanup-older-than", "30d")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await confirm_typed(pilot, f"{GATEWAY}/known")
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        assert job.state is JobState.SUCCEEDED and len(sandbox.tag_names()) == 5
        assert await wait_for_tag_count(pilot, repos, sandbox.repo.id, 5) == 5  # without `r`


async def test_deleting_marked_tags_refreshes_the_repositories_list() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        repos = await open_repositories(pilot, sandbox)
        repos.table.move_cursor(next(i for i, r in enumerate(repos.table.visible_rows)
                                     if r.id == sandbox.repo.id))
        repos.table.focus()
        await pilot.press("enter")
        await settle(pilot, rounds=2)
        tags = app.screen
        assert isinstance(tags, RegistryTagsScreen) and tags.on_changed is not None
        job = tags.delete_tags(["pr-1"])
        assert job is not None
        await app.jobs.wait(job)
        assert await wait_for_tag_count(pilot, repos, sandbox.repo.id, 6) == 6
