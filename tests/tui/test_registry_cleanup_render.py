"""The cleanup panel's pictures, as pure functions: the summary line and the age histogram."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from labdeck.domain.registry_cleanup import CleanupPlanner, CleanupRules, TagInfo
from labdeck.tui.screens.registry.cleanup_preview import BUCKETS, age_histogram, summary_text

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def tags() -> list[TagInfo]:
    old = [TagInfo(f"old-{i}", NOW - timedelta(days=300 + i), f"sha256:{i}", 100) for i in range(6)]
    new = [TagInfo(f"new-{i}", NOW - timedelta(days=i), "sha256:shared", 50) for i in range(3)]
    return [*old, *new, TagInfo("latest", NOW, "sha256:shared", 50), TagInfo("nodate", None, None, 7)]


def test_summary_names_every_reason_with_its_count() -> None:
    plan = CleanupPlanner(tags()).plan(CleanupRules(".*", "new-0", keep_n=1, older_than="30d"), NOW)
    line = summary_text(plan).plain
    assert line.startswith("6 to delete · 5 kept (latest 1, keep pattern 1, among the 1 newest 1, too new 2)")
    # no layers known: each manifest counts as one blob, an upper bound the line says it is
    assert "frees ≤ 600 B (blobs no kept tag uses)" in line and "cut-off 2026-05-02 00:00 UTC" in line


def test_histogram_marks_deleted_ages_and_the_cutoff() -> None:
    plan = CleanupPlanner(tags()).plan(CleanupRules("old-.*", older_than="30d"), NOW)
    picture = age_histogram(plan, NOW, height=4)
    lines = picture.plain.split("\n")
    assert all(len(line) == BUCKETS * 2 for line in lines[:4])
    assert lines[4].count("┼") == 1 and lines[4].index("┼") == 4  # 30 days of 305: the third bucket
    assert lines[5].startswith("new") and lines[5].endswith("10mo old")
    assert lines[6].strip() == "▲ cut-off" and lines[7].startswith("1 tag(s) without a creation time")
    red = {span.style for span in picture.spans if "█" in picture.plain[span.start:span.end]}
    assert red == {"red", "green"}
    # The old tags (right end) are drawn red, the new ones (left end) green.
    bottom_start = sum(len(line) + 1 for line in lines[:3])
    styles = {span.start - bottom_start: span.style for span in picture.spans
              if bottom_start <= span.start < bottom_start + BUCKETS * 2}
    assert styles[0] == "green" and styles[BUCKETS * 2 - 2] == "red"


def test_histogram_without_rules_on_time() -> None:
    plan = CleanupPlanner(tags()).plan(CleanupRules("nothing"), NOW)
    text = age_histogram(plan, NOW).plain
    assert "cut-off" not in text and "┼" not in text
