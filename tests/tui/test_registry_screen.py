"""Pilot tests of `:registry` against the tiny sandbox: repositories of a project and of a group, tags with
their details, the cleanup panel from typed rules to the finished bulk delete job (and what the sandbox
deleted is exactly the preview), the hour lock, hand-marked tag deletion and repository deletion as jobs."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from snapshot_apps import jump_to, make_app, settle, until
from textual.widgets import Button, Input, Static
from tiny_sandbox import GATEWAY
from tiny_sandbox import Sandbox as TinySandbox

from labdeck.api.models.registry import RegistryRepository
from labdeck.sandbox.seed.registry import Repository, Tag, add_repository
from labdeck.tui.areas import AreaRequest
from labdeck.tui.jobs import JobState
from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen
from labdeck.tui.screens.registry.cleanup import TABLE_DELAY, PlannedTag, RegistryCleanupScreen
from labdeck.tui.screens.registry.registry import RegistryScreen, RegistryTagsScreen

SIZE = (150, 50)


class Sandbox(TinySandbox):
    """A tiny sandbox whose asynchronous operations complete at once, with one known repository."""

    def __init__(self) -> None:
        super().__init__(async_delay=0)
        now = self.store.now()

        def tag(name: str, days: int, digest: str, size: int) -> Tag:
            return Tag(name, now - timedelta(days=days), f"sha256:{digest * 64}", digest * 64, size)

        project = self.store.project_by_path(GATEWAY)
        self.repo: Repository = add_repository(self.store, project, "known", [
            tag("latest", 1, "a", 1_000_000), tag("v2.0.0", 1, "a", 1_000_000),
            tag("v1.0.0", 60, "b", 2_000_000), tag("pr-1", 90, "c", 3_000_000),
            tag("pr-2", 5, "d", 4_000_000), tag("pr-3", 200, "c", 3_000_000),
            tag("main-abc", 120, "e", 5_000)])

    def tag_names(self) -> set[str]:
        return set(self.repo.tags)

    def model(self) -> RegistryRepository:
        return RegistryRepository(id=self.repo.id, name="known", path=f"{GATEWAY}/known",
                                  project_id=self.repo.project_id, tags_count=len(self.repo.tags))


async def open_repositories(pilot: Any, sandbox: Sandbox) -> RegistryScreen:
    await settle(pilot)
    screen = RegistryScreen(AreaRequest(scope=GATEWAY), now=sandbox.now)
    await pilot.app.push_screen(screen)
    await settle(pilot)
    return screen


async def open_tags(pilot: Any, sandbox: Sandbox) -> RegistryTagsScreen:
    await settle(pilot)
    screen = RegistryTagsScreen(sandbox.model(), now=sandbox.now)
    await pilot.app.push_screen(screen)
    await settle(pilot)
    return screen


async def open_cleanup(pilot: Any, sandbox: Sandbox) -> RegistryCleanupScreen:
    """`c` on the known repository's tags: the cleanup panel."""
    await open_tags(pilot, sandbox)
    await pilot.press("c")
    await pilot.pause()
    panel = pilot.app.screen
    assert isinstance(panel, RegistryCleanupScreen)
    return panel


def text(screen: Any, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def type_into(pilot: Any, selector: str, value: str) -> None:
    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    field.value = ""
    await pilot.press(*value)
    await pilot.pause()


async def confirm_typed(pilot: Any, expected: str) -> None:
    """Answer the type-to-confirm question the key just pressed asks, once it is there (the key router lets
    the key in once the panel is settled: its layers read, its table drawn)."""
    await until(pilot, lambda: isinstance(pilot.app.screen, TypeToConfirmScreen), "the confirmation")
    pilot.app.screen.query_one("#confirm-name", Input).value = expected
    await pilot.press("enter")
    await pilot.pause()


async def test_jump_opens_the_registry_with_the_scope_prompt() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "registry")
        assert isinstance(app.screen, RegistryScreen)
        assert app.screen.query_one("#registry-scope", Input).has_focus


async def test_repositories_of_a_project_and_of_a_group() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_repositories(pilot, sandbox)
        rows = {r.id: r for r in screen.table.rows}
        assert rows[sandbox.repo.id].tags_count == 7
        assert f"project {GATEWAY}: {len(rows)} repositories" in text(screen, "#registry-where")
        await pilot.press("f")
        scope = screen.query_one("#registry-scope", Input)
        scope.value = "acme"
        await pilot.press("enter")
        await settle(pilot)
        assert len(screen.table.rows) > len(rows) and "group acme" in text(screen, "#registry-where")


