"""Deploy rules in the protected environments screen, by GitLab version (issue 32 item 3):

- 15.4 and later: adding a rule sends exactly one request, a `PUT` (the environment is never unprotected),
  and removing one too; no question about risks;
- before 15.4 (15.0): the change is unprotect then protect, and the confirmation names the risk first
  ("GitLab before 15.4 cannot change rules in place: ..."); Cancel sends nothing;
- before 15.4, when protecting again fails: said loudly, and "Protect again" protects the environment with
  the rules it had."""

from __future__ import annotations

from typing import Any

import httpx
from snapshot_apps import make_app, messages, settle, until
from test_deployments_screen import Sandbox as DeploymentsSandbox
from test_deployments_screen import fill_rule, open_protected
from textual.widgets import Button, Input, Select, Static

from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.deployments.protected_environments import AddRuleDialog

SIZE = (160, 50)
RISK = ("GitLab before 15.4 cannot change rules in place: labdeck will unprotect staging and protect it "
        "again; if that second request fails, staging stays unprotected")


class Sandbox(DeploymentsSandbox):
    """The deployments sandbox playing `gitlab_version`; `fail_posts` protects after an unprotect break
    before the server sees them (the second step of a two-step change, and the put-back)."""

    def __init__(self, gitlab_version: str, fail_posts: int = 0) -> None:
        super().__init__(gitlab_version=gitlab_version)
        self.fail_posts = fail_posts
        self.sent: list[tuple[str, str]] = []

    def factory(self, settings: Any) -> httpx.AsyncBaseTransport:
        inner, sandbox = httpx.ASGITransport(self.asgi), self

        class Breaking(httpx.AsyncBaseTransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                sandbox.sent.append((request.method, request.url.path.rsplit("/", 1)[-1]))
                unprotected = any(method == "DELETE" for method, _ in sandbox.sent)
                if request.method == "POST" and unprotected and sandbox.fail_posts > 0:
                    sandbox.fail_posts -= 1
                    raise httpx.ConnectError("connection refused", request=request)
                return await inner.handle_async_request(request)

        return Breaking()

    def changes(self) -> list[tuple[str, str]]:
        return [(method, last) for method, last in self.sent if method not in ("GET", "HEAD")]

    def kinds(self, name: str) -> list[str]:
        found = self.data.protected.get((self.project.id, name))
        return [] if found is None else [rule.kind for rule in found.rules]


async def submit_rule(pilot: Any, environment: str, level: int) -> AddRuleDialog:
    """The add-rule form filled and submitted, without waiting for its write (which waits for a question)."""
    await pilot.press("a")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, AddRuleDialog)
    dialog.query_one("#rule-environment", Input).value = environment
    dialog.query_one("#rule-level", Select).value = level
    dialog.query_one("#rule-add", Button).press()
    await pilot.pause()
    return dialog


def question_text(screen: Any) -> str:
    return " ".join(str(s.render()) for s in screen.query(Static))


async def test_adding_a_rule_on_15_4_and_later_sends_exactly_one_put() -> None:
    for version in ("15.4", "17.6"):
        sandbox = Sandbox(version)
        app = make_app(transport_factory=sandbox.factory)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_protected(pilot, sandbox)
            sandbox.sent.clear()
            await fill_rule(pilot, "staging", "role", level=60)
            assert sandbox.changes() == [("PUT", "staging")], version
            assert app.screen is screen  # no question: nothing is at risk
            assert sandbox.kinds("staging") == ["access_level", "user", "access_level"]
            assert any("staging: rule added" in m for m in messages(app))
            sandbox.sent.clear()
            screen.table.move_cursor(2)  # staging: carol
            await pilot.press("x")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen) and "15.4" not in question_text(app.screen)
            app.screen.query_one("#confirm", Button).press()
            await settle(pilot)
            assert sandbox.changes() == [("PUT", "staging")]
            assert sandbox.kinds("staging") == ["access_level", "access_level"]


async def test_before_15_4_the_confirmation_names_the_risk() -> None:
    sandbox = Sandbox("15.0")
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await open_protected(pilot, sandbox)
        sandbox.sent.clear()
        await submit_rule(pilot, "staging", 60)
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the two-step question")
        assert RISK in question_text(app.screen)
        assert sandbox.changes() == []  # nothing sent before the answer
        await pilot.press("escape")  # Cancel
        await until(pilot, lambda: not isinstance(app.screen, (ConfirmScreen, AddRuleDialog)), "closed")
        await settle(pilot)
        assert sandbox.changes() == [] and sandbox.kinds("staging") == ["access_level", "user"]
        assert any("left as they were" in m for m in messages(app))
        dialog = await submit_rule(pilot, "staging", 60)
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the two-step question")
        app.screen.query_one("#confirm", Button).press()
        await until(pilot, lambda: app.screen is not dialog and not isinstance(app.screen, ConfirmScreen),
                    "the form closed")
        await settle(pilot)
        assert sandbox.changes() == [("DELETE", "staging"), ("POST", "protected_environments")]
        assert sandbox.kinds("staging") == ["access_level", "user", "access_level"]


async def test_before_15_4_removing_a_rule_says_the_risk_in_its_confirmation() -> None:
    sandbox = Sandbox("15.0")
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_protected(pilot, sandbox)
        screen.table.move_cursor(2)  # staging: carol
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and RISK in question_text(app.screen)


async def test_before_15_4_a_failed_second_step_is_said_loudly_and_offered_again() -> None:
    sandbox = Sandbox("15.0", fail_posts=2)  # the new protection and the put-back both fail
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_protected(pilot, sandbox)
        screen.table.move_cursor(2)  # staging: carol
        await pilot.press("x")
        await pilot.pause()
        app.screen.query_one("#confirm", Button).press()
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen)
                    and "Protect it again" in question_text(app.screen), "the offer to protect again")
        assert sandbox.kinds("staging") == []  # unprotected, as the screen says
        assert any("staging is NOT protected" in m for m in messages(app))
        offer = question_text(app.screen)
        assert "Developers + Maintainers" in offer and "user " in offer
        app.screen.query_one("#confirm", Button).press()
        await until(pilot, lambda: sandbox.kinds("staging") == ["access_level", "user"], "protected again")
        await until(pilot, lambda: any("staging is protected again" in m for m in messages(app)), "said")
