"""End to end in tmux: the comment editor (issue 24, "typing real text"). `:issues`, `c` on an issue:

- keys typed in one burst with `c` land in the editor in order, enter as a new line;
- a multi-line bracketed paste (`tmux load-buffer` + `paste-buffer -p`, which sends its line ends as CR)
  keeps every line (the one-line prompt kept the first);
- a paste holding an ESC keeps its order and shows the control (it came out `^[31mYYYXXX`);
- `ctrl+s` sends the comment, every line of it, and the detail pane shows it;
- `ctrl+o` hands the terminal to `$VISUAL` (here a script that adds a line) and takes it back with the
  text the editor saved.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest
from tmux_terminal import Terminal, detail_text, footer_rows, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux]


def paste(terminal: Terminal, tmp_path: Path, name: str, text: str) -> None:
    """Paste `text` as a terminal does for a person (bracketed: labdeck asked for it)."""
    source = tmp_path / f"{name}.txt"
    source.write_text(text, encoding="utf-8")
    terminal.tmux("load-buffer", "-b", name, str(source))
    terminal.tmux("paste-buffer", "-p", "-d", "-b", name, "-t", terminal.name)


def test_a_comment_of_several_lines_typed_and_pasted_is_sent_whole(demo: Terminal, tmp_path: Path) -> None:
    demo.ready()
    demo.jump("issues")
    demo.wait_until(lambda s: (footer_rows(s) or (0, 0))[1] > 0 and "f Query" in s, "the first issues")
    demo.type("calpha-line")  # one burst with the key that opens the editor
    demo.keys("Enter")
    demo.type("beta-line")
    demo.wait_until(lambda s: any("alpha-line" in above and "beta-line" in below
                                  for above, below in pairwise(s.splitlines())), "two typed lines")
    demo.keys("Enter")

    paste(demo, tmp_path, "lines", "pasted one\npasted two\npasted three")
    screen = demo.wait_for("pasted three")
    assert all(f"pasted {n}" in screen for n in ("one", "two", "three")), screen
    assert "Comment on" in screen  # a pasted line end did not send the comment
    demo.keys("Enter")

    paste(demo, tmp_path, "escape", "XXX\x1b[31mYYY")
    screen = demo.wait_for("XXX␛[31mYYY")
    assert "^[31m" not in screen, screen

    demo.keys("C-s")
    demo.wait_gone("Comment on")
    demo.wait_for("comment added")
    demo.wait_until(lambda s: "pasted three" in detail_text(s) and "XXX␛[31mYYY" in detail_text(s),
                    "the comment, every line, in the detail pane")
    shown = detail_text(demo.screen())
    order = [shown.index(text) for text in ("alpha-line", "beta-line", "pasted one", "XXX")]
    assert order == sorted(order), shown


@pytest.fixture
def with_editor(tmp_path: Path) -> Iterator[Terminal]:
    """`labdeck --demo` in tmux with `$VISUAL` a script that adds a line to the file it is given."""
    script = tmp_path / "editor.sh"
    script.write_text('#!/bin/sh\nprintf "added-in-the-editor\\n" >> "$1"\n')
    script.chmod(0o700)
    env = {"LABDECK_CONFIG": str(tmp_path / "config.toml"), "XDG_STATE_HOME": str(tmp_path),
           "XDG_CACHE_HOME": str(tmp_path), "VISUAL": str(script)}
    term = Terminal(f"labdeck-e2e-{uuid.uuid4().hex[:8]}")
    term.start(f"{sys.executable} -m labdeck --demo; sleep 30", env)
    try:
        yield term
    finally:
        term.close()


def test_ctrl_o_edits_the_comment_in_the_editor_and_comes_back(with_editor: Terminal) -> None:
    term = with_editor
    term.ready()
    term.jump("issues")
    term.wait_until(lambda s: (footer_rows(s) or (0, 0))[1] > 0 and "f Query" in s, "the first issues")
    term.type("c")
    term.wait_for("Comment on")
    term.type("typed-in-labdeck")
    term.wait_for("typed-in-labdeck")
    term.keys("C-o")
    screen = term.wait_for("added-in-the-editor")
    assert "typed-in-labdeck" in screen and "Comment on" in screen, screen  # back, text kept and added to
    term.keys("C-s")
    term.wait_for("comment added")
    term.wait_until(lambda s: "added-in-the-editor" in detail_text(s), "the edited comment in the detail")
