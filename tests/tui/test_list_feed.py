"""Lists on any instance size in the TUI (issue 25), against the scale sandbox's million issues and users:
the first page paints at once and no more than two more are read before scrolling; more are read as the
cursor nears the end; the rows held stay under the ceiling (pages dropped at the top, read again when the
cursor comes back); a partial list sends its filter and its sort to the server and says so, a complete
one filters locally as ever; `G` on a partial list asks first, then reads everything as a job; the count
never looks complete when it is not."""

from __future__ import annotations

from areas_fixtures import LIST_ROUNDS, LIST_SIZE, huge_app, listing_requests, open_list
from areas_fixtures import list_footer as footer
from snapshot_apps import make_app, settle

from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.users.users import UsersScreen
from labdeck.tui.widgets.resource_view import ResourceView

SIZE = LIST_SIZE


async def test_a_million_issues_first_page_then_on_demand() -> None:
    app = huge_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_list(pilot, IssuesScreen(AreaRequest()))
        table = screen.table
        assert table.model.row_count == 100 and screen.feed.partial
        assert len(listing_requests(app, "/issues")) == 3  # the first page and two ahead, no more
        text = footer(screen, "#issues-view")
        assert "issues 1-100 of the first 300 (more on the server)" in text, text
        table.move_cursor(table.model.row_count - 5)  # near the end: the next page
        await settle(pilot, LIST_ROUNDS)
        assert table.model.row_count >= 200 and "more on the server" in footer(screen, "#issues-view")


async def test_the_rows_held_stay_under_the_ceiling_and_come_back() -> None:
    app = huge_app(max_rows=300)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_list(pilot, IssuesScreen(AreaRequest()))
        table, feed = screen.table, screen.feed
        for _ in range(12):
            table.move_cursor(table.model.row_count - 1)
            await settle(pilot, LIST_ROUNDS)
            assert table.model.row_count <= 300 and feed.window.held_rows <= 400
        assert feed.start >= 600 and feed.end >= 1_200
        top = table.rows[0].id
        table.move_cursor(0)  # back at the top of what is held: the page before is read again
        await settle(pilot, LIST_ROUNDS)
        assert table.rows[0].id == top + 100 and feed.start >= 500


async def test_a_partial_list_filters_and_sorts_on_the_server_and_says_so() -> None:
    app = huge_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_list(pilot, IssuesScreen(AreaRequest()))
        view = screen.query_one("#issues-view", ResourceView)
        await pilot.press("slash")
        view.filter_input.value = "parser"
        await pilot.press("enter")
        await settle(pilot, LIST_ROUNDS)
        sent = listing_requests(app, "/issues")[-1]
        assert "search=parser" in sent
        assert view.table.filter_text == ""  # not a filter of the loaded rows
        assert view.table.rows and all("parser" in i.title.lower() for i in view.table.rows)
        assert "search “parser” on the server" in footer(screen, "#issues-view")
        screen.refresh_data()  # `r` reads the same server-side listing again
        await settle(pilot, LIST_ROUNDS)
        assert "search=parser" in listing_requests(app, "/issues")[-1]
        assert "search “parser” on the server" in footer(screen, "#issues-view")
        view.table.sort_by("title")
        await settle(pilot, LIST_ROUNDS)
        assert "order_by=title" in listing_requests(app, "/issues")[-1]
        assert "sorted by Title on the server" in footer(screen, "#issues-view")
        titles = [i.title.lower() for i in view.table.rows]
        assert titles == sorted(titles)
        view.table.sort_by("labels")  # no server order for labels: only the loaded rows, and it says so
        await settle(pilot, LIST_ROUNDS)
        assert "only the loaded rows are sorted" in footer(screen, "#issues-view")


async def test_a_complete_list_filters_locally() -> None:
    app = make_app()  # the tiny sandbox: every issue fits, so the list is complete
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_list(pilot, IssuesScreen(AreaRequest()))
        view = screen.query_one("#issues-view", ResourceView)
        assert not screen.feed.partial and view.server_filter is None
        sent = len(app.session.client.request_log)
        await pilot.press("slash")
        await pilot.press("a", "p", "i")
        await settle(pilot, LIST_ROUNDS)
        assert view.table.filter_text == "api" and len(listing_requests(app, "/issues")) >= 1
        assert not [e for e in app.session.client.request_log.entries[sent:] if "/issues?" in e.path
                    and "search" in e.path]
        assert "more on the server" not in footer(screen, "#issues-view")


async def test_last_on_a_partial_list_asks_then_reads_everything_as_a_job() -> None:
    app = huge_app(virtual_users=12_000)  # above 10,000: no total, so the list stays partial
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_list(pilot, UsersScreen(AreaRequest()))
        table = screen.table
        assert screen.feed.partial and "more on the server" in footer(screen, "#users-view")
        table.focus()
        await pilot.press("G")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#cancel")
        await settle(pilot, LIST_ROUNDS)
        assert table.model.row_count < 12_000 and screen.feed.partial
        await pilot.press("G")
        await pilot.pause()
        await pilot.click("#confirm")
        await settle(pilot, LIST_ROUNDS)
        job = app.jobs.jobs[-1]
        await app.jobs.wait(job)
        await settle(pilot, LIST_ROUNDS)
        assert job.done >= 12_000 and "12,000 users read" in (job.summary or "")
        assert table.model.row_count == 12_000 and not screen.feed.partial
        assert table.cursor_index == 11_999
        assert footer(screen, "#users-view").startswith("12,000 rows")  # counted as every complete list


async def test_users_sort_goes_to_the_server_by_keyset() -> None:
    app = huge_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_list(pilot, UsersScreen(AreaRequest()))
        screen.table.sort_by("username")
        await settle(pilot, LIST_ROUNDS)
        sent = listing_requests(app, "/users")[-1]
        assert "order_by=username" in sent and "pagination=keyset" in sent
        names = [u.username for u in screen.table.rows]
        assert names == sorted(names) and len(names) >= 100


async def test_a_condition_with_no_match_stops_reading_by_itself() -> None:
    app = huge_app()  # no virtual user is banned: a condition tab that keeps nothing of what is read
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_list(pilot, UsersScreen(AreaRequest(scope="banned")))
        for _ in range(3):
            await settle(pilot, LIST_ROUNDS)
        def sent() -> int:  # the screen's keyset pages (the home screen's overview reads a few by offset)
            return sum("pagination=keyset" in path for path in listing_requests(app, "/users"))

        before = sent()
        text = footer(screen, "#users-view")
        assert screen.table.model.row_count == 0 and "0 shown" in text, text
        assert "none in the last 10 pages read (G reads on)" in text, text
        assert before <= 20  # the first page, ten with nothing kept, the pages ahead: then it stops
        await settle(pilot, LIST_ROUNDS)
        assert sent() == before