async def test_tags_show_age_size_and_digest() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tags(pilot, sandbox)
        rows = screen.table.rows
        assert len(rows) == 7 and rows[0].name in {"latest", "v2.0.0"}  # newest first
        line = next(screen.table.line_text(y) for y in range(1, 9) if "v1.0.0" in screen.table.line_text(y))
        assert "2mo" in line and "2.0 MB" in line and "bbbbbbbbbbbb" in line


async def test_cleanup_panel_from_rules_to_finished_job() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_cleanup(pilot, sandbox)
        await type_into(pilot, "#cleanup-delete", "pr-.*")
        assert text(panel, "#cleanup-summary").startswith("3 to delete · 4 kept (latest 1, not matched 3)")
        # digest c (pr-1, pr-3) counted once: the blobs no kept tag uses (the layers read once a plan shows)
        await until(pilot, lambda: "reading the layers" not in text(panel, "#cleanup-summary"), "the layers")
        assert "frees 7.0 MB (blobs no kept tag uses)" in text(panel, "#cleanup-summary")
        await type_into(pilot, "#cleanup-keep", "(")
        keep = panel.query_one("#cleanup-keep", Input)
        assert keep.has_class("-invalid") and "name_regex_keep: invalid RE2" in text(panel, "#cleanup-errors")
        assert panel.query_one("#cleanup-apply", Button).disabled
        await type_into(pilot, "#cleanup-keep", "pr-3")
        await type_into(pilot, "#cleanup-older-than", "30d")
        assert not keep.has_class("-invalid") and text(panel, "#cleanup-errors") == ""
        summary = text(panel, "#cleanup-summary")
        assert summary.startswith("1 to delete · 6 kept (latest 1, not matched 3, keep pattern 1, too new 1)")
        assert "cut-off" in summary and "▲ cut-off" in text(panel, "#cleanup-histogram")
        await pilot.pause(TABLE_DELAY + 0.1)
        rows: list[PlannedTag] = panel.table.rows
        # which rule decided each tag, in the words of `domain.cleanup_reasons`
        assert [(r.name, r.why) for r in rows if not r.why.startswith("does not match")][:4] == [
            ("pr-1", "older than 30d"), ("latest", "latest: never deleted"),
            ("pr-2", "newer than older_than (30d)"), ("pr-3", "matches the keep regex")]
        preview_left = {r.name for r in rows if not r.deleted}

        panel.table.focus()
        await pilot.press("a")
        await confirm_typed(pilot, f"{GATEWAY}/known")
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        await settle(pilot)
        assert job.state is JobState.SUCCEEDED and job.done == job.total == 1
        assert sandbox.tag_names() == preview_left
        assert "6 tags" in text(panel, "#cleanup-title")
        assert re.search(r"next allowed in (59|60)m", text(panel, "#cleanup-lock"))
        assert panel.query_one("#cleanup-apply", Button).disabled  # nothing left to delete
        await pilot.press("a")
        await pilot.pause()
        assert not isinstance(app.screen, TypeToConfirmScreen)
        assert any("Nothing to delete" in n.message for n in app._notifications)
        # within the hour a bulk request would be refused: the next cleanup goes one request per tag
        await type_into(pilot, "#cleanup-older-than", "")
        await until(pilot, lambda: any(row.name == "pr-2" and row.deleted for row in panel.table.rows),
                    "the plan without older_than")
        panel.table.focus()
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, TypeToConfirmScreen), "the confirmation")
        assert "one request per tag" in str(app.screen.query_one(".confirm-message", Static).render())
        await confirm_typed(pilot, f"{GATEWAY}/known")
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        assert job.state is JobState.SUCCEEDED and "one request per tag" in (job.summary or "")
        assert sandbox.tag_names() == preview_left - {"pr-2"}


