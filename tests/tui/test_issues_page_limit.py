"""`:issues` on an instance with more issues than `max_pages` pages (issue 22 item 14): the screen shows the
issues read, and says "first N (stopped at the page limit)", instead of an error over an empty list."""

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
        assert screen.table.model.row_count == 300  # what was read is shown, not thrown away
        assert any("first 300 (stopped at the page limit of 3 pages)" in m for m in messages(app))
