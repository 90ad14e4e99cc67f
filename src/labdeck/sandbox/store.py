"""The sandbox's state: users, tokens, groups, projects and memberships, with the access rules over them.

Everything lives in plain dicts of dataclasses. Areas keep their own records in `Store.areas[name]` (any
object; `Store.area(name, kind)` fetches it, making it on first use). Access queries are cached per store
`version`, which every mutation must bump with `touch()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

from labdeck.domain.moderation import is_dormant
from labdeck.sandbox.clock import Clock, SystemClock
from labdeck.sandbox.scheduler import Scheduler

Visibility = Literal["public", "internal", "private"]
VISIBILITY_RANK = {"private": 0, "internal": 10, "public": 20}
DORMANT_DAYS = 90  # GitLab's default `deactivate_dormant_users_period`
MEMO_LIMIT = 50_000  # memoised listings and records kept; the oldest go first
T = TypeVar("T")


@dataclass(slots=True)
class User:
    id: int
    username: str
    name: str
    email: str
    state: str = "active"  # active, blocked, ldap_blocked, blocked_pending_approval, banned, deactivated
    is_admin: bool = False
    bot: bool = False
    user_type: str = "human"  # human, ghost, support_bot, alert_bot, project_bot, ...
    external: bool = False
    created_at: datetime = datetime(2020, 1, 1, tzinfo=UTC)
    last_activity_on: datetime | None = None
    last_sign_in_at: datetime | None = None
    namespace_id: int = 0
    bio: str = ""
    location: str = ""
    organization: str = ""
    job_title: str = ""
    two_factor_enabled: bool = False
    custom_attributes: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Token:
    value: str = field(repr=False)  # tokens never show in reprs
    user_id: int
    kind: Literal["personal", "oauth", "job"] = "personal"
    scopes: tuple[str, ...] = ("api",)
    project_id: int | None = None  # job tokens: the project whose job holds it
    name: str = ""


@dataclass(slots=True)
class Group:
    id: int
    name: str
    path: str
    full_path: str
    full_name: str
    parent_id: int | None
    visibility: Visibility
    description: str = ""
    created_at: datetime = datetime(2020, 1, 1, tzinfo=UTC)
    custom_attributes: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Project:
    id: int
    name: str
    path: str
    namespace_id: int
    namespace_kind: Literal["group", "user"]
    path_with_namespace: str
    name_with_namespace: str
    visibility: Visibility
    creator_id: int
    description: str = ""
    archived: bool = False
    created_at: datetime = datetime(2020, 1, 1, tzinfo=UTC)
    last_activity_at: datetime = datetime(2020, 1, 1, tzinfo=UTC)
    updated_at: datetime = datetime(2020, 1, 1, tzinfo=UTC)
    default_branch: str = "main"
    topics: list[str] = field(default_factory=list)
    star_count: int = 0
    forks_count: int = 0
    open_issues_count: int = 0
    empty_repo: bool = False
    import_status: str = "none"
    forked_from_id: int | None = None
    custom_attributes: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Member:
    user_id: int
    access_level: int
    created_at: datetime
    expires_at: str | None = None
    created_by_id: int | None = None


@dataclass
class Store:
    """All state of one sandbox instance."""

    clock: Clock = field(default_factory=SystemClock)
    async_delay: float = 1.0
    users: dict[int, User] = field(default_factory=dict)
    tokens: dict[str, Token] = field(default_factory=dict)
    groups: dict[int, Group] = field(default_factory=dict)
    projects: dict[int, Project] = field(default_factory=dict)
    group_members: dict[int, dict[int, Member]] = field(default_factory=dict)
    project_members: dict[int, dict[int, Member]] = field(default_factory=dict)
    areas: dict[str, Any] = field(default_factory=dict)
    anchor: datetime = field(default_factory=lambda: datetime(2026, 1, 1, tzinfo=UTC))
    version: int = 0
    _ids: dict[str, int] = field(default_factory=dict)
    _cache: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    _memo: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    scheduler: Scheduler = field(init=False)

    def __post_init__(self) -> None:
        self.scheduler = Scheduler(self.clock, self.async_delay)

    def __repr__(self) -> str:  # short, and never the token table
        return (f"Store(users={len(self.users)}, groups={len(self.groups)}, projects={len(self.projects)}, "
                f"areas={sorted(self.areas)}, version={self.version})")

    # --- ids and time -------------------------------------------------------------------------------

    def area(self, name: str, kind: type[T]) -> T:
        """The records of area `name`, made with `kind()` on first use (or when something else is there)."""
        data = self.areas.get(name)
        if not isinstance(data, kind):
            data = self.areas[name] = kind()
        return data

    def next_id(self, kind: str) -> int:
        """Next id of a kind (`user`, `namespace`, `project`, or any area's kind), starting at 1."""
        value = self._ids.get(kind, 0) + 1
        self._ids[kind] = value
        return value

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock.time(), UTC)

    def touch(self) -> None:
        """Record a mutation: access caches are rebuilt on next use."""
        self.version += 1
        self._cache.clear()
        self._memo.clear()

    def _cached(self, key: tuple[Any, ...], build: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def memo(self, key: tuple[Any, ...], build: Any) -> Any:
        """`build()` once per key until the next `touch()` (the oldest entries go past `MEMO_LIMIT`): for
        routes that filter and sort large lists, so every page of a listing costs only its own slice."""
        if key in self._memo:
            return self._memo[key]
        value = self._memo[key] = build()
        while len(self._memo) > MEMO_LIMIT:
            del self._memo[next(iter(self._memo))]
        return value

    # --- lookups ------------------------------------------------------------------------------------

    def user_by_username(self, username: str) -> User | None:
        index = self._cached(("usernames",), lambda: {u.username.lower(): u for u in self.users.values()})
        return index.get(username.lower())

    def user_by_namespace(self, namespace_id: int) -> User | None:
        index = self._cached(("user_namespaces",), lambda: {u.namespace_id: u for u in self.users.values()})
        return index.get(namespace_id)

    def group_by_path(self, full_path: str) -> Group | None:
        index = self._cached(("group_paths",), lambda: {g.full_path.lower(): g for g in self.groups.values()})
        return index.get(full_path.lower())

    def project_by_path(self, full_path: str) -> Project | None:
        index = self._cached(("project_paths",),
                             lambda: {p.path_with_namespace.lower(): p for p in self.projects.values()})
        return index.get(full_path.lower())

    def children(self) -> dict[int | None, list[int]]:
        """Group ids by parent id (None for top-level groups)."""
        def build() -> dict[int | None, list[int]]:
            out: dict[int | None, list[int]] = {}
            for group in self.groups.values():
                out.setdefault(group.parent_id, []).append(group.id)
            return out
        return self._cached(("children",), build)

    def descendants(self, group_id: int) -> list[int]:
        """Ids of every subgroup below `group_id` (not the group itself)."""
        out: list[int] = []
        stack = list(self.children().get(group_id, []))
        while stack:
            gid = stack.pop()
            out.append(gid)
            stack.extend(self.children().get(gid, []))
        return sorted(out)

    def ancestors(self, group_id: int) -> list[int]:
        """The group and its parents, nearest first."""
        out = []
        current: int | None = group_id
        while current is not None:
            out.append(current)
            current = self.groups[current].parent_id
        return out

    def projects_by_namespace(self) -> dict[tuple[str, int], list[int]]:
        def build() -> dict[tuple[str, int], list[int]]:
            out: dict[tuple[str, int], list[int]] = {}
            for project in self.projects.values():
                out.setdefault((project.namespace_kind, project.namespace_id), []).append(project.id)
            return out
        return self._cached(("by_namespace",), build)

    # --- access -------------------------------------------------------------------------------------

    def group_levels(self, user_id: int) -> dict[int, int]:
        """Effective access level of a user in every group it reaches (inherited down the tree)."""
        def build() -> dict[int, int]:
            levels: dict[int, int] = {}
            for gid, members in self.group_members.items():
                member = members.get(user_id)
                if member is None:
                    continue
                for target in [gid, *self.descendants(gid)]:
                    levels[target] = max(levels.get(target, 0), member.access_level)
            return levels
        return self._cached(("group_levels", user_id), build)

    def project_levels(self, user_id: int) -> dict[int, int]:
        """Effective access level of a user in every project it is a member of (direct or through groups)."""
        def build() -> dict[int, int]:
            levels: dict[int, int] = {}
            by_namespace = self.projects_by_namespace()
            for gid, level in self.group_levels(user_id).items():
                for pid in by_namespace.get(("group", gid), []):
                    levels[pid] = max(levels.get(pid, 0), level)
            user = self.users.get(user_id)
            if user is not None:
                for pid in by_namespace.get(("user", user.namespace_id), []):
                    levels[pid] = max(levels.get(pid, 0), 40)
            for pid, members in self.project_members.items():
                member = members.get(user_id)
                if member is not None:
                    levels[pid] = max(levels.get(pid, 0), member.access_level)
            return levels
        return self._cached(("project_levels", user_id), build)

    def can_read_project(self, user: User | None, project: Project) -> bool:
        if project.visibility == "public":
            return True
        if user is None:
            return False
        if user.is_admin or project.id in self.project_levels(user.id):
            return True
        return project.visibility == "internal" and not user.external

    def can_read_group(self, user: User | None, group: Group) -> bool:
        if group.visibility == "public":
            return True
        if user is None:
            return False
        if user.is_admin or group.id in self.group_levels(user.id):
            return True
        if group.visibility == "internal" and not user.external:
            return True
        return group.id in self.reachable_groups(user.id)

    def reachable_groups(self, user_id: int) -> set[int]:
        """Groups a user sees through membership: its groups, their subgroups, and the ancestors of those
        and of the groups of its projects (GitLab shows a private parent to members of a child)."""
        def build() -> set[int]:
            seen: set[int] = set()
            starts = list(self.group_levels(user_id))
            starts += [self.projects[pid].namespace_id for pid in self.project_levels(user_id)
                       if self.projects[pid].namespace_kind == "group"]
            for gid in starts:
                for ancestor in self.ancestors(gid):
                    if ancestor in seen:
                        break
                    seen.add(ancestor)
            return seen
        return self._cached(("reachable_groups", user_id), build)

    def is_dormant(self, user: User) -> bool:
        """GitLab's dormant users, by the rule the TUI shows (`domain.moderation.is_dormant`)."""
        last = user.last_activity_on.date() if user.last_activity_on is not None else None
        return is_dormant(user.state, user_type=user.user_type, last_activity_on=last,
                          created_at=user.created_at, today=self.now().date(), period_days=DORMANT_DAYS)
