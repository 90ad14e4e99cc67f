"""The issues service: the instance, group and project listings (`GET /issues`, `GET /groups/:id/issues`,
`GET /projects/:id/issues`: a listing's `group` may be a `ProjectScope`) driven by the filter language,
project issues (read, update: close and reopen are a `state_event`), notes and `/promote`, to-do items,
time tracking (durations checked before anything is sent), related and closing merge requests, and a bulk
action on one issue with its result (`apply`: the job over the marked issues is `tui/bulk.start_bulk`).

Paths come from the endpoint catalogue (`labdeck.domain.catalogue`). A mutation drops the cached issue
listings (the catalogue's families: the global one; and every group listing this service has read), so the
next listing shows the change.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from labdeck.api import bindings as b
from labdeck.api import body
from labdeck.api.client import ApiClient
from labdeck.api.errors import LabdeckError, PageLimit, failure_text
from labdeck.api.issue_scopes import GroupId, ProjectScope
from labdeck.api.models.base import parse_many
from labdeck.api.models.fast_lists import fast_decoder
from labdeck.api.models.issues import (
    BulkItemResult,
    Issue,
    IssueMergeRequest,
    IssueUser,
    LabelDetail,
    Milestone,
    Note,
    TimeStats,
    Todo,
)
from labdeck.api.models.shared_parts import SharedParts
from labdeck.api.windowed import FROM_SETTINGS, WindowedList
from labdeck.domain import catalogue as ep
from labdeck.domain import issue_listing, issue_query
from labdeck.domain.durations import parse_duration
from labdeck.domain.endpoints import Endpoint, EndpointPath
from labdeck.domain.text import sanitize_json

GLOBAL_PATH: Final = ep.ISSUES.path()
PARSE_INLINE: Final = 1_000  # longer lists are parsed in a thread


BulkKind = Literal["close", "reopen", "add_labels", "remove_labels", "assign", "unassign", "set_milestone",
                   "todo"]
Progress = Callable[[int, int | None], None]


def issue_parts() -> SharedParts:
    """A table of the parts issues share (users, labels, milestones): one per listing, across its pages."""
    return SharedParts({"author": IssueUser, "closed_by": IssueUser, "assignees": IssueUser,
                        "milestone": Milestone, "labels": LabelDetail}, raw=("assignee", "epic", "iteration"))


def issue_rows() -> body.PageDecode | None:
    """How a listing's pages become issues: parsed straight from the bytes (`fast_lists`), or, for a page
    that path cannot read exactly, decoded for `parse_issue_list` (the tolerant path). One per listing."""
    fast = fast_decoder(b.ISSUES.model, names_as={"labels": "name"})  # every issue listing's model
    return None if fast is None else body.page_decoder(fast.decode)


def parse_issue_list(items: Any, *, sanitised: bool = False,
                     shared: SharedParts | None = None) -> list[Issue]:
    """Issues from decoded JSON, walked once for control characters (not at all when `sanitised`: the
    client's list pages are, see `ApiClient.get_page`); a wrong shape raises `MalformedResponse` naming
    the place, like `parse_many`. Items that are already `Issue`s (a cached listing) are kept. Repeated
    parts (authors, labels, ...) are validated once and shared (`shared`: across the pages of a listing).
    The decoded items are changed in place (their parts replaced by models)."""
    if isinstance(items, list) and items and isinstance(items[0], Issue):
        if all(isinstance(item, Issue) for item in items):
            return list(items)
    if not isinstance(items, list):
        return parse_many(Issue, items)  # raises: not a list
    clean = items if sanitised else sanitize_json(items)
    assert isinstance(clean, list)
    parts = shared if shared is not None else issue_parts()
    parts.share(clean)
    issues = parse_many(Issue, clean, sanitised=True)
    parts.share_field_sets(issues, "references", "time_stats")
    return issues


async def parse_issues(items: Any, *, sanitised: bool = False) -> list[Issue]:
    """`parse_issue_list`; a long list is parsed off the event loop (50,000 issues take a second)."""
    if isinstance(items, list) and len(items) > PARSE_INLINE:
        return await asyncio.to_thread(parse_issue_list, items, sanitised=sanitised)
    return parse_issue_list(items, sanitised=sanitised)


@dataclass(frozen=True)
class BulkAction:
    """One action applied to many issues: what to send for each."""

    kind: BulkKind
    labels: tuple[str, ...] = ()
    user_ids: tuple[int, ...] = ()
    milestone_title: str = ""  # "" removes the milestone; otherwise found in each issue's project
    description: str = field(default="", compare=False)

    def payload(self) -> dict[str, Any]:
        """The `PUT` body for this action (the to-do action posts instead)."""
        match self.kind:
            case "close" | "reopen":
                return {"state_event": "close" if self.kind == "close" else "reopen"}
            case "add_labels" | "remove_labels":
                return {self.kind: ",".join(self.labels)}
            case "assign":
                return {"assignee_ids": list(self.user_ids)}
            case "unassign":
                return {"assignee_ids": []}
            case "set_milestone":
                return {"milestone_id": 0}  # `apply` puts the project's milestone id here
        return {}

    @property
    def title(self) -> str:
        return self.description or self.kind.replace("_", " ")


class IssuesService:
    """Issues of one instance, for the caller the client authenticates as."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client
        self._group_paths: set[EndpointPath] = set()
        self._milestones: dict[tuple[str, str], int | None] = {}

    # -- listings -------------------------------------------------------------------------------------
    @staticmethod
    def listing_path(group: GroupId | None = None) -> EndpointPath:
        if isinstance(group, ProjectScope):
            return ep.PROJECT_ISSUES.path(group.project)
        return GLOBAL_PATH if group is None else ep.GROUP_ISSUES.path(group)

    @staticmethod
    def compile_filter(text: str, group: GroupId | None = None) -> dict[str, Any]:
        """The listing parameters of a filter text (see `domain.issue_query`); raises `QueryError`."""
        listing = (issue_query.GLOBAL if group is None else
                   issue_query.PROJECT if isinstance(group, ProjectScope) else issue_query.GROUP)
        return issue_listing.compile(issue_query.parse(text), listing)

    @staticmethod
    def listing_params(params: Mapping[str, Any] | None = None, *, group: GroupId | None = None,
                       order_by: str = "created_at", sort: str = "desc") -> dict[str, Any]:
        """The query sent for a listing: the compiled filter plus ordering, and `scope=all` on the
        instance listing unless the filter names a scope (GitLab's default is `created_by_me`)."""
        out: dict[str, Any] = {"order_by": order_by, "sort": sort, "with_labels_details": "true",
                               **dict(params or {})}
        if group is None:
            out.setdefault("scope", "all")
        return out

    def _remember(self, path: EndpointPath) -> EndpointPath:
        if path != GLOBAL_PATH:
            self._group_paths.add(path)
        return path

    async def _fetch_parsed(self, path: EndpointPath, query: dict[str, Any], *, on_progress: Progress | None,
                            first: Any = None, decode: body.PageDecode | None = None) -> list[Issue]:
        """Every page parsed into issues as it arrives (in page order), sharing repeated parts: no decoded
        copy of the whole listing is ever held. `first`: page 1, already parsed by the caller (with
        `decode`, the listing's decoder)."""
        shared = issue_parts()
        issues: list[Issue] = []
        skip = first is not None  # page 1 comes through `on_items` too

        def take(items: list[Any]) -> None:
            nonlocal skip
            if skip:
                skip = False
                return
            issues.extend(parse_issue_list(items, sanitised=True, shared=shared))  # client pages are clean

        try:
            await self.client.fetch_all(path, query, on_progress=on_progress, first=first, on_items=take,
                                        decode=decode or issue_rows())
        except PageLimit as limit:  # the issues parsed so far are what was read
            limit.items, limit.count = issues, len(issues) + (len(first.items) if first is not None else 0)
            raise
        return issues

    async def fetch_all(self, params: Mapping[str, Any] | None = None, *, group: GroupId | None = None,
                        on_progress: Progress | None = None) -> list[Issue]:
        """Every issue of the listing, fetched now (concurrent pages), bypassing the cache."""
        path = self._remember(self.listing_path(group))
        query = self.listing_params(params, group=group)
        return await self._fetch_parsed(path, query, on_progress=on_progress)

    async def iter_pages(self, params: Mapping[str, Any] | None = None, *, group: GroupId | None = None,
                         per_page: int = 100) -> AsyncIterator[list[Issue]]:
        """The listing page by page, for painting the first rows at once; once every page has arrived
        the whole listing goes into the list cache (what `cached` reads)."""
        path = self._remember(self.listing_path(group))
        query = self.listing_params(params, group=group)
        shared = issue_parts()
        issues: list[Issue] = []
        async for page in self.client.pages(path, query, per_page=per_page, decode=issue_rows()):
            parsed = parse_issue_list(page.items, sanitised=True, shared=shared)
            issues.extend(parsed)
            yield parsed
        self.client.cache.set(self.client.cache_key(path, query), issues)

    async def load(self, params: Mapping[str, Any] | None = None, *, group: GroupId | None = None,
                   on_first_page: Callable[[list[Issue]], None] | None = None,
                   on_progress: Progress | None = None) -> list[Issue]:
        """The whole listing, fast to first rows: page 1 alone (handed to `on_first_page`), then, when
        there is more, every page fetched concurrently; the result goes into the list cache. At the page
        limit, `PageLimit` carries the issues read (not cached: the list is not whole)."""
        path = self._remember(self.listing_path(group))
        query = self.listing_params(params, group=group)
        decode = issue_rows()
        first = await self.client.get_page(path, {**query, "per_page": 100, "page": 1}, decode=decode)
        issues = parse_issue_list(first.items, sanitised=True)
        if on_first_page is not None:
            on_first_page(issues)
        if first.next_url is not None:
            try:
                issues = issues + await self._fetch_parsed(path, query, on_progress=on_progress, first=first,
                                                           decode=decode)
            except PageLimit as limit:  # page 1 and what followed, never cached: the list is not whole
                limit.items = issues + limit.items
                raise
        self.client.cache.set(self.client.cache_key(path, query), issues)  # the models, not a decoded copy
        return issues

    def window(self, params: Mapping[str, Any] | None = None, *, group: GroupId | None = None,
               order_by: str = "created_at", sort: str = "desc",
               max_rows: int | None = FROM_SETTINGS) -> WindowedList[Issue]:
        """The listing read on demand (`api/windowed.py`): the first page at once, more as asked for,
        at most `max_rows` issues held."""
        path = self._remember(self.listing_path(group))
        query = self.listing_params(params, group=group, order_by=order_by, sort=sort)
        shared = issue_parts()
        return WindowedList(self.client, path, query,
                            lambda items: parse_issue_list(items, sanitised=True, shared=shared),
                            decode=issue_rows(), max_rows=max_rows)

    def has_cached(self, params: Mapping[str, Any] | None = None, *, group: GroupId | None = None) -> bool:
        """Whether the cache holds this listing (fresh or not)."""
        return self.client.cached_list(self.listing_path(group),
                                       self.listing_params(params, group=group)) is not None

    async def cached(self, params: Mapping[str, Any] | None = None, *,
                     group: GroupId | None = None) -> tuple[list[Issue], bool] | None:
        """What the cache holds for this listing, `(issues, fresh)`, or None (parsed off the event loop)."""
        hit = self.client.cached_list(self.listing_path(group), self.listing_params(params, group=group))
        return None if hit is None else (await parse_issues(hit[0]), hit[1])

    def _invalidate(self, endpoint: Endpoint, *values: object) -> None:
        """Drop the cached lists a change through `endpoint` can alter: its families in the catalogue (the
        global listing, the project's issue paths as this service wrote them: an encoded `group%2Fproject`
        path is not what the client's own invalidation sees) and the group listings read."""
        self.client.cache.forget(endpoint, *values)
        for path in self._group_paths:
            self.client.cache.invalidate(path)

    # -- people and milestones ------------------------------------------------------------------------
    async def find_user_ids(self, usernames: Iterable[str]) -> dict[str, int]:
        """Ids of these usernames (`GET /users?username=`); unknown ones are left out."""
        found: dict[str, int] = {}
        for name in dict.fromkeys(n.strip().lstrip("@") for n in usernames if n.strip()):
            users = await self.client.get_json(ep.USERS.path(), {"username": name})
            if isinstance(users, list) and users and isinstance(users[0], dict) and "id" in users[0]:
                found[name] = int(users[0]["id"])
        return found

    async def milestone_id(self, project_id: int | str, title: str) -> int | None:
        """The id of the project's milestone called `title`, or None (remembered per project)."""
        key = (str(project_id), title)
        if key not in self._milestones:
            items = await self.client.get_json(ep.PROJECT_MILESTONES.path(project_id),
                                               {"title": title})
            match = [m for m in items or [] if isinstance(m, dict) and m.get("title") == title]
            self._milestones[key] = int(match[0]["id"]) if match else None
        return self._milestones[key]

    # -- single issues --------------------------------------------------------------------------------
    async def get_issue(self, project_id: int | str, iid: int) -> Issue:
        return await b.ISSUE.read(self.client, project_id, iid, params={"with_labels_details": "true"})

    async def update_issue(self, project_id: int | str, iid: int, **fields: Any) -> Issue:
        """`PUT` the given fields (`title`, `labels`, `add_labels`, `remove_labels`, `assignee_ids`,
        `milestone_id`, `due_date`, `confidential`, `state_event`, ...)."""
        try:
            body = await self.client.put_json(ep.ISSUE_UPDATE.path(project_id, iid), fields)
        finally:
            self._invalidate(ep.ISSUE_UPDATE, project_id, iid)
        return b.ISSUE_UPDATE.parse(body)

    # -- notes, to-do, promotion ----------------------------------------------------------------------
    async def notes(self, project_id: int | str, iid: int, *, refresh: bool = False) -> list[Note]:
        """The issue's notes, oldest first (through the list cache)."""
        return await b.ISSUE_NOTES.read(self.client, project_id, iid,
                                        params={"sort": "asc", "order_by": "created_at"}, refresh=refresh)

    async def add_note(self, project_id: int | str, iid: int, body: str) -> Note:
        try:
            data = await self.client.post_json(ep.ISSUE_NOTE_CREATE.path(project_id, iid), {"body": body})
        finally:
            self._invalidate(ep.ISSUE_NOTE_CREATE, project_id, iid)
        return b.ISSUE_NOTE_CREATE.parse(data)

    async def promote(self, project_id: int | str, iid: int) -> bool:
        """Promote to an epic with a `/promote` note; True when the server says it promoted."""
        note = await self.add_note(project_id, iid, "/promote")
        return bool((note.commands_changes or {}).get("promote_to_epic"))

    async def add_todo(self, project_id: int | str, iid: int) -> Todo | None:
        """A to-do item for the caller; None when one already exists (304)."""
        response = await self.client.request("POST", ep.ISSUE_TODO.path(project_id, iid), allow_304=True)
        if response.status_code == 304:
            return None
        return b.ISSUE_TODO.parse(self.client.decode(response))

    # -- time tracking --------------------------------------------------------------------------------
    async def track_time(self, project_id: int | str, iid: int, action: str,
                         duration: str | None = None) -> TimeStats:
        """`POST .../<action>` (`time_estimate`, `add_spent_time` with a duration; `reset_time_estimate`,
        `reset_spent_time`); the duration is checked first and `DurationError` raised before sending."""
        binding = b.ISSUE_TIME.get(action)
        if binding is None:
            raise ValueError(f"unknown time tracking action {action!r}")
        payload = None
        if duration is not None:
            parse_duration(duration)  # DurationError before anything is sent
            payload = {"duration": duration.strip()}
        try:
            body = await self.client.post_json(binding.path(project_id, iid), payload)
        finally:
            self._invalidate(binding.endpoint, project_id, iid)
        return binding.parse(body)

    async def time_stats(self, project_id: int | str, iid: int) -> TimeStats:
        return await b.ISSUE_TIME_STATS.read(self.client, project_id, iid)

    # -- merge requests -------------------------------------------------------------------------------
    async def related_merge_requests(self, project_id: int | str, iid: int, *,
                                     refresh: bool = False) -> list[IssueMergeRequest]:
        """Merge requests that mention the issue (through the list cache)."""
        return await b.ISSUE_RELATED_MERGE_REQUESTS.read(self.client, project_id, iid, refresh=refresh)

    async def closed_by(self, project_id: int | str, iid: int, *,
                        refresh: bool = False) -> list[IssueMergeRequest]:
        """Merge requests that close the issue when merged (through the list cache)."""
        return await b.ISSUE_CLOSED_BY.read(self.client, project_id, iid, refresh=refresh)

    # -- bulk -----------------------------------------------------------------------------------------
    async def apply(self, issue: Issue, action: BulkAction) -> BulkItemResult:
        """Apply `action` to one issue; a refusal or a network failure becomes a result."""
        ref = issue.reference
        try:
            if action.kind == "todo":
                todo = await self.add_todo(issue.project_id, issue.iid)
                return BulkItemResult(ref, True, 201 if todo else 304,
                                      "to-do added" if todo else "already a to-do")
            payload = action.payload()
            if action.kind == "set_milestone" and action.milestone_title:
                milestone = await self.milestone_id(issue.project_id, action.milestone_title)
                if milestone is None:
                    return BulkItemResult(ref, False, None,
                                          f"no milestone called {action.milestone_title!r} in this project")
                payload["milestone_id"] = milestone
            updated = await self.update_issue(issue.project_id, issue.iid, **payload)
        except LabdeckError as exc:
            return BulkItemResult(ref, False, getattr(exc, "status", None), failure_text(exc))
        return BulkItemResult(ref, True, 200, "done", updated)
