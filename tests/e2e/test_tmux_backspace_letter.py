"""End to end in tmux: a backspace and a letter that reach labdeck in one terminal read are both typed, in
order (issue 33). `tmux send-keys -H 7f 71` writes the two bytes at once, as a fast typist or a slow
machine does; Textual typed the `q` first and the backspace then deleted it, so `teal` stayed `teal`
(`textual_internals.install_field_key_fix`)."""

from __future__ import annotations

import pytest
from tmux_terminal import OPEN_KEY, Terminal, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux]


def test_a_backspace_and_a_letter_in_one_read_both_reach_the_field(demo: Terminal) -> None:
    demo.ready()
    demo.jump("projects")
    demo.wait_for(OPEN_KEY)  # the list has the focus
    demo.type("/")
    demo.wait_gone(OPEN_KEY)  # the filter box has it
    demo.type("teal")
    demo.wait_until(lambda s: "filter “teal”" in s or "search “teal”" in s, "the filter reading teal")
    demo.tmux("send-keys", "-t", demo.name, "-H", "7f", "71")  # backspace and `q`, one write
    screen = demo.wait_until(lambda s: "filter “teaq”" in s or "search “teaq”" in s,
                             "the filter reading teaq")
    assert "teal" not in screen
