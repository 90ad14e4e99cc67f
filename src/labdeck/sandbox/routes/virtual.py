"""The scale sandbox's listings: `GET /issues`, `GET /users` and `GET /projects` over virtual records
(`SandboxOptions.virtual_issues`, `virtual_users`, `virtual_projects`; `--scale huge` is a million of
each), generated from their index on demand (`sandbox/virtual.py`), deterministic for the seed.

GitLab's behaviour at that size: no `x-total`, `x-total-pages` or `rel="last"` above 10,000 records
(`http.paginate`), offset pagination of `/projects` refused past offset 50,000 (keyset from there), keyset
pagination of `/projects` (`order_by=id`: `id_after`/`id_before`) and of `/users` (`order_by` id, name or
username: an opaque `cursor`, GitLab 16.5+). Filters run on the virtual data: issues `state`, `labels`,
`not[labels]`, `search` (+`in`), `author_id`/`author_username`, `assignee_id`/`assignee_username`,
`confidential`, `milestone`; users `search`, `username`, `active`, `blocked`, `created_after`/`_before`;
projects `search`, `visibility`, `archived`, `id_after`/`id_before`. Orders: by id or creation (and
`updated_at`, `last_activity_at`, which grow with it), or by title, name, username or path (then id).
Other orders of GitLab answer in creation order. Only the listings are virtual: `GET /projects/:id`,
an issue's notes and the rest answer from the ordinary (tiny) seeded store.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import (
    MAX_PER_PAGE,
    Ctx,
    _base_and_query,
    _link,
    datetime_param,
    encode,
    endpoint,
    json_array_response,
    paginate,
)
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.routes.projects.projects import KEYSET_ERROR, MAX_OFFSET
from labdeck.sandbox.routes.virtual_records import (
    EPOCH,
    LABELS,
    issue_json,
    issue_parts,
    project_json,
    project_parts,
    user_index,
    user_json,
    user_parts,
)
from labdeck.sandbox.virtual import Sequence, SequenceCache, grouped, residues

_CACHE = SequenceCache()


class _Lazy:
    """A virtual sequence as `paginate` sees a list: its length and slices, built on demand."""

    def __init__(self, sequence: Sequence) -> None:
        self.sequence = sequence

    def __len__(self) -> int:
        return self.sequence.total

    def __getitem__(self, part: slice) -> list[int]:
        start = part.start or 0
        stop = self.sequence.total if part.stop is None else part.stop
        return self.sequence.window(start, stop - start)


def _per_page(ctx: Ctx) -> int:
    return min(max(ctx.params.int("per_page", 20) or 20, 1), MAX_PER_PAGE)


def _sequence(ctx: Ctx, kind: str, count: int, test: Callable[[int], bool], key: Callable[[int], Any] | None,
              filter_key: tuple[Any, ...], *, descending: bool, lo: int = 0,
              hi: int | None = None) -> Sequence:
    groups = _CACHE.groups((kind, ctx.options.seed, filter_key, key is not None),
                           lambda: grouped(residues(test), key))
    return Sequence(groups, lo, count if hi is None else min(hi, count), descending=descending)


# --- users ------------------------------------------------------------------------------------------------

_USER_ORDERS = ("id", "name", "username", "created_at", "updated_at", "last_activity_on")


async def list_users(ctx: Ctx) -> Any:
    p, options, admin = ctx.params, ctx.options, ctx.is_admin
    order_by = p.choice("order_by", _USER_ORDERS, "id") or "id"
    descending = (p.choice("sort", ("asc", "desc"), "desc") or "desc") == "desc"
    keyset = p.str("pagination") == "keyset"
    if keyset and order_by not in ("id", "name", "username"):
        raise SandboxError(405, {"error": KEYSET_ERROR})
    search = (p.str("search") or "").lower()
    active, blocked = p.bool("active"), p.bool("blocked")
    exact = p.str("username")

    def test(r: int) -> bool:
        name, prefix, state = user_parts(options, r)
        if search and search not in name.lower() and search not in prefix:
            return False
        if active and state != "active":
            return False
        return not (blocked and state != "blocked")

    key = {"name": lambda r: user_parts(options, r)[0].lower(),
           "username": lambda r: user_parts(options, r)[1]}.get(order_by)
    lo, hi = 0, options.virtual_users
    after, before = datetime_param(ctx, "created_after"), datetime_param(ctx, "created_before")
    if after is not None:
        lo = max(lo, int((after - EPOCH).total_seconds() // 60) + 1)
    if before is not None:
        hi = min(hi, max(0, int((before - EPOCH).total_seconds() // 60 + 0.999)))
    if exact is not None:
        found = user_index(options, exact)
        lo, hi = (found, found + 1) if found is not None else (0, 0)
    sequence = _sequence(ctx, "users", options.virtual_users, test, key, (search, active, blocked),
                         descending=descending, lo=lo, hi=hi)

    def shape(k: int) -> bytes:
        return encode(user_json(options, k, ctx.base, admin=admin))

    if keyset:
        return _cursor_page(ctx, sequence, shape)
    return paginate(ctx, _Lazy(sequence), shape)


def _cursor_page(ctx: Ctx, sequence: Sequence, shape: Callable[[int], bytes]) -> Response:
    """Keyset pagination with GitLab's opaque `cursor` (here: the position of the next record)."""
    per_page = _per_page(ctx)
    start = 0
    cursor = ctx.params.str("cursor")
    if cursor:
        try:
            start = int(json.loads(base64.urlsafe_b64decode(cursor.encode()))["next"])
        except (ValueError, KeyError, TypeError):
            raise SandboxError.invalid("cursor") from None
    chunk = sequence.window(start, per_page)
    headers: dict[str, str] = {}
    if start + per_page < sequence.total:
        url, pairs = _base_and_query(ctx, {"cursor", "page", "per_page"})
        token = base64.urlsafe_b64encode(json.dumps({"next": start + per_page}).encode()).decode()
        link = _link(url, [*pairs, ("per_page", str(per_page)), ("cursor", token)], "next")
        headers = {"Link": link, "Links": link}
    return json_array_response([shape(k) for k in chunk], headers=headers)


