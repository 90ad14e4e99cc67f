"""Issue listings of the sandbox (GitLab's API docs, "Issues"): the parameter rules shared by
`GET /issues`, `GET /groups/:id/issues` and `GET /projects/:id/issues` (not the JSON shapes of the
issues they list).

`select_issues(ctx, listing, candidates)` validates every parameter first (400 `{"error": ...}` in Grape's
words), then filters and orders; routes memoise the result per caller and parameter set (`Store.memo`), so
every further page of a 50,000-issue listing costs only its own slice. Not a route module itself: the
`issues` area module registers the routes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from labdeck.domain.features import ISSUE_WEIGHT
from labdeck.domain.issue_listing import NOT_KEYS
from labdeck.sandbox.editions import has_feature
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx
from labdeck.sandbox.params import integer
from labdeck.sandbox.seed.issues import Issue, IssuesData, issues_data
from labdeck.sandbox.store import Project, Store

PLANNER = 15  # may see confidential issues
ORDERS = ("created_at", "updated_at", "priority", "due_date", "relative_position", "label_priority",
          "milestone_due", "popularity", "weight", "title")
_SCOPES = {"created_by_me": "created_by_me", "created-by-me": "created_by_me",
           "assigned_to_me": "assigned_to_me", "assigned-to-me": "assigned_to_me", "all": "all"}
_DUE = ("0", "none", "any", "overdue", "week", "month", "next_month_and_previous_two_weeks")
Predicate = Callable[[Issue], bool]


def special(value: Any) -> str | None:
    """`none` / `any` for GitLab's `None` and `Any` filter values (any case), else None."""
    text = str(value).strip().lower()
    return text if text in ("none", "any") else None


def exclusive(ctx: Ctx, *names: str) -> None:
    if all(name in ctx.params for name in names):
        raise SandboxError(400, {"error": f"{', '.join(names)} are mutually exclusive"})


