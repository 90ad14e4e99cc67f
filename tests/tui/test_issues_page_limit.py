"""`:issues` on an instance whose listing never ends (issue 22 item 14): what was read is shown, never thrown
away, and the count says it is only the first part. Since lists are read on demand (issue 25) the screen reads
the first page and says "more on the server"; it no longer walks to `max_pages` (the client's page limit,
which keeps what it read, is tested in `tests/hostile/test_page_limit.py`)."""

from __future__ import annotations

import json
from typing import Any

import httpx
from pydantic import SecretStr
from snapshot_apps import make_app, messages, settle

from labdeck.api.settings import ConnectionSettings
from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.issues.issues import IssuesScreen

URL = "http://endless.test"


def endless(request: httpx.Request) -> httpx.Response:
    """`/issues` never ends (a full page and a next page, always); anything else answers `{}`."""
    if request.url.path != "/api/v4/issues":
        return httpx.Response(200, json={"id": 1, "username": "root", "is_admin": True})
    n = int(request.url.params.get("page", "1"))
    size = int(request.url.params.get("per_page", "20"))
    items = [{"id": n * 1000 + i, "iid": i + 1, "project_id": 1, "title": f"issue {n}.{i}"}
             for i in range(size)]
    return httpx.Response(200, content=json.dumps(items).encode(), headers={
        "content-type": "application/json", "x-page": str(n), "x-per-page": str(size),
        "x-next-page": str(n + 1), "link": f'<{URL}/api/v4/issues?page={n + 1}&per_page={size}>; rel="next"'})


async def test_the_issues_screen_shows_the_first_issues_and_says_so() -> None:
    settings = ConnectionSettings(URL, token=SecretStr("glpat-endless"), name="endless", max_pages=3)
    factory: Any = lambda _settings: httpx.MockTransport(endless)  # noqa: E731
    app = make_app(settings=settings, transport_factory=factory)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = IssuesScreen(AreaRequest())
        await app.push_screen(screen)
        await settle(pilot, rounds=3)
        assert screen.table.model.row_count == 100  # what was read is shown, not thrown away
        footer = screen.query_one("#issues-view").query_one(".resource-view--footer")
        assert "more on the server" in str(footer.render())
        assert not any("Error" in m for m in messages(app))
