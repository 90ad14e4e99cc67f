"""python-gitlab, a real third-party client, against the issues area of a sandbox on a loopback port."""

from __future__ import annotations

from collections.abc import Iterator

import gitlab
import pytest

from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.serve import RunningSandbox, start_background


@pytest.fixture(scope="module")
def served() -> Iterator[RunningSandbox]:
    running = start_background(SandboxOptions(scale="tiny"))
    yield running
    running.stop()


def test_listings_and_project_issues(served: RunningSandbox) -> None:
    gl = gitlab.Gitlab(served.base_url, private_token="glpat-sandbox-alice", per_page=4)
    mine = gl.issues.list(get_all=True)
    assert {i.author["username"] for i in mine} == {"alice"}
    everything = gl.issues.list(scope="all", get_all=True)
    assert len(everything) > len(mine) and len({i.id for i in everything}) == len(everything)
    group = gl.groups.get("acme", lazy=True)
    bugs = group.issues.list(labels=["bug"], get_all=True)
    assert {i.references["full"] for i in bugs} == {
        "acme/platform/api-gateway#1", "acme/platform/api-gateway#3", "acme/platform/web-portal#2"}


def test_create_update_time_tracking_and_notes(served: RunningSandbox) -> None:
    gl = gitlab.Gitlab(served.base_url, private_token="glpat-sandbox-alice")
    project = gl.projects.get("acme/platform/web-portal")
    issue = project.issues.create({"title": "From python-gitlab", "labels": "ux"})
    assert issue.iid == 4 and issue.labels == ["ux"]
    issue.labels = ["ux", "frontend"]
    issue.state_event = "close"
    issue.save()
    fresh = project.issues.get(issue.iid)
    assert fresh.state == "closed" and fresh.labels == ["ux", "frontend"]
    assert fresh.time_estimate("3h30m")["human_time_estimate"] == "3h 30m"
    assert fresh.add_spent_time("1d")["total_time_spent"] == 8 * 3600
    assert project.issues.get(issue.iid).time_stats()["human_total_time_spent"] == "1d"
    fresh.notes.create({"body": "Closed from a script"})
    bodies = [n.body for n in fresh.notes.list(get_all=True)]
    assert bodies[0] == "Closed from a script" and "closed" in bodies  # newest first, then the system note
    assert [m["iid"] for m in project.issues.get(2).related_merge_requests()] == []