# --- issues -----------------------------------------------------------------------------------------------

def _label_names(value: Any) -> list[str]:
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(v).strip() for v in items if str(v).strip()]


def _people(ctx: Ctx, name: str, id_name: str) -> tuple[str, set[int]] | None:
    """A person filter: ("none"|"any"|"ids", user indexes) or None when absent."""
    p = ctx.params
    if id_name in p:
        raw = str(p.get(id_name)).strip().lower()
        if raw in ("none", "any"):
            return raw, set()
        value = p.int(id_name)
        return "ids", {value - 1} if value is not None else set()
    if name in p:
        found = {user_index(ctx.options, str(v)) for v in p.list(name)}
        return "ids", {k for k in found if k is not None} or {-1}
    return None


def _person_test(spec: tuple[str, set[int]] | None, value: int | None) -> bool:
    if spec is None:
        return True
    kind, ids = spec
    if kind == "none":
        return value is None
    if kind == "any":
        return value is not None
    return value in ids


_ISSUE_TITLE_ORDER = ("title",)


async def list_issues(ctx: Ctx) -> Any:
    p, options = ctx.params, ctx.options
    if p.str("scope") != "all":
        ctx.require_user()
    state = p.choice("state", ("opened", "closed", "all"), "all") or "all"
    order_by = p.str("order_by") or "created_at"
    descending = (p.choice("sort", ("asc", "desc"), "desc") or "desc") == "desc"
    names = [name for name, _ in LABELS]
    wanted = {names.index(n) if n in names else -1 for n in _label_names(p.get("labels", ""))}
    unwanted = {i for i, (n, _) in enumerate(LABELS) if n in _label_names(p.dict("not").get("labels", ""))}
    search = (p.str("search") or "").lower()
    fields = (p.str("in") or "title,description").lower()
    author, assignee = _people(ctx, "author_username", "author_id"), _people(ctx, "assignee_username",
                                                                              "assignee_id")
    nothing = p.bool("confidential") is True or (p.str("milestone") or "none").lower() != "none"

    def test(r: int) -> bool:
        title, st, labels, who, assigned = issue_parts(options, r)
        if nothing or (state != "all" and st != state) or not wanted <= set(labels):
            return False
        if unwanted & set(labels):
            return False
        if search:
            text = title.lower()
            described = f"a {text} issue of the scale sandbox."
            in_title = "title" in fields and search in text
            if not (in_title or ("description" in fields and search in described)):
                return False
        return _person_test(author, who) and _person_test(assignee, assigned)

    key = (lambda r: issue_parts(options, r)[0].lower()) if order_by in _ISSUE_TITLE_ORDER else None
    filter_key = (state, tuple(sorted(wanted)), tuple(sorted(unwanted)), search, fields, repr(author),
                  repr(assignee), nothing)
    sequence = _sequence(ctx, "issues", options.virtual_issues, test, key, filter_key, descending=descending)
    details = bool(p.bool("with_labels_details"))
    return paginate(ctx, _Lazy(sequence), lambda k: encode(issue_json(options, k, ctx.base, details=details)))