async def test_lock_taken_elsewhere_deletes_the_names_one_request_each() -> None:
    sandbox = Sandbox()
    sandbox.repo.lease_until = sandbox.store.clock.time() + 1800
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_cleanup(pilot, sandbox)
        await type_into(pilot, "#cleanup-delete", ".*")
        panel.table.focus()
        await pilot.press("a")
        await confirm_typed(pilot, f"{GATEWAY}/known")
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        await pilot.pause()
        # the server refused the bulk request (a bulk delete sent from elsewhere within the hour): the
        # same names go one request per tag instead
        assert job.state is JobState.SUCCEEDED and "one request per tag" in (job.summary or "")
        assert sandbox.tag_names() == {"latest"}


async def test_marked_tags_are_deleted_one_request_each() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tags(pilot, sandbox)
        names = [t.name for t in screen.table.visible_rows]
        for name in ("pr-1", "main-abc"):
            screen.table.move_cursor(names.index(name))
            await pilot.press("space")
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.message.plain.endswith("\n\n2 tags: pr-1, main-abc")  # named (issue 24)
        assert f"of {screen.repository.path}?" in app.screen.message.plain  # by path (issue 34)
        await pilot.click("#confirm")
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        await settle(pilot)
        assert job.state is JobState.SUCCEEDED and sorted(r.item for r in job.results) == ["main-abc", "pr-1"]
        assert sandbox.tag_names() == {"latest", "v2.0.0", "v1.0.0", "pr-2", "pr-3"}
        assert len(screen.table.rows) == 5


async def test_delete_repository_as_a_job() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_repositories(pilot, sandbox)
        ids = [r.id for r in screen.table.visible_rows]
        screen.table.move_cursor(ids.index(sandbox.repo.id))
        await pilot.press("x")
        await pilot.pause()
        await confirm_typed(pilot, f"{GATEWAY}/known")
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        await settle(pilot)
        assert job.state is JobState.SUCCEEDED
        assert sandbox.repo.id not in sandbox.store.areas["registry"].repositories
        assert sandbox.repo.id not in {r.id for r in screen.table.rows}


async def test_read_only_hides_every_deletion() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        tags = await open_tags(pilot, sandbox)
        assert tags.check_action("delete_tags", ()) is False
        await pilot.press("c")
        await pilot.pause()
        panel = app.screen
        assert isinstance(panel, RegistryCleanupScreen) and panel.check_action("apply", ()) is False
        await type_into(pilot, "#cleanup-delete", ".*")
        assert panel.query_one("#cleanup-apply", Button).disabled


async def test_cleanup_from_the_repository_list_opens_the_panel_before_the_tag_table() -> None:
    """`c` on a repository reads its tags and opens the cleanup panel at once; the tag table under it is
    filled only when the panel is closed (15,000 rows nobody sees would delay the preview)."""
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_repositories(pilot, sandbox)
        target = next(i for i, r in enumerate(screen.table.rows) if r.id == sandbox.repo.id)
        screen.table.move_cursor(target)
        await pilot.press("c")
        await settle(pilot)
        panel = app.screen
        assert isinstance(panel, RegistryCleanupScreen) and len(panel.tags) == 7
        tags = next(s for s in app.screen_stack if isinstance(s, RegistryTagsScreen))
        assert tags.table.rows == []
        await pilot.press("escape")  # from the delete field, escape first hands focus back to the table
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is tags
        assert {t.name for t in tags.table.rows} == sandbox.tag_names()


async def test_what_is_deleted_is_exactly_what_the_preview_listed() -> None:
    """Issue 22 item 3: the preview said keep the 2 newest pr- tags; a tag pushed before the apply shifted
    `keep_n` on the server, which then deleted a tag the preview kept. Names are sent, not rules."""
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_cleanup(pilot, sandbox)
        await type_into(pilot, "#cleanup-delete", "pr-.*")
        await type_into(pilot, "#cleanup-keep-n", "2")
        await pilot.pause(TABLE_DELAY + 0.1)
        listed = {r.name for r in panel.table.rows if r.deleted}
        assert listed == {"pr-3"}
        now = sandbox.now()
        sandbox.repo.tags["pr-4"] = Tag("pr-4", now, "sha256:" + "f" * 64, "f" * 64, 10)  # pushed meanwhile
        panel.table.focus()
        await pilot.press("a")
        await confirm_typed(pilot, f"{GATEWAY}/known")
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        assert job.state is JobState.SUCCEEDED and not job.failed_items
        assert sandbox.tag_names() == {"latest", "v2.0.0", "v1.0.0", "pr-1", "pr-2", "main-abc", "pr-4"}
