"""Reading the journal back: a line of valid JSON with a wrong type (or not an object) is skipped and its
number kept in `Journal.damaged`; good lines around it are read; listeners can be removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.api.journal import Journal, JournalEntry

GOOD = {"id": "e1", "at": 1_700_000_000, "operation": "ban user", "kind": "user", "target": "@alice",
        "method": "POST", "path": "/users/2/ban", "result": "201", "ok": True}


@pytest.mark.parametrize("damage", [
    [1, 2], "text", 7, None, {**GOOD, "at": "x"}, {**GOOD, "at": True}, {**GOOD, "ok": 1},
    {**GOOD, "target": ["@a"]}, {**GOOD, "before": []}, {**GOOD, "inverse": "POST"},
    {**GOOD, "inverse": {"method": "POST"}}, {k: v for k, v in GOOD.items() if k != "path"},
    {**GOOD, "at": float("nan")}, {**GOOD, "at": 1e300},
])
def test_a_damaged_line_is_skipped_and_named(tmp_path: Path, damage: object) -> None:
    path = tmp_path / "j.jsonl"
    line = json.dumps(damage) if not isinstance(damage, float) else str(damage)
    path.write_text(f"{json.dumps(GOOD)}\n\n{line}\n{json.dumps({**GOOD, 'id': 'e2'})}\n")
    journal = Journal(path)
    assert [e.id for e in journal.entries()] == ["e1", "e2"]
    assert journal.damaged == [3]


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                max_size=3), max_leaves=8)


@given(st.dictionaries(st.sampled_from([*sorted(GOOD), "before", "inverse", "job"]), JSON, max_size=12))
def test_any_json_either_reads_as_a_usable_entry_or_is_refused(data: dict[str, object]) -> None:
    try:
        entry = JournalEntry.from_json({**GOOD, **data})
    except ValueError:
        return
    assert isinstance(entry.at, int | float) and isinstance(entry.target, str) and isinstance(entry.ok, bool)


def test_a_listener_can_be_removed() -> None:
    journal = Journal()
    seen: list[str] = []
    journal.subscribe(seen.append)  # type: ignore[arg-type]
    journal.unsubscribe(seen.append)  # type: ignore[arg-type]
    journal.unsubscribe(seen.append)  # type: ignore[arg-type]  # twice: ignored
    journal.append(JournalEntry.from_json(GOOD))
    assert seen == []
