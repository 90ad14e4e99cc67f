"""The command palette's page keys right after `ctrl+p` (issue 13 item 4: `KeyError` in Textual's
OptionList) and every way out asking first while jobs run (item 12)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from snapshot_apps import jump_to, make_app, settle
from textual import events
from textual.command import CommandList

from labdeck.tui.palette import LabdeckPalette
from labdeck.tui.screens.confirm import ConfirmScreen

SIZE = (100, 30)


@pytest.mark.parametrize("keys", [("ctrl+p", "pagedown"), ("ctrl+p", "pageup"),
                                  ("ctrl+p", "g", "pagedown", "pageup", "pagedown")])
async def test_page_keys_at_once_after_ctrl_p(keys: tuple[str, ...]) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        for key in keys:  # all queued before the palette has laid out its list, as fast typing does
            app.post_message(events.Key(key, None))
        await pilot.pause()
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert isinstance(app.screen, LabdeckPalette)


async def test_page_keys_still_page_once_the_list_is_shown() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("ctrl+p")
        command_list = app.screen.query_one(CommandList)
        while command_list.option_count < 10:
            await pilot.pause()
        await pilot.pause()
        start = command_list.highlighted
        await pilot.press("pagedown")
        assert command_list.highlighted is not None and command_list.highlighted > (start or 0)


async def start_blocked_job(app: Any) -> asyncio.Event:
    gate = asyncio.Event()

    async def work(job: Any) -> None:
        await gate.wait()

    app.start_job("slow", work)
    return gate


def quit_via_palette_system_command(app: Any) -> None:
    command = next(c for c in app.get_system_commands(app.screen) if c.title == "Quit")
    app.call_later(command.callback)


@pytest.mark.parametrize("way", ["q", "ctrl+q", "palette", "palette-system"])
async def test_every_way_out_asks_while_jobs_run(way: str) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        gate = await start_blocked_job(app)
        await pilot.pause()
        if way == "palette":
            await pilot.press("ctrl+p", *"quit")
            await pilot.pause(0.2)
            await pilot.press("enter")
        elif way == "palette-system":
            quit_via_palette_system_command(app)
        else:
            await pilot.press(way)
        await pilot.pause()
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, ConfirmScreen)
        await pilot.press("q", "ctrl+q")  # a second `q` or ctrl+q does not stack a second question
        await pilot.pause()
        assert sum(isinstance(s, ConfirmScreen) for s in app.screen_stack) == 1
        await pilot.press("escape")  # Cancel: stays
        await pilot.pause()
        assert app.is_running and not isinstance(app.screen, ConfirmScreen)
        await pilot.press(way if way in ("q", "ctrl+q") else "q")
        await pilot.pause()
        await pilot.click("#confirm")
        await pilot.pause()
        assert not app.is_running
        gate.set()


async def test_without_jobs_quit_is_immediate() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        quit_via_palette_system_command(app)
        await pilot.pause()
        assert not app.is_running


async def test_the_quit_question_follows_the_jobs_while_it_is_open() -> None:
    """Asked while a job runs, the question says so; once the job finishes it no longer claims that a job
    runs (it used to keep saying "1 job(s) still running")."""
    from textual.widgets import Static

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        gate = await start_blocked_job(app)
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        question = app.screen
        assert isinstance(question, ConfirmScreen)

        def said() -> str:
            return str(question.query_one(".confirm-message", Static).render())

        assert "1 task still running" in said()
        gate.set()
        for job in app.jobs.jobs:
            await app.jobs.wait(job)
        await pilot.pause()
        assert "still running" not in said() and "nothing will be cancelled" in said()
        await pilot.click("#confirm")
        await pilot.pause()
        assert not app.is_running


async def test_ctrl_q_quits_from_a_field_of_the_first_run_screen() -> None:
    """Issue 33: ctrl+q (the app's quit) did nothing while a field of the first-run screen had the focus,
    and ctrl+c (on its choice field) said to press it."""
    from textual.widgets import Input, Select

    app = make_app(first_run=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.focused, Input)  # the first field (the instance's name)
        await pilot.press("q")
        assert app.is_running and app.focused.value.endswith("q")  # a letter is typed, never run
        app.screen.query_one(Select).focus()
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause()
        hint = [str(n.message) for n in app._notifications][-1]
        assert "^q" in hint  # the hint names the key that quits here and from the fields (ctrl+q)
        app.screen.query_one("#url", Input).focus()
        await pilot.pause()
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running


async def test_ctrl_q_quits_from_a_field_of_any_screen() -> None:
    from textual.widgets import Input

    from labdeck.tui.widgets.footer import footer_entries

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await jump_to(pilot, "projects")
        await settle(pilot)
        await pilot.press("slash")  # the list's filter field
        await pilot.pause()
        assert isinstance(app.focused, Input)
        shown, _help = footer_entries(app.screen)
        assert ("ctrl+q", "Quit") in [(entry.key, entry.binding.description) for entry in shown]  # said
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running
