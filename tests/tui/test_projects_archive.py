"""`a` in `:projects` archives a project and, pressed again, unarchives it, against the sandbox (which
serves `POST /projects/:id/archive` and `/unarchive` as GitLab does): confirmed first, the row shows the
new state, the list read again from the instance shows it too, and each change is journalled with the
other as its undo (issue 32 item 13: the sandbox answered 404 to both, so the demo's action always
failed)."""

from __future__ import annotations

from snapshot_apps import jump_to, make_app, messages, sandbox_settings, settle, until
from tiny_sandbox import GATEWAY, Sandbox

from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.projects.projects import ProjectsScreen

SIZE = (120, 30)


def row_of(screen: ProjectsScreen, path: str):  # type: ignore[no-untyped-def]
    return next(p for p in screen.table.rows if p.path_with_namespace == path)


def line_of(screen: ProjectsScreen, path: str) -> str:
    table = screen.table
    return next(table.line_text(y) for y in range(table.size.height) if path in table.line_text(y))


async def toggle(pilot, screen: ProjectsScreen, path: str, verb: str) -> None:  # type: ignore[no-untyped-def]
    table = screen.table
    table.focus()
    table.move_cursor(next(i for i, p in enumerate(table.visible_rows) if p.path_with_namespace == path))
    await pilot.press("a")
    await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), "the confirmation")
    confirm = pilot.app.screen
    assert verb in str(confirm.query_one("#confirm").label)
    confirm.query_one("#confirm").press()
    await settle(pilot, rounds=2)


async def test_a_archives_then_unarchives_a_sandbox_project() -> None:
    sandbox = Sandbox()
    record = sandbox.store.project_by_path(GATEWAY)
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "projects")
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        await until(pilot, lambda: any(p.path_with_namespace == GATEWAY for p in screen.table.rows),
                    "the gateway listed")
        assert row_of(screen, GATEWAY).archived is False
        await toggle(pilot, screen, GATEWAY, "Archive")
        await until(pilot, lambda: row_of(screen, GATEWAY).archived is True, "the row archived")
        assert record.archived is True
        assert "archived" in line_of(screen, GATEWAY)
        await pilot.press("r")  # read from the instance again: still archived
        await settle(pilot, rounds=2)
        assert row_of(screen, GATEWAY).archived is True and "archived" in line_of(screen, GATEWAY)
        assert "acme/platform/api-gateway: archived" in messages(app)
        journal = app.session.client.journal
        assert journal is not None
        entry = journal.entries()[-1]
        assert (entry.kind, entry.target, entry.ok) == ("project.archive", GATEWAY, True)
        assert entry.inverse is not None and entry.inverse["path"].endswith("/unarchive")
        await toggle(pilot, screen, GATEWAY, "Unarchive")
        await until(pilot, lambda: row_of(screen, GATEWAY).archived is False, "the row unarchived")
        assert record.archived is False
        assert "archived" not in line_of(screen, GATEWAY)


async def test_a_refusal_says_who_may_archive() -> None:
    """alice is a Developer of the gateway: GitLab answers 403 (only Owners and administrators have
    `archive_project`); the console says so rather than a bare "403 Forbidden", and nothing changed."""
    sandbox = Sandbox()
    record = sandbox.store.project_by_path(GATEWAY)
    app = make_app(transport_factory=sandbox.factory, settings=sandbox_settings("glpat-sandbox-alice"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "projects")
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        await until(pilot, lambda: any(p.path_with_namespace == GATEWAY for p in screen.table.rows),
                    "the gateway listed")
        await toggle(pilot, screen, GATEWAY, "Archive")
        await until(pilot, lambda: any("Owner" in m for m in messages(app)), "the refusal")
        said = next(m for m in messages(app) if "Owner" in m)
        assert said.startswith("acme/platform/api-gateway: not archived (403 Forbidden): only the project's")
        assert record.archived is False and row_of(screen, GATEWAY).archived is False