def _datetime(ctx: Ctx, name: str) -> datetime | None:
    text = ctx.params.str(name)
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise SandboxError.invalid(name) from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _label_set(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [v.strip() for v in str(value).split(",") if v.strip()]


# --- visibility -----------------------------------------------------------------------------------------

def readable_projects(ctx: Ctx) -> dict[int, Project]:
    """Projects whose issues the caller may read, by id (memoised per caller and store version)."""
    store, user = ctx.store, ctx.user

    def build() -> dict[int, Project]:
        return {p.id: p for p in store.projects.values() if store.can_read_project(user, p)}
    return store.memo(("issue_readable", user.id if user else None), build)


def can_see(ctx: Ctx, issue: Issue) -> bool:
    """Confidential issues: administrators, the author, assignees and project members from Planner up."""
    if not issue.confidential:
        return True
    user = ctx.user
    if user is None:
        return False
    if user.is_admin or user.id == issue.author_id or user.id in issue.assignee_ids:
        return True
    return ctx.store.project_levels(user.id).get(issue.project_id, 0) >= PLANNER


# --- filters --------------------------------------------------------------------------------------------

def _user_ids(ctx: Ctx, usernames: list[str]) -> list[int]:
    """Ids of these usernames (-1 for unknown ones, which match nothing)."""
    out = []
    for name in usernames:
        user = ctx.store.user_by_username(str(name))
        out.append(user.id if user else -1)
    return out


def _milestone_ids(data: IssuesData, title: str) -> set[int]:
    return {m.id for m in data.milestones.values() if m.title == title}


def _search(text: str, fields: str) -> Predicate:
    needle = text.lower()
    title, description = "title" in fields, "description" in fields
    return lambda i: ((title and needle in i.title.lower())
                      or (description and needle in i.description.lower()))


def _in_fields(ctx: Ctx, value: str | None) -> str:
    fields = (value or "title,description").lower()
    if not all(part in ("title", "description") for part in fields.split(",")):
        raise SandboxError.bad_value("in")
    return fields


def _due(ctx: Ctx, value: str) -> Predicate:
    today = ctx.store.now().date()
    if value in ("0", "none"):
        return lambda i: i.due_date is None
    if value == "any":
        return lambda i: i.due_date is not None
    if value == "overdue":
        return lambda i: i.due_date is not None and i.due_date < today
    if value == "week":
        start = today - timedelta(days=today.weekday())
        low, high = start, start + timedelta(days=6)
    elif value == "month":
        low = today.replace(day=1)
        high = (low + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    else:  # next_month_and_previous_two_weeks
        low = today - timedelta(days=14)
        after_next = (today.replace(day=1) + timedelta(days=64)).replace(day=1)
        high = after_next - timedelta(days=1)
    return lambda i: i.due_date is not None and low <= i.due_date <= high


def _positive(ctx: Ctx, listing: str) -> list[Predicate]:
    p, data, user = ctx.params, issues_data(ctx.store), ctx.user
    exclusive(ctx, "assignee_id", "assignee_username")
    exclusive(ctx, "author_id", "author_username")
    exclusive(ctx, "iteration_id", "iteration_title")
    preds: list[Predicate] = []
    default_scope = "created_by_me" if listing == "global" else "all"
    scope_text = p.str("scope") or default_scope
    if scope_text not in _SCOPES:
        raise SandboxError.bad_value("scope")
    scope = _SCOPES[scope_text]
    if user is not None and scope == "created_by_me":
        preds.append(lambda i: i.author_id == user.id)
    elif user is not None and scope == "assigned_to_me":
        preds.append(lambda i: user.id in i.assignee_ids)
    state = p.choice("state", ("opened", "closed", "all"), "all")
    if state != "all":
        preds.append(lambda i: i.state == state)
    if "assignee_id" in p:
        kind = special(p.get("assignee_id"))
        if kind == "none":
            preds.append(lambda i: not i.assignee_ids)
        elif kind == "any":
            preds.append(lambda i: bool(i.assignee_ids))
        else:
            wanted = p.int("assignee_id")
            preds.append(lambda i: wanted in i.assignee_ids)
    if "assignee_username" in p:
        ids = _user_ids(ctx, p.list("assignee_username"))
        preds.append(lambda i: all(uid in i.assignee_ids for uid in ids))
    if "author_id" in p:
        author = p.int("author_id")
        preds.append(lambda i: i.author_id == author)
    if "author_username" in p:
        author_ids = _user_ids(ctx, [p.str("author_username") or ""])
        preds.append(lambda i: i.author_id == author_ids[0])
    confidential = p.bool("confidential")
    if confidential is not None:
        preds.append(lambda i: i.confidential == confidential)
    for name, attr, op in (("created_after", "created_at", "ge"), ("created_before", "created_at", "le"),
                           ("updated_after", "updated_at", "ge"), ("updated_before", "updated_at", "le")):
        bound = _datetime(ctx, name)
        if bound is not None:
            preds.append((lambda a, b: lambda i: getattr(i, a) >= b)(attr, bound) if op == "ge"
                         else (lambda a, b: lambda i: getattr(i, a) <= b)(attr, bound))
    if "due_date" in p:
        due = (p.str("due_date") or "").lower()
        if due not in _DUE:
            raise SandboxError.bad_value("due_date")
        preds.append(_due(ctx, due))
    iids = p.int_list("iids")
    if iids:
        wanted_iids = set(iids)
        preds.append(lambda i: i.iid in wanted_iids)
    issue_type = p.choice("issue_type", ("issue", "incident", "test_case"))
    if issue_type:
        preds.append(lambda i: i.issue_type == issue_type)
    if "labels" in p:
        labels = _label_set(p.get("labels"))
        kind = special(labels[0]) if len(labels) == 1 else None
        if len(labels) == 1 and labels[0].lower() in ("no label", "no+label"):
            kind = "none"
        if kind == "none":
            preds.append(lambda i: not i.labels)
        elif kind == "any":
            preds.append(lambda i: bool(i.labels))
        elif labels:
            preds.append(lambda i: all(label in i.labels for label in labels))
    if "milestone" in p:
        title = p.str("milestone") or ""
        kind = special(title)
        if kind == "none":
            preds.append(lambda i: i.milestone_id is None)
        elif kind == "any":
            preds.append(lambda i: i.milestone_id is not None)
        else:
            ms_ids = _milestone_ids(data, title)
            preds.append(lambda i: i.milestone_id in ms_ids)
    if "my_reaction_emoji" in p and user is not None:
        emoji = p.str("my_reaction_emoji") or ""
        kind = special(emoji)
        mine: Callable[[Issue], list[str]] = lambda i: [e for u, e in i.reactions if u == user.id]  # noqa: E731
        if kind == "none":
            preds.append(lambda i: not mine(i))
        elif kind == "any":
            preds.append(lambda i: bool(mine(i)))
        else:
            preds.append(lambda i: emoji in mine(i))
    if "weight" in p and has_feature(ctx.options, ISSUE_WEIGHT):  # CE ignores the filter
        kind = special(p.get("weight"))
        if kind == "none":
            preds.append(lambda i: i.weight is None)
        elif kind == "any":
            preds.append(lambda i: i.weight is not None)
        else:
            weight = p.int("weight")
            preds.append(lambda i: i.weight == weight)
    if "iteration_id" in p:  # the sandbox has no iterations: only `None` matches anything
        if special(p.get("iteration_id")) != "none":
            preds.append(lambda i: False)
    if "iteration_title" in p:
        preds.append(lambda i: False)
    search = p.str("search")
    if search:
        fields = _in_fields(ctx, p.str("in")) if listing == "global" else "title,description"
        preds.append(_search(search, fields))
    return preds


def _negated(ctx: Ctx, listing: str) -> list[Predicate]:
    """`not[...]`: only the keys this listing accepts (others are ignored, as Grape ignores them)."""
    allowed = NOT_KEYS["global" if listing == "global" else "group"]
    raw = {k: v for k, v in ctx.params.dict("not").items() if k in allowed}
    preds: list[Predicate] = []
    data, user = issues_data(ctx.store), ctx.user
    if "labels" in raw:
        labels = set(_label_set(raw["labels"]))
        preds.append(lambda i: not labels.intersection(i.labels))
    if "milestone" in raw:
        ms_ids = _milestone_ids(data, str(raw["milestone"]))
        preds.append(lambda i: i.milestone_id not in ms_ids)
    for key in ("author_id", "assignee_id", "weight"):
        if key in raw:
            value = integer(raw[key])
            if value is None:
                raise SandboxError.invalid(f"not[{key}]")
            attr = {"author_id": "author_id", "weight": "weight"}.get(key)
            preds.append((lambda a, v: lambda i: getattr(i, a) != v)(attr, value) if attr
                         else (lambda v: lambda i: v not in i.assignee_ids)(value))
    if "author_username" in raw:
        not_author = _user_ids(ctx, [str(raw["author_username"])])[0]
        preds.append(lambda i: i.author_id != not_author)
    if "assignee_username" in raw:
        names = raw["assignee_username"] if isinstance(raw["assignee_username"], list) \
            else str(raw["assignee_username"]).split(",")
        not_ids = set(_user_ids(ctx, names))
        preds.append(lambda i: not not_ids.intersection(i.assignee_ids))
    if "iids" in raw:
        values = raw["iids"] if isinstance(raw["iids"], list) else str(raw["iids"]).split(",")
        iids = {integer(v) for v in values}
        if None in iids:
            raise SandboxError.invalid("not[iids]")
        not_iids = {v for v in iids if v is not None}
        preds.append(lambda i: i.iid not in not_iids)
    if "my_reaction_emoji" in raw and user is not None:
        emoji = str(raw["my_reaction_emoji"])
        preds.append(lambda i: (user.id, emoji) not in i.reactions)
    if "search" in raw:
        fields = str(raw.get("in") or "title,description").lower()
        found = _search(str(raw["search"]), fields)
        preds.append(lambda i: not found(i))
    if "iteration_title" in raw or "iteration_id" in raw:
        pass  # no issue has an iteration, so none is excluded
    return preds


# --- ordering -------------------------------------------------------------------------------------------

def _order_key(data: IssuesData, order_by: str) -> Callable[[Issue], Any]:
    milestones = data.milestones
    labels = data.labels

    def label_priority(i: Issue) -> int | None:
        values = [labels[n].priority for n in i.labels if n in labels and labels[n].priority is not None]
        return min(values) if values else None  # type: ignore[type-var]

    def milestone_due(i: Issue) -> date | None:
        ms = milestones.get(i.milestone_id) if i.milestone_id else None
        return ms.due_date if ms else None

    return {
        "created_at": lambda i: i.created_at, "updated_at": lambda i: i.updated_at,
        "due_date": lambda i: i.due_date, "relative_position": lambda i: i.relative_position,
        "label_priority": label_priority, "milestone_due": milestone_due,
        "priority": lambda i: (None if milestone_due(i) is None and label_priority(i) is None else
                               (milestone_due(i) or date.max, label_priority(i) or 99)),
        "popularity": lambda i: sum(1 for _, e in i.reactions if e == "thumbsup"),
        "weight": lambda i: i.weight, "title": lambda i: i.title.lower(),
    }[order_by]


def _ordering(ctx: Ctx) -> tuple[str, bool]:
    order_by = ctx.params.choice("order_by", ORDERS, "created_at") or "created_at"
    descending = (ctx.params.choice("sort", ("asc", "desc"), "desc") or "desc") == "desc"
    return order_by, descending


def _sorted(data: IssuesData, order_by: str, rows: Iterable[Issue]) -> tuple[list[Issue], list[Issue]]:
    """`rows` in ascending order: those with a value (by value, then id) and those without (by id)."""
    key = _order_key(data, order_by)
    keyed = [(key(i), i) for i in rows]
    present = [(k, i) for k, i in keyed if k is not None]
    present.sort(key=lambda pair: (pair[0], pair[1].id))
    absent = sorted((i for k, i in keyed if k is None), key=lambda i: i.id)
    return [i for _, i in present], absent


def _directed(ascending: tuple[list[Issue], list[Issue]], descending: bool) -> list[Issue]:
    """Missing values stay last either way; the rest (ids unique, so no ties) reverse with `sort`."""
    present, absent = ascending
    return present[::-1] + absent[::-1] if descending else present + absent


def all_in_order(store: Store, order_by: str) -> tuple[list[Issue], list[Issue]]:
    """Every issue in ascending `order_by` order (see `_sorted`), memoised per store version: a listing
    then only filters, keeping this order, instead of sorting 50,000 issues for each caller."""
    return store.memo(("issue_order", order_by),
                      lambda: _sorted(issues_data(store), order_by, issues_data(store).issues.values()))


def by_project(store: Store) -> dict[int, list[Issue]]:
    """Each project's issues, memoised per store version (a project's listing reads only its own)."""
    def build() -> dict[int, list[Issue]]:
        out: dict[int, list[Issue]] = {}
        for issue in issues_data(store).issues.values():
            out.setdefault(issue.project_id, []).append(issue)
        return out
    return store.memo(("issues_by_project",), build)


def warm(store: Store) -> None:
    """Build what every issue listing starts from (the default order, each project's issues) ahead of the
    first request: called once the large scale's issues are built, in the same background thread."""
    all_in_order(store, "created_at")
    by_project(store)


# A listing over at most this many projects gathers their issues and sorts those; a wider one filters the
# whole memoised order.
_FEW_PROJECTS = 50


def select_issues(ctx: Ctx, listing: str, project_ids: set[int] | None = None) -> list[Issue]:
    """The issues of a listing (`global`, `group`, `project`) for the caller, filtered and ordered.
    `project_ids` limits the candidates (a group's or a project's projects)."""
    p = ctx.params
    if listing == "global" and p.str("scope") != "all":
        ctx.require_user()  # GitLab: `authenticate! unless params[:scope] == 'all'`
    preds = _positive(ctx, listing) + _negated(ctx, listing)
    p.choice("order_by", ORDERS)
    p.choice("sort", ("asc", "desc"))
    readable = readable_projects(ctx)
    non_archived = p.bool("non_archived", True) if listing != "project" else False
    order_by, descending = _ordering(ctx)
    if project_ids is not None and len(project_ids) <= _FEW_PROJECTS:
        issues = by_project(ctx.store)
        gathered = [i for pid in project_ids for i in issues.get(pid, ())]
        candidates = _directed(_sorted(issues_data(ctx.store), order_by, gathered), descending)
    else:
        candidates = _directed(all_in_order(ctx.store, order_by), descending)
        if project_ids is not None:
            candidates = [i for i in candidates if i.project_id in project_ids]

    listed = {pid for pid, project in readable.items() if not (non_archived and project.archived)}
    rows = [i for i in candidates if i.project_id in listed and (not i.confidential or can_see(ctx, i))]
    return [i for i in rows if all(pred(i) for pred in preds)] if preds else rows
