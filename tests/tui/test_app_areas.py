"""The area registry: names, completion, and an area issue replacing its placeholder with a real screen."""

from __future__ import annotations

import pytest
from textual.screen import Screen

from labdeck.tui import areas
from labdeck.tui.areas import Area, AreaRequest, complete, find_area, register_area


def test_every_design_area_is_registered_and_found_by_name() -> None:
    names = {"groups", "issues", "registry", "deployments", "users", "jobs", "log", "projects"}
    assert names <= set(areas.AREAS)
    assert find_area(":Projects") is areas.AREAS["projects"]
    assert find_area("nothing") is None
    assert areas.AREAS["jobs"].available and areas.AREAS["projects"].available
    assert not Area("wikis", "Wikis", "not built").available


def test_completion_by_prefix() -> None:
    assert complete("pro") == ["projects"]
    assert complete(":") == list(areas.AREAS)
    assert complete("zz") == []


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
