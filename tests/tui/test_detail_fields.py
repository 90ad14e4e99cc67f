"""`append_fields`: the label lines of the detail panes (aligned, empty values left out, values literal)."""

from __future__ import annotations

from rich.text import Text

from labdeck.tui.widgets.detail_fields import append_fields


def test_labels_align_and_empty_values_are_skipped() -> None:
    text = append_fields(Text("title"), [("id", "7"), ("email", ""), ("status", "[b]ok")], width=6)
    assert text.plain == "title\n    id  7\nstatus  [b]ok"
    assert [span.style for span in text.spans] == ["dim", "dim"]


def test_empty_values_kept_when_asked() -> None:
    assert append_fields(Text(), [("digest", "")], width=8, skip_empty=False).plain == "\n  digest  "
