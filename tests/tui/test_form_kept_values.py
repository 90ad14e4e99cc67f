"""The shared form (`FormScreen`) keeps a stored value its choices lack (`domain.kept_values`): shown as it
is with a note and given back unchanged, instead of a form that cannot open (Textual refuses a Select value
that is not among its options) or a value silently replaced by the first choice."""

from __future__ import annotations

from datetime import date

from textual.app import App
from textual.widgets import Select, Static

from labdeck.tui.kit.members import member_form


async def test_a_project_owner_is_edited_with_its_level_kept() -> None:
    """A project member with the Owner role (50, GitLab 14.9+), edited: the project form's levels stop at
    Maintainer, so the stored level is shown as it is and sent back unchanged."""
    app = App[None]()
    async with app.run_test() as pilot:
        form = member_form("projects", date(2026, 1, 1), user_ids="alice", level=50, editing=True)
        await app.push_screen(form)
        await pilot.pause()
        level = form.query_one("#field-access_level", Select)
        assert level.value == 50
        assert str(level.query_one("#label", Static).render()) == "50 (not a value labdeck knows)"
        assert form.values()["access_level"] == 50
