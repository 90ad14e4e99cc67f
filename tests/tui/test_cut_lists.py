"""A list cut at `max_pages` (issue 32 item 8) is never taken for the whole: its count says "cut at
max_pages", an export or a bulk action over it asks which rows and says what "all matching" covers (the
first rows max_pages lets labdeck read, not every matching one), the task says the cut, and `G` says it
cannot read further instead of claiming the end of the list."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from areas_fixtures import LIST_ROUNDS, LIST_SIZE, export_to, open_list
from areas_fixtures import list_footer as footer
from snapshot_apps import make_app, messages, sandbox, sandbox_settings, settle

from labdeck.api.settings import ConnectionSettings
from labdeck.tui.areas import AreaRequest
from labdeck.tui.jobs import outcome_text
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.scope_choice import ScopeChoice


def cut_app(max_pages: int, **options: Any) -> Any:
    base = sandbox_settings()
    settings = ConnectionSettings(base.url, token=base.token, name=base.name, max_pages=max_pages)
    return make_app(settings=settings, transport_factory=sandbox(None, **{"scale": "huge", **options})[1])


async def test_export_and_all_matching_over_a_cut_list_say_what_they_cover(tmp_path: Path) -> None:
    app = cut_app(3, virtual_issues=2_500)  # 25 pages of 100 on the server, 3 read at most
    async with app.run_test(size=LIST_SIZE) as pilot:
        screen = await open_list(pilot, IssuesScreen(AreaRequest()))
        assert screen.table.model.row_count == 300
        assert screen.feed.partial  # a list cut at max_pages is not the whole list
        assert "of the first 300 of 2,500, cut at max_pages" in footer(screen, "#issues-view")

        screen.action_export_list()
        await pilot.pause()
        question = app.screen
        assert isinstance(question, ScopeChoice)
        said = question.message.plain
        assert "the 300 loaded issues of about 2,500" in said, said
        assert "the first 300 of about 2,500 issues (cut at max_pages" in said, said
        await pilot.press("escape")
        await settle(pilot, LIST_ROUNDS)

        job = await export_to(pilot, screen, "scope-all", tmp_path / "all.csv")
        assert job.error is None, job.error
        assert len(list(csv.reader((tmp_path / "all.csv").open()))) == 1 + 300
        assert "cut at max_pages" in job.title
        assert "cut at max_pages" in outcome_text(job)  # the task says it covered only the first 300

        screen.table.focus()
        await pilot.press("G")
        await settle(pilot, LIST_ROUNDS)
        assert not isinstance(app.screen, ScopeChoice) and app.screen is screen
        assert any("cut at max_pages" in m for m in messages(app))
