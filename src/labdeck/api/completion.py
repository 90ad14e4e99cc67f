"""Names from the instance for completion, and whether a name exists: one source for every field that
takes a label, milestone, user, project or group (`Services.completion`).

`candidates(kind, prefix, scope)` answers the names that complete `prefix` (case-insensitively), in the
server's order; `exists(kind, name, scope)` says whether the instance has that name (None when it cannot
tell). A scope is `("project", path_or_id)`, `("group", path_or_id)` or None for the whole instance.

What is asked (one small page, `per_page` 20, paths from the endpoint catalogue):

- labels: `GET /projects/:id/labels?search=` (with its groups' labels), or `GET /groups/:id/labels?search=
  &include_descendant_groups=true&only_group_labels=false` (its subgroups' and projects' labels, which
  issues of the group can carry); none for the instance (GitLab has no instance-wide list);
- milestones: `GET /projects/:id/milestones?search=&include_ancestors=true`, or `GET /groups/:id/milestones
  ?search=&include_descendants=true&include_ancestors=true` (GitLab 16.7 adds the projects' milestones);
- users: `GET /users?search=` (and `?username=` to check one name exactly);
- projects: `GET /projects?search=&search_namespaces=true&simple=true` (the search covers the full path);
- groups: `GET /groups?search=`, or `GET /groups/:parent/descendant_groups?search=` once a `/` is typed
  (GitLab searches a group's name and path, not its full path);
- `path`: projects and groups together (the fields that take either).

Answers are kept per session for `ttl` seconds, at most `max_entries` of them (least recently used go
first); a question already on its way is not asked twice (one request in flight per kind, scope and
search). A complete answer (a page that was not full) for no search at all, or for a search of three
characters or more, also answers every longer search that starts with it, without a request: GitLab
matches substrings from three characters on (shorter ones match exactly, so they narrow nothing).
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal

from labdeck.api.client import ApiClient
from labdeck.api.errors import LabdeckError
from labdeck.domain import catalogue as ep
from labdeck.domain.completion import Kind, matches
from labdeck.domain.endpoints import EndpointPath
from labdeck.domain.features import GROUP_LABEL_PROJECTS, GROUP_MILESTONE_DESCENDANTS, Feature
from labdeck.domain.text import sanitize_line

Scope = tuple[Literal["project", "group"], str | int] | None
PER_PAGE: Final = 20
PARTIAL_MATCH_FROM: Final = 3  # GitLab's shortest search that matches substrings


@dataclass(frozen=True, slots=True)
class Candidates:
    """Names the server answered, and whether they are all it has (`complete`: the page was not full)."""

    names: tuple[str, ...] = ()
    complete: bool = False


@dataclass(frozen=True, slots=True)
class _Ask:
    """One request: what is asked, where, with which search text (the cache and in-flight key)."""

    kind: Kind
    scope: Scope
    parent: str
    search: str
    exact: bool = False  # a username looked up exactly


class CompletionSource:
    """Candidates and existence checks for the fields of one session (see the module docstring).
    `supports(feature)` says whether the instance has a catalogue feature (a group's labels and milestones
    include its projects' only on new enough GitLab: without that, a missing name proves nothing)."""

    def __init__(self, client: ApiClient, *, ttl: float = 60.0, max_entries: int = 256,
                 clock: Callable[[], float] = time.monotonic,
                 supports: Callable[[Feature], bool] = lambda feature: True) -> None:
        self.client = client
        self.ttl = ttl
        self.max_entries = max_entries
        self.clock = clock
        self.supports = supports
        self._cache: OrderedDict[_Ask, tuple[float, Candidates]] = OrderedDict()
        self._inflight: dict[_Ask, asyncio.Task[Candidates]] = {}
        self.requests = 0  # requests sent (for tests and the request budget)

    # -- the two questions --------------------------------------------------------------------------
    async def candidates(self, kind: Kind, prefix: str, scope: Scope = None) -> tuple[str, ...]:
        """The names completing `prefix`, in the server's order (paths: shortest first)."""
        if kind == "path":
            projects, groups = await asyncio.gather(self.candidates("project", prefix),
                                                    self.candidates("group", prefix))
            both = dict.fromkeys([*groups, *projects])
            return tuple(sorted(both, key=lambda path: (path.count("/"), len(path), path)))
        found = await self._answer(self._ask_for(kind, prefix, scope))
        return tuple(name for name in found.names if matches(prefix, name))

    async def exists(self, kind: Kind, name: str, scope: Scope = None) -> bool | None:
        """Whether the instance has `name` (a username, a label or milestone title in `scope`): True,
        False, or None when it cannot tell (no list for the scope, a full page without it, an error)."""
        if kind == "user":
            found = await self._answer(_Ask("user", None, "", name, exact=True))
            return bool(found.names) if found.complete else None
        needed = _GROUP_FEATURES.get(kind) if scope is not None and scope[0] == "group" else None
        if scope is None or (needed is not None and not self.supports(needed)):
            return None
        found = await self._answer(self._ask_for(kind, name, scope))
        wanted = name.casefold()
        if any(candidate.casefold() == wanted for candidate in found.names):
            return True
        return False if found.complete else None

    def forget(self) -> None:
        """Drop every kept answer (a label or milestone was created, say)."""
        self._cache.clear()

    # -- asking -------------------------------------------------------------------------------------
    def _ask_for(self, kind: Kind, prefix: str, scope: Scope) -> _Ask:
        if kind in ("user", "project"):
            return _Ask(kind, None, "", prefix)
        if kind == "group":
            parent, _, last = prefix.rpartition("/")
            return _Ask(kind, None, parent, last)
        return _Ask(kind, scope, "", prefix)

    async def _answer(self, ask: _Ask) -> Candidates:
        kept = self._kept(ask)
        if kept is not None:
            return kept
        task = self._inflight.get(ask)
        if task is None:
            task = asyncio.ensure_future(self._fetch(ask))
            self._inflight[ask] = task
            task.add_done_callback(lambda _: self._inflight.pop(ask, None))
        return await asyncio.shield(task)  # a caller given up on leaves the answer to the others

    def _kept(self, ask: _Ask) -> Candidates | None:
        """A kept answer for `ask`, or one narrowed from a complete answer to a shorter search."""
        now = self.clock()
        for key, (at, _) in list(self._cache.items()):
            if now - at > self.ttl:
                del self._cache[key]
        hit = self._cache.get(ask)
        if hit is not None:
            self._cache.move_to_end(ask)
            return hit[1]
        if ask.exact:
            return None
        wanted = ask.search.casefold()
        for key, (_, answer) in self._cache.items():
            if (answer.complete and (len(key.search) >= PARTIAL_MATCH_FROM or not key.search)
                    and key.kind == ask.kind
                    and key.scope == ask.scope and key.parent == ask.parent and not key.exact
                    and wanted.startswith(key.search.casefold())):
                return Candidates(tuple(n for n in answer.names if wanted in n.casefold()), True)
        return None

    def _keep(self, ask: _Ask, answer: Candidates) -> None:
        self._cache[ask] = (self.clock(), answer)
        self._cache.move_to_end(ask)
        while len(self._cache) > self.max_entries:
            self._cache.popitem(last=False)

    async def _fetch(self, ask: _Ask) -> Candidates:
        request = _request(ask)
        if request is None:
            return Candidates()
        path, params, field = request
        self.requests += 1
        try:
            page = await self.client.get_page(path, {**params, "per_page": PER_PAGE})
        except LabdeckError:
            answer = Candidates()  # an unknown scope, no access: nothing to offer, nothing proved
        else:
            names = [sanitize_line(str(item[field])) for item in page.items
                     if isinstance(item, dict) and isinstance(item.get(field), str)]
            complete = page.next_url is None and len(page.items) < PER_PAGE
            answer = Candidates(tuple(dict.fromkeys(names)), complete)
        self._keep(ask, answer)
        return answer


_GROUP_FEATURES: Final[dict[str, Feature]] = {"label": GROUP_LABEL_PROJECTS,
                                              "milestone": GROUP_MILESTONE_DESCENDANTS}


def _request(ask: _Ask) -> tuple[EndpointPath, dict[str, Any], str] | None:
    """The path, parameters and name field of one question (None: nothing to ask for this scope)."""
    search = {"search": ask.search} if ask.search else {}
    if ask.kind == "user":
        if ask.exact:
            return ep.USERS.path(), {"username": ask.search}, "username"
        return ep.USERS.path(), search, "username"
    if ask.kind == "project":
        return ep.PROJECTS.path(), {**search, "search_namespaces": "true", "simple": "true"}, \
            "path_with_namespace"
    if ask.kind == "group":
        if ask.parent:
            return ep.GROUP_DESCENDANTS.path(ask.parent), search, "full_path"
        return ep.GROUPS.path(), search, "full_path"
    if ask.scope is None:
        return None
    where, ident = ask.scope
    if ask.kind == "label":
        if where == "project":
            return ep.PROJECT_LABELS.path(ident), search, "name"
        return ep.GROUP_LABELS.path(ident), {**search, "include_descendant_groups": "true",
                                             "only_group_labels": "false"}, "name"
    if ask.kind == "milestone":
        if where == "project":
            return ep.PROJECT_MILESTONES.path(ident), {**search, "include_ancestors": "true"}, "title"
        return ep.GROUP_MILESTONES.path(ident), {**search, "include_descendants": "true",
                                                 "include_ancestors": "true"}, "title"
    return None
