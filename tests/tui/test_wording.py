"""What the screens say, in words an operator reads without stumbling (issue 24, "Reading"): counts in the
singular and plural, questions that are sentences, errors that say what is wrong."""

from __future__ import annotations

from datetime import date

from labdeck.tui.kit.edited import done_text
from labdeck.tui.kit.forms import date_error
from labdeck.tui.screens.issues.dialogs import bulk_question


def test_members_added_counts_them() -> None:
    assert done_text("member", "add", 1) == "Member added"
    assert done_text("member", "add", 2) == "2 members added"
    assert done_text("label", "delete", 1) == "Label deleted"


def test_bulk_questions_are_sentences() -> None:
    assert bulk_question("close", "", 3) == "Close 3 marked issues?"
    assert bulk_question("reopen", "", 1) == "Reopen 1 marked issue?"
    assert bulk_question("add_labels", "bug, ux", 2) == "Add the labels bug, ux to 2 marked issues?"
    assert bulk_question("remove_labels", "bug", 2) == "Remove the label bug from 2 marked issues?"
    assert bulk_question("assign", "alice", 2) == "Assign 2 marked issues to alice?"
    assert bulk_question("set_milestone", "", 2) == "Remove the milestone from 2 marked issues?"
    assert bulk_question("set_milestone", "v1", 2) == "Set the milestone v1 on 2 marked issues?"


def test_a_date_that_does_not_exist_is_called_so() -> None:
    today = date(2026, 1, 1)
    assert date_error("2026-02-30", today) == "2026-02-30 does not exist (February 2026 has 28 days)"
    assert date_error("2028-02-30", today) == "2028-02-30 does not exist (February 2028 has 29 days)"
    assert date_error("2026-13-01", today) == "2026-13-01 does not exist: there is no month 13"
    assert date_error("0000-01-01", today) == "0000-01-01 does not exist: there is no year 0"
    assert date_error("30/02/2026", today) == "use YEAR-MONTH-DAY"  # the shape is what is wrong here
    assert date_error("2025-12-31", today) == "cannot be a date in the past"
    assert date_error("2026-02-28", today) is None
