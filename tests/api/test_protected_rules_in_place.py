"""Deploy rules changed the way the instance can (issue 32 item 3), against the sandbox:

- GitLab 15.4+: adding or removing a rule is one `PUT .../protected_environments/:name` (GitLab's
  `ee/lib/api/protected_environments.rb`, gitlab#351854), never an unprotect; the journal keeps its
  inverse, and undoing it against the sandbox restores the rules read before it;
- before 15.4: unprotect then protect, asked first (`confirm_two_step`); when protecting again fails,
  `LeftUnprotected` says so and carries the old rules to protect it again; the unprotect is journalled with
  the protect that undoes it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from labdeck.api.client import ApiClient
from labdeck.api.deployments import (
    DeploymentsService,
    InPlaceUnsupported,
    LeftUnprotected,
    NotSent,
    RuleNotApplied,
    rule_of,
)
from labdeck.api.instance import InstanceService
from labdeck.api.journal import Journal, UndoRefused, UndoService
from labdeck.api.settings import ConnectionSettings
from labdeck.domain.deployments import DeployRule
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

GATEWAY = "acme/platform/api-gateway"


class Recording(httpx.AsyncBaseTransport):
    """The sandbox, every request noted; `fail_posts` protected-environment POSTs after the first DELETE
    break before the server sees them."""

    def __init__(self, app: Any, fail_posts: int = 0) -> None:
        self.inner = httpx.ASGITransport(app)
        self.sent: list[tuple[str, str]] = []
        self.fail_posts = fail_posts

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append((request.method, request.url.path))
        deleted = any(method == "DELETE" for method, _ in self.sent)
        if request.method == "POST" and deleted and self.fail_posts > 0 \
                and request.url.path.endswith("/protected_environments"):
            self.fail_posts -= 1
            raise httpx.ConnectError("connection refused", request=request)
        return await self.inner.handle_async_request(request)

    def changes(self) -> list[tuple[str, str]]:
        return [(m, p.rsplit("/", 1)[-1]) for m, p in self.sent if m not in ("GET", "HEAD")]


@dataclass
class Bench:
    service: DeploymentsService
    transport: Recording
    journal: Journal
    app: Any

    def rules(self, name: str) -> list[DeployRule]:
        pid = self.app.state.store.project_by_path(GATEWAY).id
        protected = self.app.state.store.areas["deployments"].protected.get((pid, name))
        return [] if protected is None else [DeployRule(r.access_level, r.user_id, r.group_id)
                                             for r in protected.rules]


async def bench(version: str, *, known: bool = True, fail_posts: int = 0) -> tuple[Bench, ApiClient]:
    app = create_app(SandboxOptions(scale="tiny", gitlab_version=version), clock=ManualClock())
    transport = Recording(app, fail_posts)
    settings = ConnectionSettings("http://sandbox.test", token=SecretStr("glpat-sandbox-root"))
    client = ApiClient(settings, transport=transport)
    client.journal = Journal()
    capabilities = await InstanceService(client).capabilities()
    service = DeploymentsService(client, supports=capabilities.supports if known else lambda f: None)
    transport.sent.clear()
    return Bench(service, transport, client.journal, app), client


@pytest.fixture(params=["15.4", "17.6"])
async def recent(request: pytest.FixtureRequest) -> AsyncIterator[Bench]:
    made, client = await bench(request.param)
    yield made
    await client.aclose()


@pytest.fixture
async def old() -> AsyncIterator[Bench]:
    made, client = await bench("15.0")
    yield made
    await client.aclose()


ROLE_60, ROLE_30 = DeployRule(access_level=60), DeployRule(access_level=30)


async def test_adding_and_removing_a_rule_is_one_put_each(recent: Bench) -> None:
    service = recent.service
    assert service.rules_in_place()
    before = recent.rules("staging")
    added = await service.add_rule(GATEWAY, "staging", ROLE_60)
    assert recent.transport.changes() == [("PUT", "staging")]  # never a DELETE: always protected
    assert [rule_of(level) for level in added.deploy_access_levels] == [*before, ROLE_60]
    recent.transport.sent.clear()
    removed = await service.remove_rule(GATEWAY, "staging", ROLE_30)
    assert recent.transport.changes() == [("PUT", "staging")]
    assert removed is not None and ROLE_30 not in [rule_of(level) for level in removed.deploy_access_levels]
    assert recent.rules("staging") == [before[1], ROLE_60]


async def test_undoing_an_added_rule_restores_the_rules_before_it(recent: Bench) -> None:
    before = recent.rules("staging")
    await recent.service.add_rule(GATEWAY, "staging", ROLE_60)
    entry = recent.journal.entries()[-1]
    assert (entry.kind, entry.method, entry.ok) == ("protected_environment.update", "PUT", True)
    assert entry.inverse is not None and entry.inverse["method"] == "PUT"
    assert [e.get("_destroy") for e in entry.inverse["body"]["deploy_access_levels"]] == [True]
    await UndoService(recent.service.client, recent.journal).undo(entry)
    assert recent.rules("staging") == before


async def test_undoing_a_removed_rule_puts_it_back(recent: Bench) -> None:
    before = recent.rules("staging")
    await recent.service.remove_rule(GATEWAY, "staging", ROLE_30)
    entry = recent.journal.entries()[-1]
    assert entry.inverse is not None
    assert entry.inverse["body"] == {"deploy_access_levels": [{"access_level": 30}]}
    await UndoService(recent.service.client, recent.journal).undo(entry)
    assert sorted(recent.rules("staging"), key=str) == sorted(before, key=str)


async def test_an_undo_is_refused_when_the_rules_changed_since(recent: Bench) -> None:
    await recent.service.add_rule(GATEWAY, "staging", ROLE_60)
    entry = recent.journal.entries()[-1]
    await recent.service.add_rule(GATEWAY, "staging", DeployRule(access_level=40))  # someone else, since
    with pytest.raises(UndoRefused, match="deploy access levels are not the ones the change left"):
        await UndoService(recent.service.client, recent.journal).undo(entry)
    assert ROLE_60 in recent.rules("staging")


async def test_a_rule_gitlab_leaves_out_is_said(recent: Bench) -> None:
    store = recent.app.state.store
    gateway = store.project_by_path(GATEWAY)
    outsider = next(u.id for u in store.users.values() if store.project_levels(u.id).get(gateway.id, 0) < 30)
    before = recent.rules("staging")
    with pytest.raises(RuleNotApplied, match="left the rule out of staging"):
        await recent.service.add_rule(GATEWAY, "staging", DeployRule(user_id=outsider))
    assert recent.rules("staging") == before


async def test_an_instance_of_unknown_version_without_the_put_says_so() -> None:
    made, client = await bench("15.0", known=False)
    async with client:
        assert made.service.rules_in_place()
        with pytest.raises(InPlaceUnsupported, match=r"needs GitLab 15\.4"):
            await made.service.add_rule(GATEWAY, "staging", ROLE_60)
        assert len(made.rules("staging")) == 2


async def test_before_15_4_the_two_steps_are_asked_first(old: Bench) -> None:
    service = old.service
    assert not service.rules_in_place()
    asked: list[str] = []

    async def no() -> bool:
        asked.append("no")
        return False

    async def yes() -> bool:
        asked.append("yes")
        return True

    with pytest.raises(NotSent):
        await service.add_rule(GATEWAY, "staging", ROLE_60, confirm_two_step=no)
    assert old.transport.changes() == []
    await service.add_rule(GATEWAY, "staging", ROLE_60, confirm_two_step=yes)
    assert asked == ["no", "yes"]
    assert old.transport.changes() == [("DELETE", "staging"), ("POST", "protected_environments")]
    assert old.rules("staging")[-1] == ROLE_60
    await service.add_rule(GATEWAY, "canary", ROLE_60, confirm_two_step=no)  # not protected: one POST
    assert old.rules("canary") == [ROLE_60]


async def test_the_unprotect_of_the_two_steps_is_journalled_with_its_undo(old: Bench) -> None:
    before = old.rules("staging")
    await old.service.add_rule(GATEWAY, "staging", ROLE_60)
    unprotect = next(e for e in old.journal.entries() if e.method == "DELETE")
    assert unprotect.kind == "protected_environment.delete" and unprotect.inverse is not None
    assert unprotect.inverse["body"]["deploy_access_levels"] == [{"access_level": 30},
                                                                 {"user_id": before[1].user_id}]
    undo = UndoService(old.service.client, old.journal)
    with pytest.raises(UndoRefused, match="exists again"):  # protected again by the second step
        await undo.undo(unprotect)
    await old.service.unprotect(GATEWAY, "staging")
    await undo.undo(old.journal.entries()[-1])  # the unprotect just made
    assert old.rules("staging") == [*before, ROLE_60]


async def test_when_protecting_again_fails_the_environment_is_said_unprotected() -> None:
    made, client = await bench("15.0", fail_posts=2)  # the new protection and the put-back both fail
    async with client:
        before = made.rules("staging")
        with pytest.raises(LeftUnprotected) as left:
            await made.service.add_rule(GATEWAY, "staging", ROLE_60)
        assert made.rules("staging") == []
        assert "staging is NOT protected" in str(left.value) and left.value.rules == before
        await made.service.protect(GATEWAY, "staging", left.value.rules)  # what the screen offers
        assert made.rules("staging") == before
