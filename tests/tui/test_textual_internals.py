"""Textual's private parts that labdeck touches live in one module, checked against one Textual release: a
new release fails here first, so the module is read again before anything else breaks."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

from textual.app import App
from textual.command import CommandList
from textual.content import Content

from labdeck.tui import textual_internals

SRC = Path(__file__).resolve().parents[2] / "src" / "labdeck"


def test_the_installed_textual_is_the_one_the_internals_were_checked_against() -> None:
    assert version("textual") == textual_internals.CHECKED_AGAINST, (
        "read src/labdeck/tui/textual_internals.py against the new Textual, then update CHECKED_AGAINST")


def test_every_private_name_used_still_exists() -> None:
    app = App[None]()
    for name in ("_screen_stacks", "_return_code", "_exception", "_exception_event"):
        assert hasattr(app, name), name
    assert callable(getattr(CommandList, "_update_lines", None))


def test_the_pilot_idle_wait_the_tests_tune_still_reads_its_two_names() -> None:
    """tests/conftest.py shortens Pilot's idle step through these two module globals."""
    import inspect

    import textual._wait

    source = inspect.getsource(textual._wait.wait_for_idle)
    assert "sleep(SLEEP_GRANULARITY)" in source and "< SLEEP_IDLE" in source
    assert textual._wait.SLEEP_IDLE == textual._wait.SLEEP_GRANULARITY / 20


def test_no_other_module_touches_textual_internals() -> None:
    private = re.compile(r"^\s*(from|import) textual(\.\w+)*\._|from textual\.widgets\._")
    offenders = [str(path.relative_to(SRC)) for path in SRC.rglob("*.py")
                 if path.name != "textual_internals.py"
                 and any(private.search(line) for line in path.read_text().splitlines())]
    assert offenders == []


def test_a_notification_of_content_is_shown_as_that_content() -> None:
    text = Content.assemble("[b]from the server[/b]")
    assert Content.from_markup(text) is text  # what the toast does with a notification's message
    shown: list[object] = []
    app = App[None]()
    app.notify = lambda message, **options: shown.append(message)
    textual_internals.notify_content(app, text, timeout=3)
    assert shown == [text]
