"""The project view's Branches tab, a read-only tab made of a catalogue entry, a binding, a model and a pane
declaration (issue 35): it lists the seeded branches as GitLab's listing gives them (by name), `r` reads
past the list cache, read-only mode lists them as ever (a read), and with a CI job token, which GitLab does
not let into the branches listing, the kit says so in place of the rows and sends nothing."""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr
from snapshot_apps import SANDBOX_URL, make_app, settle, until
from tiny_sandbox import GATEWAY, Sandbox

from labdeck.api.settings import ConnectionSettings
from labdeck.sandbox.seed.git_history import project_repository
from labdeck.tui.screens.projects.branches import BranchesPane
from labdeck.tui.screens.projects.view import ProjectViewScreen

SIZE = (160, 50)


def seeded(sandbox: Sandbox) -> list[str]:
    """The project's branches as the sandbox holds them, by name (GitLab's order)."""
    return sorted(project_repository(sandbox.store, sandbox.store.project_by_path(GATEWAY)).branches)


def branch_reads(app: Any) -> int:
    return sum(1 for e in app.request_log.entries if "/repository/branches" in e.path)


async def open_branches(pilot: Any, sandbox: Sandbox) -> BranchesPane:
    await settle(pilot)
    view = ProjectViewScreen(sandbox.project(), tab="branches", now=sandbox.now)
    await pilot.app.push_screen(view)
    await settle(pilot, rounds=2, failed_ok=True)
    return view.query_one(BranchesPane)


async def test_the_branches_tab_lists_the_seeded_branches_and_r_reads_past_the_cache(
        tiny_sandbox: Sandbox) -> None:
    app = make_app(transport_factory=tiny_sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_branches(pilot, tiny_sandbox)
        names = seeded(tiny_sandbox)
        assert names == ["develop", "feature/health-endpoint", "main"]
        await until(pilot, lambda: [b.name for b in pane.table.rows] == names, "the seeded branches")
        main = next(b for b in pane.table.rows if b.name == "main")
        assert main.default and main.protected and not main.merged and main.commit is not None
        assert next(b for b in pane.table.rows if b.name == "feature/health-endpoint").merged
        repo = project_repository(tiny_sandbox.store, tiny_sandbox.store.project_by_path(GATEWAY))
        repo.branches["hotfix"] = repo.branches["main"]  # a branch pushed meanwhile
        tiny_sandbox.store.touch()
        reads = branch_reads(app)
        pane.load()  # a read through the cache: the list as it was, no request
        await settle(pilot)
        assert [b.name for b in pane.table.rows] == names and branch_reads(app) == reads
        pane.table.focus()
        await pilot.press("r")
        await settle(pilot)
        assert [b.name for b in pane.table.rows] == [*names[:2], "hotfix", "main"]
        assert branch_reads(app) == reads + 1


async def test_read_only_mode_lists_the_branches(tiny_sandbox: Sandbox) -> None:
    app = make_app(transport_factory=tiny_sandbox.factory, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_branches(pilot, tiny_sandbox)
        await until(pilot, lambda: [b.name for b in pane.table.rows] == seeded(tiny_sandbox), "the branches")
        assert pane.MUTATING_ACTIONS == frozenset()  # nothing to hide: the tab only reads


async def test_a_job_token_is_told_the_branches_are_out_of_its_reach(tiny_sandbox: Sandbox) -> None:
    """GitLab's job token reaches a few endpoints (doc/ci/jobs/ci_job_token.md), the branches listing not
    among them (gitlab-org/gitlab#555868 proposes it): the catalogue says so (`job_token` unset) and the kit
    shows it where the rows would be, without a request."""
    settings = ConnectionSettings(url=SANDBOX_URL, token=SecretStr("glcbt-sandbox-job"), auth="job",
                                  name="ci")
    app = make_app(settings=settings, transport_factory=tiny_sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.session is not None and app.session.job is not None, "the job read")
        pane = await open_branches(pilot, tiny_sandbox)
        await until(pilot, lambda: pane.table.empty_text == "Not reachable with a CI job token", "the reason")
        assert pane.table.rows == [] and branch_reads(app) == 0


async def test_the_branches_are_read_when_the_tab_is_first_shown(tiny_sandbox: Sandbox) -> None:
    """The project view opens on another tab without asking for the branches (`READ_WHEN_SHOWN`)."""
    app = make_app(transport_factory=tiny_sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = ProjectViewScreen(tiny_sandbox.project(), tab="wiki", now=tiny_sandbox.now)
        await app.push_screen(view)
        await settle(pilot, rounds=2)
        assert branch_reads(app) == 0
        view.show_tab("branches")
        await until(pilot, lambda: view.query_one(BranchesPane).table.rows, "the branches")
        assert branch_reads(app) == 1
