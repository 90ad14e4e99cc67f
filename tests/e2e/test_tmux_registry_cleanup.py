"""End to end in tmux: a person previews a registry cleanup and leaves without applying it.

`:registry`, a group path, a repository's tags, `c`, a delete pattern: the panel shows how many tags go
and which rows match; escape leaves, and the request log shows that nothing was deleted.
"""

from __future__ import annotations

import re

import pytest
from tmux_terminal import Terminal, footer_rows, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux]


def test_cleanup_preview_counts_matches_and_leaves_without_deleting(demo: Terminal) -> None:
    demo.ready()
    demo.jump("registry")
    demo.wait_for("Project or group")  # the labelled scope prompt has the focus
    demo.type("acme")
    demo.keys("Enter")
    where = demo.wait_match(r"group acme: (\d+) repositories")
    assert int(where.group(1)) > 0
    demo.wait_match(r"^ \d+ rows")
    demo.wait_for("x Delete repository")  # the table has the focus: its keys are in the footer

    demo.keys("Enter")  # open the repository under the cursor
    # every tag's detail is read (some from the cache when the list's size reads got there first)
    title = demo.wait_match(r"^ (\S+): ([\d,]+) tags(\s+read by \S+( \(\+[\d,]+ cached\))?)?\s*$")
    repo, tags = title.group(1), int(title.group(2).replace(",", ""))
    assert repo.startswith("acme/") and tags > 0

    demo.wait_for("x Delete marked")  # the tags table has the focus
    demo.type("c")
    demo.wait_for(f"Cleanup of {repo}: {tags:,} tags")
    demo.wait_for("Enter a delete pattern")  # on_mount ran: the delete pattern has the focus
    demo.type("main-.*")
    summary = demo.wait_match(r"([\d,]+) to delete · ([\d,]+) kept")
    to_delete, kept = (int(summary.group(n).replace(",", "")) for n in (1, 2))
    assert to_delete > 0
    assert to_delete + kept == tags
    # the plan table follows after a pause in typing; each row says which rule decided it
    demo.wait_match(r"^\s+delete \S+\s.*matches the delete regex\s*$")
    screen = demo.screen()
    deleted_rows = re.findall(r"^\s+delete (\S+)\s.*matches the delete regex\s*$", screen, re.MULTILINE)
    assert deleted_rows, screen
    assert all(name.startswith("main-") for name in deleted_rows), deleted_rows
    assert "frees" in screen

    demo.keys("Escape")  # the field hands focus back to the plan table (the rules stay)
    demo.wait_for("Cleanup of")
    demo.keys("Escape")  # back to the tags, nothing applied
    demo.wait_gone("Cleanup of")
    demo.wait_for(f"{repo}: {tags:,} tags")
    demo.jump("log")
    demo.wait_for("Request log —")
    demo.wait_for("/registry/repositories/")  # the log's table is up (the list's size reads are its newest)
    screen = demo.filter_rows("DELETE")
    rows = footer_rows(screen)
    assert rows is not None, screen
    shown, total = rows
    assert total > 0 and shown == 0, screen  # the log has requests, and none of them is a DELETE
    assert "tasks 0" in screen
