"""Models: every string sanitised (extra fields too), timestamps parsed, wrong shapes -> MalformedResponse;
and `InstanceService` on top of the client."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from labdeck.api.errors import MalformedResponse
from labdeck.api.instance import InstanceService
from labdeck.api.models.base import parse_many, parse_one
from labdeck.api.models.groups import Group
from labdeck.api.models.projects import Project
from labdeck.api.models.tolerant import NOT_AN_OBJECT, identity_unreadable
from labdeck.api.models.users import CurrentUser, User
from labdeck.api.models.version import Version

EVIL = "[@click=app.quit]x\x1b]52;c;ZXZpbA==\x07\x9b"


def test_every_string_is_sanitised_including_extra_fields() -> None:
    project = parse_one(Project, {
        "id": 1, "name": EVIL, "namespace": {"id": 2, "name": EVIL, "kind": "group"},
        "topics": [EVIL], "unknown_field": {"nested": [EVIL]}, "created_at": "2024-01-02T03:04:05.000Z",
    })
    for text in (project.name, project.namespace and project.namespace.name, (project.topics or [""])[0],
                 project.model_extra["unknown_field"]["nested"][0]):  # type: ignore[index]
        assert text is not None
        assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
        assert "␛" in text and "<U+009B>" in text
    assert project.created_at == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert project.archived is None and project.last_activity_at is None


def test_group_fields_and_statistics() -> None:
    group = parse_one(Group, {"id": 5, "name": "ops", "full_path": "a/ops", "parent_id": None,
                              "visibility": "public", "statistics": {"storage_size": 10, "wiki_size": 2},
                              "created_at": "2020-05-06T07:08:09Z", "auto_devops_enabled": None})
    assert group.statistics is not None and group.statistics.storage_size == 10
    assert group.full_path == "a/ops" and group.created_at is not None and group.created_at.year == 2020


@pytest.mark.parametrize("data", [[1, 2], "text", None, {"id": "not-a-number"}, {"name": "no id"}])
def test_wrong_shapes_raise_malformed_response(data: Any) -> None:
    with pytest.raises(MalformedResponse):
        parse_one(User, data)


def test_an_unreadable_optional_field_is_named_not_fatal() -> None:
    """Tolerant reading: what can be read is kept, the rest named in `unreadable` (issue 15, item 4)."""
    user = parse_one(User, {"id": 1, "username": "x", "created_at": "yesterday-ish"})
    assert (user.id, user.username, user.created_at, user.unreadable) == (1, "x", None, ("created_at",))
    assert parse_one(User, {"id": 1}).unreadable == ()


def test_parse_many() -> None:
    users = parse_many(User, [{"id": 1, "username": "root", "is_admin": True, "state": "active"},
                              {"id": 2, "username": "alice", "last_activity_on": "2024-03-01"}])
    assert [u.username for u in users] == ["root", "alice"] and users[0].is_admin is True
    assert users[1].last_activity_on is not None and users[1].last_activity_on.day == 1
    with pytest.raises(MalformedResponse):
        parse_many(User, {"id": 1})
    # no item is lost: one that is not an object, or whose id is unreadable, stands as a marked placeholder
    # (a negative id, distinct for each) that nothing may act on
    users = parse_many(User, [{"id": 1}, "oops", {"id": "x", "username": "x"}, {"id": 3}])
    assert [u.id for u in users][::3] == [1, 3] and len(users) == 4
    oops, x = users[1:3]
    assert oops.id < 0 and x.id < 0 and oops.id != x.id and x.username == "x"
    assert oops.unreadable == (NOT_AN_OBJECT, "id") and x.unreadable == ("id",)
    assert [identity_unreadable(u) for u in users] == [False, True, True, False]
    with pytest.raises(MalformedResponse):  # not one object: the answer is not a list of users at all
        parse_many(User, ["a", None, 3])


def test_version_major_minor() -> None:
    assert parse_one(Version, {"version": "17.5.1-ee", "revision": "abc"}).major_minor == (17, 5)
    assert parse_one(Version, {"version": "weird"}).major_minor is None


async def test_instance_service(make_client: Any) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v4/version":
            return httpx.Response(200, json={"version": "17.0.0", "revision": "deadbeef"})
        if request.url.path == "/api/v4/user":
            return httpx.Response(200, json={"id": 1, "username": "root", "is_admin": True,
                                             "can_create_group": True, "name": "Admin\x1b[2J"})
        return httpx.Response(404, json={"message": "404 Not Found"})

    service = InstanceService(make_client(handler))
    assert (await service.version()).version == "17.0.0"
    user = await service.current_user()
    assert isinstance(user, CurrentUser) and user.is_admin and user.name == "Admin␛[2J"


async def test_instance_service_malformed(make_client: Any) -> None:
    service = InstanceService(make_client(lambda r: httpx.Response(200, json=["not", "a", "user"])))
    with pytest.raises(MalformedResponse):
        await service.current_user()
