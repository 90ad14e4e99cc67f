"""Issues after a group path that does not exist: the previous rows and detail go, and the error is shown
where the rows were (and a good path brings rows back)."""

from __future__ import annotations

from areas_fixtures import open_issues
from snapshot_apps import make_app, settle, until
from test_issues_screen import SIZE, submit


async def test_a_missing_group_clears_the_rows_and_shows_the_error_in_their_place() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, scope="acme")
        assert screen.table.rows
        detail = screen.query_one(".resource-view--detail")
        await until(pilot, lambda: str(detail.render()).strip(), "the detail of an acme issue")
        await settle(pilot)
        await submit(pilot, screen, "", scope="acme/no-such-group")
        assert screen.table.rows == []
        assert "acme/no-such-group" in screen.table.empty_text and "404" in screen.table.empty_text
        assert str(detail.render()).strip() == ""
        await submit(pilot, screen, "", scope="acme")
        assert screen.table.rows and screen.table.empty_text == "No issues"
