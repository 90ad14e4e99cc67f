"""`IssuesService` against the sandbox: listings driven by the filter language, the cache and its
invalidation, single-issue operations, time tracking (durations refused before sending), merge requests,
and bulk actions with a result per issue."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from sandbox_clients import ALICE_TOKEN, ClientPool, sandbox_settings

from labdeck.api.client import ApiClient
from labdeck.api.errors import BadRequest, NotFound
from labdeck.api.issue_scopes import ProjectScope
from labdeck.api.issues import BulkAction, BulkItemResult, IssuesService
from labdeck.api.models.issues import Issue
from labdeck.domain.durations import DurationError
from labdeck.domain.issue_query import QueryError
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

Connect = Callable[..., IssuesService]
GATEWAY = "acme/platform/api-gateway"


@pytest.fixture
def app() -> Any:
    return create_app(SandboxOptions(scale="tiny"), clock=ManualClock())


@pytest.fixture
async def connect(app: Any) -> AsyncIterator[Connect]:
    pool = ClientPool(app)
    yield lambda token=ALICE_TOKEN: IssuesService(pool.client(token))
    await pool.aclose()


async def test_filter_text_drives_the_global_listing(connect: Connect) -> None:
    service = connect()
    params = service.compile_filter("label:bug -label:frontend state:opened")
    issues = await service.load(params)
    assert {i.title for i in issues} == {"Gateway returns 502 under load", "Leaked token in debug logs"}
    assert all(i.references and i.references.full for i in issues)
    mine = await service.load(service.compile_filter("scope:created_by_me"))
    assert {i.author.username for i in mine if i.author} == {"alice"}


async def test_group_listing_and_its_not_keys(connect: Connect) -> None:
    service = connect()
    everything = await service.load(group="acme")
    assert len(everything) == 11
    params = service.compile_filter('-"retry"', group="acme")
    assert params == {"not": {"search": "retry"}}
    assert len(await service.load(params, group="acme")) == 10
    with pytest.raises(QueryError):
        service.compile_filter("in:title foo", group="acme")


async def test_project_listing_is_the_projects_own_and_a_change_empties_it(connect: Connect) -> None:
    """The project view's Issues tab lists `GET /projects/:id/issues` with the filter language (the group
    listing's `not` keys, no `in:`); closing one of them is seen at the next listing (not a stale cache)."""
    service, scope = connect(), ProjectScope(GATEWAY)
    assert service.listing_path(scope) == "/projects/acme%2Fplatform%2Fapi-gateway/issues"
    issues = await service.load(group=scope)
    assert issues and {i.project_id for i in issues} == {1}
    assert {i.id for i in issues} < {i.id for i in await service.load(group="acme")}
    params = service.compile_filter("-label:bug", scope)
    assert params == {"not": {"labels": "bug"}}
    unlabelled = await service.load(params, group=scope)
    assert unlabelled and all("bug" not in i.label_names for i in unlabelled)
    with pytest.raises(QueryError, match="project issue listing"):
        service.compile_filter("in:title foo", scope)
    assert await service.cached(group=scope) is not None  # the listing was kept
    target = next(i for i in issues if i.state == "opened")
    await service.update_issue(target.project_id, target.iid, state_event="close")
    assert await service.cached(group=scope) is None  # a change empties it: never shown stale
    again = await service.load(group=scope)
    assert next(i for i in again if i.id == target.id).state == "closed"


async def test_listing_is_cached_and_a_mutation_invalidates_it(connect: Connect) -> None:
    service = connect()
    log = service.client.request_log
    first = await service.load({"labels": "ux"}, group="acme")
    count = len(log)
    again = await service.cached({"labels": "ux"}, group="acme")
    assert again is not None and again[1] and [i.id for i in again[0]] == [i.id for i in first]
    assert len(log) == count  # no request
    await service.update_issue(GATEWAY, 1, add_labels="ux")
    stale = await service.cached({"labels": "ux"}, group="acme")
    assert stale is None or not stale[1]  # the mutation dropped it: the screen reads the listing again
    after = await service.load({"labels": "ux"}, group="acme")
    assert len(after) == len(first) + 1


async def test_pages_arrive_one_at_a_time(connect: Connect) -> None:
    service = connect("glpat-sandbox-root")
    pages = [page async for page in service.iter_pages(per_page=5)]
    assert [len(p) for p in pages] == [5, 5, 5]
    assert len(await service.fetch_all()) == 15


