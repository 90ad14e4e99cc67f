"""Pilot tests of `:groups` against the tiny sandbox: the lazy tree, the tabs, forms validated before
sending, masked values hidden until revealed, confirmations, the export job, and read-only mode."""

from __future__ import annotations

from pathlib import Path

from areas_fixtures import add_form, cells, on_variable, open_groups, pane, show_tab
from snapshot_apps import jump_to, make_app, press_for, sandbox, settle, type_to_confirm
from textual.widgets import Button, Input

from labdeck.api.models.projects import Project
from labdeck.tui.kit.forms import FormScreen
from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen
from labdeck.tui.screens.groups.groups import GroupsScreen

SIZE = (150, 42)


async def test_jump_opens_the_tree_with_lazy_subgroups() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "groups")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GroupsScreen)
        roots = [node.data.full_path for node in screen.tree.root.children]
        assert roots == ["acme", "hidden-lab", "opensource"]
        acme = screen.tree.root.children[0]
        assert len(acme.children) == 0 and screen.group is not None and screen.group.full_path == "acme"
        acme.expand()
        await settle(pilot)
        assert [n.data.full_path for n in acme.children] == ["acme/infra", "acme/platform", "acme/security"]
        assert all(isinstance(p, Project) for p in screen.table("projects").rows)
        assert "acme/handbook" in cells(screen, "projects")


async def test_tabs_show_the_selected_group() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, "acme/platform")
        assert screen.group is not None and screen.group.full_path == "acme/platform"
        assert cells(screen, "projects") == ["acme/platform/api-gateway", "acme/platform/web-portal"]
        await show_tab(pilot, screen, "labels")
        assert cells(screen, "labels", 1) == ["api", "bug", "documentation", "feature"]
        await show_tab(pilot, screen, "iterations")
        assert "Platform launch" in cells(screen, "iterations")
        await show_tab(pilot, screen, "members")
        assert cells(screen, "members") == []
        await pilot.press("i")
        await settle(pilot)
        assert "carol" in cells(screen, "members")
        await pilot.press("right_square_bracket")  # members -> labels
        await settle(pilot)
        assert screen.active_tab == "labels"


async def test_masked_values_stay_hidden_until_revealed() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        _, index = await on_variable(pilot, screen, "DEPLOY_TOKEN")
        assert cells(screen, "variables", 1)[index] == "••••••••"
        await pilot.press("m")
        await pilot.pause()
        assert cells(screen, "variables", 1)[index] == "s3cr3t-deploy-token-42"
        await pilot.press("m")
        await pilot.pause()
        assert cells(screen, "variables", 1)[index] == "••••••••"


async def test_variable_form_is_validated_before_sending_and_delete_needs_the_key() -> None:
    asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        form = await add_form(pilot, screen, "variables")
        form.query_one("#field-key", Input).value = "BAD-KEY"
        form.query_one("#field-value", Input).value = "x"
        assert form.submit() is False
        assert "letters, digits" in str(form.query_one("#error-key").render())
        form.query_one("#field-key", Input).value = "NEW_KEY"
        assert form.submit() is True
        await settle(pilot)
        store = asgi.state.store
        acme = store.group_by_path("acme")
        assert "NEW_KEY" in {v.key for v in store.areas["ci_variables"].groups[acme.id]}
        assert "NEW_KEY" in cells(screen, "variables")
        table = screen.table("variables")
        table.move_cursor([v.key for v in table.visible_rows].index("NEW_KEY"))
        confirm = await press_for(pilot, "x", TypeToConfirmScreen)
        await type_to_confirm(pilot, confirm, "NEW_KEY")
        await settle(pilot)
        assert "NEW_KEY" not in {v.key for v in store.areas["ci_variables"].groups[acme.id]}


async def test_label_created_with_a_colour_name() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        form = await add_form(pilot, screen, "labels")
        form.query_one("#field-name", Input).value = "urgent"
        form.query_one("#field-color", Input).value = "blurple"
        assert form.submit() is False
        form.query_one("#field-color", Input).value = "tomato"
        await pilot.click("#form-submit")
        await settle(pilot)
        label = next(lb for lb in screen.table("labels").rows if lb.name == "urgent")
        assert label.color == "#FF6347"
        screen.table("labels").move_cursor(screen.table("labels").visible_rows.index(label))
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and app.screen.focused is not None
        assert app.screen.focused.id == "cancel"
        await pilot.click("#confirm")
        await settle(pilot)
        assert "urgent" not in cells(screen, "labels", 1)


async def test_export_runs_as_a_job_and_saves_the_archive(tmp_path: Path) -> None:
    _asgi, factory = sandbox(async_delay=0.05)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, download_dir=tmp_path)
        job = screen.action_export()
        assert job is not None
        await app.jobs.wait(job)
        await settle(pilot)
        saved = tmp_path / "acme_export.tar.gz"
        assert saved.is_file() and saved.read_bytes()[:2] == b"\x1f\x8b"
        assert job.results and job.results[0].ok


