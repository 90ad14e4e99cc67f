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
