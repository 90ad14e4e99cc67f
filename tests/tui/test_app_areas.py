"""The area registry: names, completion, and an area issue replacing its placeholder with a real screen."""

from __future__ import annotations

import pytest
from textual.screen import Screen

from labdeck.tui import areas
from labdeck.tui.areas import Area, AreaRequest, complete, find_area, register_area


def test_every_design_area_is_registered_and_found_by_name() -> None:
    names = {"groups", "issues", "registry", "deployments", "users", "tasks", "log", "projects"}
    assert names <= set(areas.AREAS)
    assert find_area(":Projects") is areas.AREAS["projects"]
    assert find_area("nothing") is None
    assert areas.AREAS["tasks"].available and areas.AREAS["projects"].available
    assert not Area("wikis", "Wikis", "not built").available


def test_completion_by_prefix() -> None:
    assert complete("pro") == ["projects"]
    assert complete(":") == list(areas.AREAS)
    assert complete("zz") == []


def test_labdecks_own_work_is_tasks_and_jobs_stays_an_alias() -> None:
    """Issue 24: labdeck's background work was the area `:jobs` ("Jobs"), which an operator reads as GitLab CI
    jobs; it is `:tasks` ("Tasks") now, and `:jobs` still opens it, completion offering the real name."""
    from labdeck.tui.areas import alias_note
    from labdeck.tui.widgets.status_bar import StatusInfo, render_status

    tasks = areas.AREAS["tasks"]
    assert "jobs" not in areas.AREAS and tasks.title == "Tasks" and "job" not in tasks.description.lower()
    assert find_area("jobs") is tasks and find_area(":JOBS") is tasks
    assert complete("jo") == ["journal", "tasks"]  # a name typed first, then an alias
    assert complete("job") == ["tasks"] and complete("ta") == ["tasks"]
    assert alias_note("jo") == ":jobs is an alias of :tasks" and alias_note("pro") == ""
    shown = render_status(StatusInfo(instance="demo", running_jobs=2)).plain
    assert "tasks 2 running" in shown and "job" not in shown


def test_register_area_replaces_a_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(areas, "AREAS", dict(areas.AREAS))
    seen: list[AreaRequest] = []

    def factory(request: AreaRequest) -> Screen[object]:
        seen.append(request)
        return Screen()

    register_area(Area("groups", "Groups", "built now", factory))
    area = find_area("groups")
    assert area is not None and area.available
    area.factory(AreaRequest(query="x"))  # type: ignore[misc]
    assert seen == [AreaRequest(query="x")]