# --- projects ---------------------------------------------------------------------------------------------

_PROJECT_ORDERS = ("id", "name", "path", "created_at", "updated_at", "last_activity_at", "star_count",
                   "similarity")


async def list_projects(ctx: Ctx) -> Any:
    p, options = ctx.params, ctx.options
    order_by = p.choice("order_by", _PROJECT_ORDERS)
    descending = (p.choice("sort", ("asc", "desc"), "desc") or "desc") == "desc"
    keyset = p.str("pagination") == "keyset"
    if keyset and order_by != "id":
        raise SandboxError(405, {"error": KEYSET_ERROR})
    search = (p.str("search") or "").lower()
    visibility = p.choice("visibility", ("public", "internal", "private"))
    archived = p.bool("archived")

    def test(r: int) -> bool:
        name, prefix, vis, arch = project_parts(options, r)
        if search and search not in name.lower() and search not in prefix:
            return False
        if visibility and vis != visibility:
            return False
        return archived is None or arch == archived

    key = {"name": lambda r: project_parts(options, r)[0].lower(),
           "path": lambda r: project_parts(options, r)[1],
           "similarity": lambda r: project_parts(options, r)[0].lower()}.get(order_by or "")
    after, before = p.int("id_after"), p.int("id_before")
    lo = after if after is not None else 0  # id > after: index >= after
    hi = before - 1 if before is not None else options.virtual_projects
    sequence = _sequence(ctx, "projects", options.virtual_projects, test, key, (search, visibility, archived),
                         descending=descending, lo=lo, hi=hi)

    def shape(k: int) -> bytes:
        return encode(project_json(options, k, ctx.base))

    if keyset:
        per_page = _per_page(ctx)
        chunk = sequence.window(0, per_page)
        headers: dict[str, str] = {}
        if len(chunk) == per_page and sequence.total > per_page:
            url, pairs = _base_and_query(ctx, {"id_after", "id_before", "page", "per_page"})
            cursor = ("id_before" if descending else "id_after", str(chunk[-1] + 1))
            link = _link(url, [*pairs, ("per_page", str(per_page)), cursor], "next")
            headers = {"Link": link, "Links": link}
        return json_array_response([shape(k) for k in chunk], headers=headers)
    page = p.int("page", 1) or 1
    if (page - 1) * _per_page(ctx) >= MAX_OFFSET:
        raise SandboxError(405, {"error": (
            f"Offset pagination has a maximum allowed offset of {MAX_OFFSET} for requests that return "
            "objects of type Project. Remaining records can be retrieved using keyset pagination.")})
    return paginate(ctx, _Lazy(sequence), shape)


def virtual_routes(options: SandboxOptions) -> list[Route]:
    """The listings these options make virtual (matched before the ordinary ones)."""
    out = []
    if options.virtual_issues:
        out.append(Route("/issues", endpoint(list_issues), methods=["GET"]))
    if options.virtual_users:
        out.append(Route("/users", endpoint(list_users), methods=["GET"]))
    if options.virtual_projects:
        out.append(Route("/projects", endpoint(list_projects), methods=["GET"]))
    return out
