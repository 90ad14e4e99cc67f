"""python-gitlab (a real third-party client) against the groups area of a sandbox on a loopback port."""

from __future__ import annotations

from collections.abc import Iterator

import gitlab
import gitlab.exceptions
import pytest

from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.serve import start_background


@pytest.fixture(scope="module")
def gl() -> Iterator[gitlab.Gitlab]:
    running = start_background(SandboxOptions(scale="tiny", async_delay=0.05))
    yield gitlab.Gitlab(running.base_url, private_token="glpat-sandbox-root")
    running.stop()


def test_subgroups_members_and_labels(gl: gitlab.Gitlab) -> None:
    acme = gl.groups.get("acme")
    assert sorted(g.full_path for g in acme.subgroups.list(get_all=True)) == [
        "acme/infra", "acme/platform", "acme/security"]
    assert {m.username for m in acme.members_all.list(get_all=True)} >= {"carol", "alice"}
    label = acme.labels.create({"name": "from-python-gitlab", "color": "gold"})
    assert label.color == "#FFD700"
    label.description = "changed"
    label.save()
    assert acme.labels.get(label.id).description == "changed"
    label.delete()
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        acme.labels.get(label.id)


def test_variables_and_badges(gl: gitlab.Gitlab) -> None:
    group = gl.groups.get("opensource")
    variable = group.variables.create({"key": "PG_KEY", "value": "v1", "protected": True})
    assert (variable.value, variable.protected, variable.environment_scope) == ("v1", True, "*")
    variable.value = "v2"
    variable.save()
    assert group.variables.get("PG_KEY").value == "v2"
    with pytest.raises(gitlab.exceptions.GitlabCreateError):
        group.variables.create({"key": "BAD-KEY", "value": "x"})
    badge = group.badges.create({"link_url": "https://x/%{project_path}", "image_url": "https://i"})
    assert badge.rendered_link_url == "https://x/opensource/labdeck"
    assert [b.id for b in group.badges.list(get_all=True)] == [badge.id]