async def test_read_create_update_delete(connect: Connect) -> None:
    service = connect()
    issue = await service.get_issue(GATEWAY, 1)
    assert issue.label_names == ["bug", "priority::high", "backend"]
    assert issue.labels[0].color == "#d9534f" and issue.reference == "acme/platform/api-gateway#1"
    assert issue.time_stats and issue.time_stats.human_time_estimate == "3h 30m"
    closed = await service.update_issue(GATEWAY, 1, state_event="close")  # what the bulk close sends
    assert closed.state == "closed" and closed.closed_by and closed.closed_by.username == "alice"
    assert (await service.update_issue(GATEWAY, 1, state_event="reopen")).state == "opened"
    with pytest.raises(BadRequest) as info:
        await service.update_issue(GATEWAY, 1, title="")
    assert "title" in info.value.message
    with pytest.raises(NotFound):
        await service.get_issue(GATEWAY, 999)


async def test_notes_todo_and_promotion(connect: Connect) -> None:
    service = connect()
    notes = await service.notes(GATEWAY, 1)
    assert [n.system for n in notes] == [True, False, False]  # oldest first
    note = await service.add_note(GATEWAY, 1, "A comment")
    assert note.body == "A comment"
    assert (await service.notes(GATEWAY, 1))[-1].id == note.id
    todo = await service.add_todo(GATEWAY, 1)
    assert todo is not None and todo.state == "pending"
    assert await service.add_todo(GATEWAY, 1) is None
    assert await service.promote(GATEWAY, 2) is True
    assert (await service.get_issue(GATEWAY, 2)).state == "closed"
    assert await service.promote("alice/dotfiles", 1) is False


async def test_time_tracking(connect: Connect) -> None:
    service = connect()
    stats = await service.track_time(GATEWAY, 5, "time_estimate", "1w 2d")
    assert stats.time_estimate == 7 * 8 * 3600 and stats.human_time_estimate == "1w 2d"
    stats = await service.track_time(GATEWAY, 5, "add_spent_time", "90m")
    assert stats.total_time_spent == 5400 and stats.human_total_time_spent == "1h 30m"
    assert (await service.time_stats(GATEWAY, 5)).total_time_spent == 5400
    assert (await service.track_time(GATEWAY, 5, "reset_spent_time")).total_time_spent == 0
    assert (await service.track_time(GATEWAY, 5, "reset_time_estimate")).time_estimate == 0
    sent = len(service.client.request_log)
    with pytest.raises(DurationError):
        await service.track_time(GATEWAY, 5, "time_estimate", "3 fortnights")
    assert len(service.client.request_log) == sent  # nothing was sent


async def test_merge_requests(connect: Connect) -> None:
    service = connect()
    related = await service.related_merge_requests(GATEWAY, 1)
    assert [m.reference for m in related] == ["acme/platform/api-gateway!1", "acme/platform/api-gateway!2"]
    assert [m.iid for m in await service.closed_by(GATEWAY, 1)] == [1]


async def apply_each(service: IssuesService, issues: list[Issue], action: BulkAction) -> list[BulkItemResult]:
    """What the screens' bulk job (`tui/bulk.start_bulk`) does with the service: `apply`, issue by issue."""
    return [await service.apply(issue, action) for issue in issues]


async def test_bulk_action_records_each_result(connect: Connect) -> None:
    service = connect()
    issues = await service.load({"labels": "documentation"})
    assert {i.reference for i in issues} == {"acme/platform/api-gateway#5", "acme/handbook#1",
                                             "root/sandbox-notes#1"}
    results = await apply_each(service, issues, BulkAction("add_labels", labels=("triaged",)))
    by_ref = {r.reference: r for r in results}
    refused = by_ref["root/sandbox-notes#1"]  # alice is no member of root's project
    assert not refused.ok and refused.status == 403 and refused.message == "403 Forbidden"
    assert by_ref["acme/handbook#1"].ok and by_ref["acme/handbook#1"].issue is not None
    assert "triaged" in by_ref["acme/handbook#1"].issue.label_names  # type: ignore[union-attr]
    todos = await apply_each(service, issues[:1], BulkAction("todo"))
    assert todos[0].ok and todos[0].status == 201
    again = await apply_each(service, issues[:1], BulkAction("todo"))
    assert again[0].ok and again[0].status == 304


async def test_bulk_milestone_and_assignees_resolve_names(connect: Connect) -> None:
    service = connect()
    assert await service.find_user_ids(["bob", "@carol", "nobody"]) == {"bob": 3, "carol": 4}
    issues = await service.load({"iids": [1]}, group="acme/platform")
    assert {i.reference for i in issues} == {"acme/platform/api-gateway#1", "acme/platform/web-portal#1"}
    results = await apply_each(service, issues, BulkAction("set_milestone", milestone_title="v1.0"))
    assert all(r.ok for r in results)
    assert {r.issue.milestone.title for r in results if r.issue and r.issue.milestone} == {"v1.0"}
    other = issues[0].model_copy(update={"project_id": "opensource/tools"})  # a project without milestones
    action = BulkAction("set_milestone", milestone_title="Backlog")
    refused = await apply_each(service, [other, *issues], action)
    assert [r.ok for r in refused] == [False, True, True]  # opensource/tools has no milestones
    assert "no milestone called 'Backlog'" in refused[0].message
    cleared = await apply_each(service, issues[:1], BulkAction("set_milestone"))
    assert cleared[0].issue is not None and cleared[0].issue.milestone is None


