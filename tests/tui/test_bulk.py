"""The one bulk action (`tui.bulk`), tested once where it lives: a result per item, a refusal of one item
never stops the others, skipped rows say why, the marks are cleared, the owner's list reloads and the lists
behind are told."""

from __future__ import annotations

from snapshot_apps import make_app, settle

from labdeck.api.errors import Forbidden
from labdeck.tui.bulk import BulkAction, start_bulk
from labdeck.tui.jobs import Job, JobState
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.table_model import Column


async def test_every_item_has_its_result_and_the_lists_reload() -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        table = ResourceTable([Column("name", "Name", text=str)])
        await app.screen.mount(table)
        table.set_rows(["a", "b", "c", "me"])
        table.action_toggle_mark()
        assert table.marked_rows
        reloaded: list[str] = []
        prepared: list[Job] = []

        async def apply(row: str) -> tuple[bool, str]:
            if row == "b":
                raise Forbidden(403, "403 Forbidden", "POST", "/x")
            return True, f"{row} done"

        async def prepare(job: Job) -> None:
            prepared.append(job)
            job.add_result("@ghost", False, "unknown user", advance=False)

        job = start_bulk(app.screen, BulkAction(
            "Do 4 things", ["a", "b", "c", "me"], str.upper, apply, noun="thing", verb="done",
            skip=lambda row: "that is you" if row == "me" else None, prepare=prepare,
            refresh=lambda: reloaded.append("own"), changed=lambda: reloaded.append("behind")), table=table)
        await app.jobs.wait(job)
        assert job.state is JobState.SUCCEEDED and prepared == [job]
        results = {r.item: (r.ok, r.message) for r in job.results}
        assert results["A"] == (True, "a done") and results["C"] == (True, "c done")
        assert results["B"][0] is False and "403" in results["B"][1]
        assert results["ME"] == (False, "skipped: that is you")
        assert results["@ghost"] == (False, "unknown user")
        assert job.done == 4 and "thing" in (job.summary or "")
        assert reloaded == ["own", "behind"] and not table.marked_rows


async def test_a_task_rereads_the_open_lists_its_changes_touch_before_it_says_done(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A bulk task started on one screen changes users: the open `:users` area (another mode, not shown) is
    read again before the task reports done (issue 34), the owner's screen is not asked twice, and a task
    that changes nothing re-reads nothing."""
    from snapshot_apps import jump_to, sandbox

    from labdeck.sandbox.clock import ManualClock
    from labdeck.tui.screens.users.users import UsersScreen

    asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await jump_to(pilot, "users")
        await settle(pilot)
        users_screen = app.screen
        assert isinstance(users_screen, UsersScreen)
        asked: list[str] = []
        monkeypatch.setattr(UsersScreen, "refresh_data",
                            lambda self: asked.append(app.jobs.jobs[-1].state.value))
        await jump_to(pilot, "overview")
        await settle(pilot)
        bob = asgi.state.store.user_by_username("bob").id
        session = app.context.session
        assert session is not None

        async def block(row: str) -> tuple[bool, str]:
            result = await session.services.users.try_moderate(bob, "block", "bob")
            return result.ok, result.message

        async def look(row: str) -> tuple[bool, str]:
            await session.client.get_json(f"/users/{bob}")
            return True, "read"

        job = start_bulk(app.screen, BulkAction("Block bob", ["bob"], str, block))
        await app.jobs.wait(job)
        assert job.state is JobState.SUCCEEDED and asked == ["running"]  # read again before "done"
        job = start_bulk(app.screen, BulkAction("Read bob", ["bob"], str, look))
        await app.jobs.wait(job)
        assert asked == ["running"]  # no change: nothing read again
        job = start_bulk(users_screen, BulkAction("Block bob again", ["bob"], str, block))
        await app.jobs.wait(job)
        assert asked == ["running"]  # the owner reads its own list (its `refresh`), not twice
