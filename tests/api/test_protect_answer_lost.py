"""Adding a deploy rule on GitLab before 15.4 replaces the protection (unprotect, then protect with the old
rules plus the new one: that GitLab has no update; 15.4+ is one PUT, `test_protected_rules_in_place.py`).
When the protect's answer is lost, the environment must never be left
unprotected: a re-read that finds it unprotected puts the old rules back; one that finds it protected leaves
the new protection. Either way the caller gets the lost-answer error (the form then re-reads the rule)."""

from __future__ import annotations

import httpx
import pytest

from faulty_sandbox import fast_retry_settings
from labdeck.api.client import ApiClient
from labdeck.api.deployments import DeploymentsService
from labdeck.api.errors import lost_write
from labdeck.domain.capabilities import Capabilities
from labdeck.domain.deployments import DeployRule
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions

GATEWAY = "acme/platform/api-gateway"
OLD = Capabilities(edition="ee", version=(15, 0, 0))  # the sandbox plays it too


class LoseProtect(httpx.AsyncBaseTransport):
    """The sandbox; the `lose`-th POST to protected_environments loses its answer: "before" the server
    sees it (nothing applied) or "after" (applied, body cut short)."""

    def __init__(self, how: str, lose: int) -> None:
        self.inner = httpx.ASGITransport(create_app(SandboxOptions(scale="tiny", gitlab_version="15.0")))
        self.how, self.lose, self.posts = how, lose, 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.endswith("/protected_environments"):
            self.posts += 1
            if self.posts == self.lose:
                if self.how == "before":
                    raise httpx.ReadError("connection reset by peer", request=request)
                response = await self.inner.handle_async_request(request)
                await response.aread()
                return httpx.Response(201, content=response.content[:7], request=request)
        return await self.inner.handle_async_request(request)


@pytest.mark.parametrize(("how", "kinds"), [("before", ["role"]), ("after", ["role", "role"])])
async def test_a_lost_protect_never_leaves_the_environment_unprotected(how: str, kinds: list[str]) -> None:
    transport = LoseProtect(how, lose=2)  # the first POST protects "canary"; the second replaces it
    async with ApiClient(fast_retry_settings("t"), transport=transport) as client:
        service = DeploymentsService(client, supports=OLD.supports)
        await service.add_rule(GATEWAY, "canary", DeployRule(access_level=60))
        with pytest.raises(Exception) as lost:
            await service.add_rule(GATEWAY, "canary", DeployRule(access_level=40))
        assert lost_write(lost.value)
        kept = await service.protected_environment(GATEWAY, "canary")
    assert [r.kind for r in kept.deploy_access_levels] == kinds
    levels = [r.access_level for r in kept.deploy_access_levels]
    assert levels == ([60] if how == "before" else [60, 40])