async def test_streamed_pages_fill_the_cache(connect: Connect) -> None:
    service = connect("glpat-sandbox-root")
    assert await service.cached() is None
    streamed = [i.id for page in [p async for p in service.iter_pages(per_page=4)] for i in page]
    hit = await service.cached()
    assert hit is not None and [i.id for i in hit[0]] == streamed and hit[1] is True


async def test_load_paints_the_first_page_then_everything(connect: Connect) -> None:
    service = connect("glpat-sandbox-root")
    first: list[list[int]] = []
    issues = await service.load({"state": "opened"},
                                on_first_page=lambda page: first.append([i.id for i in page]))
    assert len(issues) == 12 and first == [[i.id for i in issues]]  # one page: no second fetch
    hit = await service.cached({"state": "opened"})
    assert hit is not None and len(hit[0]) == 12


async def test_load_of_many_pages() -> None:
    app = create_app(SandboxOptions(scale="demo"), clock=ManualClock())
    async with ApiClient(sandbox_settings(), transport=httpx.ASGITransport(app)) as client:
        service = IssuesService(client)
        first: list[int] = []
        issues = await service.load(on_first_page=lambda page: first.append(len(page)))
        assert first == [100] and len(issues) > 500  # the archived projects' issues are left out
        assert len({i.id for i in issues}) == len(issues)
        created = [i.created_at for i in issues]
        assert created == sorted(created, reverse=True)  # newest first


async def test_long_lists_are_parsed_off_the_loop() -> None:
    from labdeck.api.issues import PARSE_INLINE, parse_issues

    raw = [{"id": n, "iid": n, "project_id": 1, "title": f"t\x1b{n}", "labels": ["a"]}
           for n in range(PARSE_INLINE + 5)]
    issues = await parse_issues(raw)
    assert len(issues) == PARSE_INLINE + 5 and "\x1b" not in issues[7].title
    assert issues[0].label_names == ["a"]


def test_every_string_of_an_issue_is_sanitised_once_or_standalone() -> None:
    from labdeck.api.errors import MalformedResponse
    from labdeck.api.issues import parse_issue_list
    from labdeck.api.models.issues import Issue, LabelDetail, TimeStats

    raw = {"id": 1, "iid": 1, "project_id": 1, "title": "a\x1bb", "author": {"id": 2, "username": "x\x1b"},
           "assignees": [{"id": 3, "name": "n\x9b"}], "closed_by": {"id": 4, "name": "c\x07"},
           "labels": [{"name": "l\x07", "color": "#fff"}], "milestone": {"id": 1, "title": "m\x1b"},
           "time_stats": {"human_time_estimate": "1h\x1b"}, "references": {"full": "g/p#1\x1b"},
           "extra": {"k": ["v\x1b"]}}
    for issue in (parse_issue_list([raw])[0], Issue.model_validate(raw)):
        assert issue.title == "a␛b" and issue.author is not None and issue.author.username == "x␛"
        assert issue.assignees[0].name == "n<U+009B>" and issue.closed_by and issue.closed_by.name == "c␇"
        assert issue.labels[0].name == "l␇" and issue.milestone and issue.milestone.title == "m␛"
        assert issue.time_stats and issue.time_stats.human_time_estimate == "1h␛"
        assert issue.reference == "g/p#1␛" and issue.extra == {"k": ["v␛"]}  # type: ignore[attr-defined]
    # parts parsed on their own still sanitise themselves
    assert TimeStats.model_validate({"human_time_estimate": "x\x1b"}).human_time_estimate == "x␛"
    assert LabelDetail.model_validate({"name": "y\x1b"}, context={}).name == "y␛"
    [kept] = parse_issue_list([{"id": "not a number", "iid": 1, "project_id": 1}])  # kept, marked (issue 15)
    assert kept.id < 0 and kept.unreadable == ("id",) and kept.iid == 1
    with pytest.raises(MalformedResponse):
        parse_issue_list(["not an issue"])
    with pytest.raises(MalformedResponse):
        parse_issue_list({"message": "not a list"})


def test_bulk_payloads() -> None:
    assert BulkAction("close").payload() == {"state_event": "close"}
    assert BulkAction("remove_labels", labels=("a", "b")).payload() == {"remove_labels": "a,b"}
    assert BulkAction("assign", user_ids=(2, 3)).payload() == {"assignee_ids": [2, 3]}
    assert BulkAction("unassign").payload() == {"assignee_ids": []}
    assert BulkAction("set_milestone").payload() == {"milestone_id": 0}
    assert BulkAction("todo").payload() == {}
