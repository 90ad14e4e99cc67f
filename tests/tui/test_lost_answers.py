"""Writes whose answer was lost (issue 13 item 8, TUI side): the comment form stays open with the typed
text, says "the server may have applied this", re-reads the notes to find out and says what it found; the
issue's notes refresh; sending again after "not applied" adds exactly one comment. The same holds for every
`FormDialog` (the base): a refused or lost write keeps the form and its input."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from areas_fixtures import open_issues
from snapshot_apps import make_app, messages, sandbox, sandbox_settings, settle
from test_issues_screen import ALICE, SIZE, sandbox_issue, select
from textual.app import App, ComposeResult
from textual.widgets import Button, Input, Static

from labdeck.api.errors import Conflict, MalformedResponse
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.seed.issues import issues_data
from labdeck.tui.kit.forms import FormDialog, Problem
from labdeck.tui.screens.issues.dialogs import CommentScreen, EditIssueScreen
from labdeck.tui.widgets.text_editor import TextEditor
from labdeck.tui.writes import MAY_HAVE_APPLIED

REF, PROJECT, IID = "acme/platform/api-gateway#2", "acme/platform/api-gateway", 2


class LoseNoteAnswers(httpx.AsyncBaseTransport):
    """The sandbox; the next `lose` POSTs to notes lose their answer: `how` is "truncated" (applied, body
    cut short), "reset" (applied, connection reset while reading) or "before" (reset before the server
    saw it)."""

    def __init__(self, asgi: Any, how: str, lose: int = 1) -> None:
        self.inner = httpx.ASGITransport(asgi)
        self.how = how
        self.lose = lose

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not (request.method == "POST" and request.url.path.endswith("/notes") and self.lose > 0):
            return await self.inner.handle_async_request(request)
        self.lose -= 1
        if self.how == "before":
            raise httpx.ReadError("connection reset by peer", request=request)
        response = await self.inner.handle_async_request(request)
        await response.aread()
        if self.how == "reset":
            raise httpx.ReadError("connection reset by peer", request=request)
        return httpx.Response(response.status_code, headers={"content-type": "application/json"},
                              content=response.content[: len(response.content) // 2], request=request)


def note_bodies(asgi: Any) -> list[str]:
    issue = sandbox_issue(asgi, PROJECT, IID)
    return [n.body for n in issues_data(asgi.state.store).notes.get(issue.id, [])]


async def comment(pilot: Any, text: str) -> CommentScreen:
    await pilot.press("c")
    await pilot.pause()
    prompt = pilot.app.screen
    assert isinstance(prompt, CommentScreen)
    prompt.query_one(TextEditor).text = text
    await pilot.press("ctrl+s")
    await settle(pilot, rounds=2, failed_ok=True)
    return prompt


def form_message(prompt: CommentScreen) -> str:
    return str(prompt.query_one(f"#{prompt.ERROR}", Static).render())


@pytest.mark.parametrize(("how", "found"), [("truncated", "it was applied"), ("reset", "it was applied"),
                                            ("before", "it was not applied")])
async def test_comment_whose_answer_was_lost(how: str, found: str) -> None:
    asgi, _ = sandbox(ManualClock())
    transport = LoseNoteAnswers(asgi, how)
    factory: Callable[[Any], httpx.AsyncBaseTransport] = lambda settings: transport  # noqa: E731
    app = make_app(settings=sandbox_settings(ALICE), transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:feature label:backend")
        await select(pilot, screen, REF)
        screen.table.focus()
        before = note_bodies(asgi)
        prompt = await comment(pilot, "Looking into it")
        message = prompt.last_outcome.message if prompt.last_outcome else ""
        assert MAY_HAVE_APPLIED in message and found in message, message
        applied = how != "before"
        assert note_bodies(asgi) == before + (["Looking into it"] if applied else [])
        assert app.is_running and app.return_code is None
        if not applied:  # the form stays, text kept: sending again is safe and adds it once
            assert app.screen is prompt
            assert prompt.query_one(TextEditor).text == "Looking into it"
            assert found in form_message(prompt)
            await pilot.press("ctrl+s")
            await settle(pilot, rounds=2, failed_ok=True)
            assert app.screen is screen
            assert note_bodies(asgi) == [*before, "Looking into it"]
        else:  # found on the server: the form closed and said so
            await settle(pilot, rounds=2, failed_ok=True)
            assert app.screen is screen
            assert any(found in m for m in messages(app))
        extras = screen.extras.get(screen.current().id)  # type: ignore[union-attr]
        assert extras is not None and extras.notes[-1].body == "Looking into it"  # the notes were re-read


class NameForm(FormDialog[list[str]]):
    SUBMIT, ERROR = "ok", "err"

    def compose(self) -> ComposeResult:
        yield Input(id="name")
        yield Static("", id="err")
        yield Button("OK", id="ok")

    def value(self) -> list[str] | Problem:
        text = self.query_one("#name", Input).value
        return [text] if text else Problem("a name is needed")


class Host(App[None]):
    def __init__(self, form: NameForm) -> None:
        super().__init__()
        self.form = form
        self.results: list[Any] = []

    def on_mount(self) -> None:
        self.push_screen(self.form, self.results.append)


@pytest.mark.parametrize(("error", "expected"), [
    (Conflict(409, "Name has already been taken"), "409: Name has already been taken"),
    (MalformedResponse("the server sent a body that is not JSON"), MAY_HAVE_APPLIED),
])
async def test_every_form_dialog_keeps_its_input_when_the_write_fails(error: Exception,
                                                                      expected: str) -> None:
    calls: list[str] = []

    async def write(value: list[str]) -> str:
        calls.append(value[0])
        if len(calls) == 1:
            raise error
        return value[0].upper()

    async def verify(value: list[str]) -> bool:
        return False

    form = NameForm()
    form.write_with, form.verify_with = write, verify
    app = Host(form)
    async with app.run_test() as pilot:
        await pilot.pause()
        form.query_one("#name", Input).value = "web"
        form.query_one("#ok", Button).press()
        await settle(pilot, rounds=2, failed_ok=True)
        assert app.screen is form and form.query_one("#name", Input).value == "web"
        assert expected in str(form.query_one("#err", Static).render())
        assert app.results == []
        form.query_one("#ok", Button).press()
        for _ in range(50):  # the dismiss callback runs after the write's worker, on a later turn
            await settle(pilot, rounds=2, failed_ok=True)
            if app.results:
                break
        assert calls == ["web", "web"] and app.results == ["WEB"]


class TruncatePut(httpx.AsyncBaseTransport):
    """The sandbox; the first PUT to an issue is applied and its answer cut short."""

    def __init__(self, asgi: Any) -> None:
        self.inner = httpx.ASGITransport(asgi)
        self.lose = 1

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.method != "PUT" or self.lose <= 0:
            return response
        self.lose -= 1
        await response.aread()
        return httpx.Response(200, headers={"content-type": "application/json"},
                              content=response.content[:10], request=request)


async def test_edit_whose_answer_was_lost_is_checked_by_reading_the_issue() -> None:
    asgi, _ = sandbox(ManualClock())
    transport = TruncatePut(asgi)
    app = make_app(settings=sandbox_settings(ALICE), transport_factory=lambda settings: transport)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:feature label:backend")
        await select(pilot, screen, REF)
        screen.table.focus()
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, EditIssueScreen)
        dialog.query_one("#issues-edit-title", Input).value = "Renamed while the proxy hiccups"
        await pilot.click("#save")
        await settle(pilot, rounds=2, failed_ok=True)
        message = dialog.last_outcome.message if dialog.last_outcome else ""
        assert MAY_HAVE_APPLIED in message and "it was applied" in message, message
        assert sandbox_issue(asgi, PROJECT, IID).title == "Renamed while the proxy hiccups"
        await settle(pilot, rounds=2, failed_ok=True)
        assert app.screen is screen  # applied: the dialog closed, and the issue was re-read
        assert screen.current().title == "Renamed while the proxy hiccups"  # type: ignore[union-attr]


async def test_a_second_submit_while_the_write_is_in_flight_sends_nothing() -> None:
    """Enter pressed twice: the first request may already be on the server, so the second submit neither
    cancels it nor sends it again (enter reaches `submit_value` even when the button is disabled)."""
    calls: list[str] = []
    release = asyncio.Event()

    async def write(value: list[str]) -> str:
        calls.append(value[0])
        await release.wait()
        return value[0].upper()

    async def verify(value: list[str]) -> bool:
        return False

    form = NameForm()
    form.write_with, form.verify_with = write, verify
    app = Host(form)
    async with app.run_test() as pilot:
        await pilot.pause()
        form.query_one("#name", Input).value = "web"
        form.submit_value(["web"])
        await pilot.pause()
        form.submit_value(["web"])  # as enter in the field does, while "Sending…"
        await pilot.pause()
        release.set()
        for _ in range(50):
            await settle(pilot, rounds=2, failed_ok=True)
            if app.results:
                break
        assert calls == ["web"] and app.results == ["WEB"]
