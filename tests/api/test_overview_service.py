"""The overview's figures: read within a request budget (a huge instance is counted in its first pages and
said to be incomplete), and against the sandbox the seeded pending, dormant, blocked and banned users and the
expired certificates are found."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
from sandbox_clients import ClientPool

from labdeck.api.models.moderation import Condition
from labdeck.api.overview import USERS_PAGES, OverviewService, age_text, bar
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

CLOCK = ManualClock()
TODAY = datetime.fromtimestamp(CLOCK.time(), UTC)


async def test_a_huge_instance_is_counted_within_the_budget(make_client: Any) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        page = int(request.url.params.get("page", "1"))
        users = [{"id": page * 1000 + i, "username": f"u{page}-{i}", "state": "active",
                  "last_activity_on": "2020-01-01"} for i in range(100)]
        link = f'<https://gitlab.example.com/api/v4/users?page={page + 1}&per_page=100>; rel="next"'
        return httpx.Response(200, json=users, headers={"Link": link, "x-total": "50000"})

    service = OverviewService(make_client(handler), budget=12)
    figures = await service.users(TODAY.date())
    assert len(seen) == USERS_PAGES
    assert (figures.scanned, figures.total, figures.complete) == (USERS_PAGES * 100, 50000, False)
    assert figures.counts[Condition.DORMANT] == USERS_PAGES * 100
    assert service.budget.left == 12 - USERS_PAGES


async def test_the_sandbox_figures() -> None:
    pool = ClientPool(create_app(SandboxOptions(scale="tiny"), clock=CLOCK))
    try:
        service = OverviewService(pool.client(), now=lambda: TODAY)
        days = await service.dormant_days()
        figures = await service.users(TODAY.date(), days)
        assert figures.complete and figures.scanned == figures.total
        for condition in (Condition.PENDING, Condition.DORMANT, Condition.BLOCKED, Condition.BANNED):
            assert figures.counts.get(condition, 0) >= 1, condition
        certificates = await service.certificates()
        assert certificates.expired and certificates.complete
        # the sandbox serves GitLab's PagesDomainBasic (`certificate_expiration`): expiry still read
        assert [d.domain for d in certificates.expired] == ["old.acme.test"]
        assert [d.domain for d in certificates.soon] == ["soon.acme.test"]
        assert service.budget.left >= 12 - 4
    finally:
        await pool.aclose()


def test_ages_and_bars() -> None:
    assert age_text(None) == "not loaded"
    assert age_text(100.0, now=130.0) == "just now"
    assert age_text(100.0, now=100.0 + 180) == "3 min ago"
    assert age_text(100.0, now=100.0 + 7300) == "2 h ago"
    assert bar(5, 10, width=10) == "█████"
    assert bar(0, 10) == "" and bar(1, 1000, width=10) == "█"