async def test_read_only_hides_mutations() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        await show_tab(pilot, screen, "labels")
        screen.table("labels").focus()
        await pilot.press("a")
        await pilot.pause()
        assert app.screen is screen
        assert pane(screen, "labels").check_action("delete", ()) is False
        assert screen.check_action("export", ()) is True
        # the group's export and its relations export POST (the read-only guard refuses them): hidden
        assert screen.check_action("export_to", ()) is False
        await show_tab(pilot, screen, "transfer")
        assert pane(screen, "transfer").check_action("export_relations", ()) is False
        assert not app.screen.query(Button).filter("#form-submit")


async def test_billable_members_removal_and_override() -> None:
    asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, "hidden-lab")
        await show_tab(pilot, screen, "members")
        table = screen.table("members")
        table.focus()
        assert sorted(cells(screen, "members")) == ["bob", "carol", "dave"]
        await pilot.press("B")
        await settle(pilot)
        assert "erin" in cells(screen, "members") and set(cells(screen, "members", 2)) == {"billable"}
        table.move_cursor(cells(screen, "members").index("erin"))
        confirm = await press_for(pilot, "x", TypeToConfirmScreen)
        await type_to_confirm(pilot, confirm, "erin")
        await settle(pilot)
        experiments = asgi.state.store.project_by_path("hidden-lab/experiments")
        assert 6 not in asgi.state.store.project_members[experiments.id]  # erin left the whole hierarchy
        assert "erin" not in cells(screen, "members")
        await pilot.press("B")
        await settle(pilot)
        table.move_cursor(cells(screen, "members").index("bob"))
        await pilot.press("O")
        await settle(pilot)
        assert pane(screen, "members").overrides == {3}
        assert cells(screen, "members", 2)[cells(screen, "members").index("bob")] == "Owner (override)"


async def test_member_added_through_the_form() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, "opensource")
        form = await add_form(pilot, screen, "members")
        form.query_one("#field-user_ids", Input).value = "5, x"
        form.query_one("#field-expires_at", Input).value = "2001-01-01"
        assert form.submit() is False
        assert "past" in str(form.query_one("#error-expires_at").render())
        form.query_one("#field-user_ids", Input).value = "5,6"
        form.query_one("#field-expires_at", Input).value = ""
        assert form.submit() is True
        await settle(pilot)
        assert {"dave", "erin"} <= set(cells(screen, "members"))


async def test_relations_export_and_import_jobs(tmp_path: Path) -> None:
    asgi, factory = sandbox(async_delay=0.05)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, download_dir=tmp_path)
        await show_tab(pilot, screen, "transfer")
        transfer = pane(screen, "transfer")
        job = transfer.action_export_relations()
        assert job is not None
        await app.jobs.wait(job)
        await settle(pilot)
        assert {r.item for r in job.results} >= {"labels", "badges", "members"}
        assert all(r.ok for r in job.results)
        assert "labels" in cells(screen, "transfer") and set(cells(screen, "transfer", 1)) == {"finished"}
        table = screen.table("transfer")
        table.focus()
        table.move_cursor(cells(screen, "transfer").index("labels"))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, FormScreen)  # the folder, prefilled with the download folder
        assert app.screen.query_one("#field-folder", Input).value == str(tmp_path)
        assert app.screen.submit() is True
        await settle(pilot)
        assert (tmp_path / "acme_labels.ndjson.gz").is_file()
        export = screen.action_export()
        assert export is not None
        await app.jobs.wait(export)
        archive = tmp_path / "acme_export.tar.gz"
        transfer.import_chosen({"name": "Restored", "path": "restored", "file": str(archive),
                                "parent_id": ""})
        await pilot.pause()
        running = [j for j in app.jobs.jobs if j.title == "Import group restored"]
        assert running
        await app.jobs.wait(running[0])
        await settle(pilot)
        assert asgi.state.store.group_by_path("restored") is not None
        assert "restored" in [n.data.full_path for n in screen.tree.root.children]


async def test_job_progress_never_exceeds_its_total_in_the_job_centre(tmp_path: Path) -> None:
    from labdeck.tui.screens.shell.jobs import JOB_COLUMNS, JobsScreen
    from labdeck.tui.widgets.table_columns import column_cells
    job_cells = column_cells(JOB_COLUMNS)

    _asgi, factory = sandbox(async_delay=0.05)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, download_dir=tmp_path)
        await show_tab(pilot, screen, "transfer")
        jobs = [screen.action_export(), pane(screen, "transfer").action_export_relations()]
        seen: list[tuple[int, int | None]] = []
        app.jobs.on_change(lambda job: seen.append((job.done, job.total)))
        for job in jobs:
            assert job is not None
            await app.jobs.wait(job)
        await settle(pilot)
        assert seen and all(total is None or done <= total for done, total in seen)
        await jump_to(pilot, "tasks")
        assert isinstance(app.screen, JobsScreen)
        for job in jobs:
            assert job is not None
            _id, _title, _state, progress, _elapsed, result = (cell.plain for cell in job_cells(job))
            done, total = progress.split()[-1].split("/")
            assert int(done) <= int(total)
            assert result  # says what it did
        assert "relations exported" in job_cells(jobs[1])[-1].plain
