"""A worker never touches a screen that has closed (issue 13 item 3): a list that answers after its screen
was closed by `escape` ends quietly; the app keeps running and writes no crash report."""

from __future__ import annotations

from pathlib import Path

from gate import GatedSandbox
from snapshot_apps import make_app

from labdeck.tui.screens.users.users import UsersScreen

SIZE = (120, 36)


def no_files(folder: Path) -> bool:
    return not list(folder.iterdir())  # no crash report


async def test_users_list_answers_after_escape(tmp_path: Path) -> None:
    armed = [False]  # the home's overview reads the users first (and fills the cache): not held
    transport = GatedSandbox(lambda request: armed[0] and request.url.path == "/api/v4/users")
    app = make_app(transport_factory=lambda settings: transport, crash_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        armed[0] = True
        app.open_area("users")
        await pilot.pause()
        assert isinstance(app.screen, UsersScreen)
        await pilot.press("r")  # past the cache: the list is asked for again, and held
        while not transport.waiting:
            await pilot.pause()
        app.pop_to_home()  # every area closed (escape alone keeps the area open for a later `:users`)
        await pilot.pause()
        # the closed screen's worker stopped at once, not when Textual unmounts the screen
        assert not [w for w in app.workers if w.group == "users" and not w.is_finished]
        transport.release()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.is_running and app.return_code is None
    assert no_files(tmp_path)


async def test_search_then_escape_twice(tmp_path: Path) -> None:
    """`f alice` then escape twice while the search loads."""
    transport = GatedSandbox(
        lambda request: request.url.path == "/api/v4/users" and "search" in request.url.params)
    app = make_app(transport_factory=lambda settings: transport, crash_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        app.open_area("users")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("f", *"alice", "enter")
        while not transport.waiting:
            await pilot.pause()
        await pilot.press("escape", "escape")
        await pilot.pause()
        transport.release()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert not isinstance(app.screen, UsersScreen)
    assert no_files(tmp_path)
