"""Group labels (GitLab's API docs, "Group labels"): list with counts and ancestor/descendant options, get
by id or title, create (the colour kept as sent, a CSS colour name stored as its upper-case hex, and
`text_color` by GitLab's rule: dark text only when r + g + b > 500), update with `new_name`, delete,
subscribe and unsubscribe (304 when nothing changes), and the deprecated forms with `name` in the parameters.
The listing's `only_group_labels=false` (GitLab 13.6) adds the project labels of the group's projects (of its
subgroups' too with `include_descendant_groups`): the issues area's labels, which every project has.

Records: `store.areas["group_labels"]` is a `LabelsState`.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.domain.colours import COLOUR_ERROR, ColourError, stored_colour, text_colour
from labdeck.domain.digits import parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, error, json_response, paginate
from labdeck.sandbox.routes.groups.groups import authed_group, require_level
from labdeck.sandbox.seed.issues import Label as ProjectLabel
from labdeck.sandbox.seed.issues import issues_data
from labdeck.sandbox.store import Group, Store

AREA = "group_labels"
MANAGE_LEVEL = 20  # reporters may manage group labels
AT_LEAST_ONE = "new_name, color, description are missing, at least one parameter must be provided"


@dataclass
class Label:
    id: int
    group_id: int
    title: str
    color: str
    description: str | None
    created_at: datetime
    subscribers: set[int] = field(default_factory=set)


@dataclass
class LabelsState:
    labels: dict[int, Label] = field(default_factory=dict)


def state(store: Store) -> LabelsState:
    return store.area(AREA, LabelsState)


def add_label(store: Store, group: Group, title: str, color: str, description: str | None = None) -> Label:
    label = Label(store.next_id("label"), group.id, title, stored_colour(color), description, store.now())
    state(store).labels[label.id] = label
    return label


_SEED: dict[str, list[tuple[str, str, str | None]]] = {
    "acme": [("bug", "red", "Something is broken"), ("feature", "#428BCA", "New functionality"),
             ("documentation", "#F0AD4E", None)],
    "acme/platform": [("api", "teal", "Public API surface")],
    "opensource": [("good first issue", "#5CB85C", "Small, well described tasks")],
}


_GENERATED = (("bug", "#d9534f"), ("enhancement", "#5cb85c"), ("needs review", "#f0ad4e"),
              ("security", "darkred"), ("tech debt", "slategray"), ("ux", "#428bca"))


def seed(store: Store, ctx: Any) -> None:
    """The fixed labels above, then two or three labels for every other top-level group."""
    for path, labels in _SEED.items():
        group = store.group_by_path(path)
        if group is not None:
            for title, color, description in labels:
                add_label(store, group, title, color, description)
    for group in list(store.groups.values()):
        if group.parent_id is None and group.full_path not in _SEED and group.full_path != "hidden-lab":
            for title, color in ctx.rng.sample(_GENERATED, ctx.rng.randint(2, 3)):
                add_label(store, group, title, color)


def label_json(label: Label, user_id: int | None, *, counts: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": label.id, "name": label.title, "color": label.color, "text_color": text_colour(label.color),
        "description": label.description,
        "description_html": f"<p>{html.escape(label.description)}</p>" if label.description else None,
        "subscribed": user_id in label.subscribers, "priority": None, "is_project_label": False,
        "archived": False,
    }
    if counts:
        body.update(open_issues_count=label.id * 7 % 13, closed_issues_count=label.id * 5 % 17,
                    open_merge_requests_count=label.id * 3 % 5)
    return body


def project_label_json(label: ProjectLabel) -> dict[str, Any]:
    """A project label (the issues area's labels, which every sandbox project has)."""
    return {"id": label.id, "name": label.name, "color": label.color, "text_color": label.text_color,
            "description": label.description,
            "description_html": f"<p>{html.escape(label.description)}</p>" if label.description else None,
            "subscribed": False, "priority": label.priority, "is_project_label": True, "archived": False}


def project_labels(ctx: Ctx, project_ids: list[int]) -> list[ProjectLabel]:
    """The project labels of these projects, those the caller may read (each sandbox project has the issues
    area's labels)."""
    store = ctx.store
    if not any(store.can_read_project(ctx.user, store.projects[pid]) for pid in project_ids):
        return []
    return sorted(issues_data(store).labels.values(), key=lambda lb: (lb.name.lower(), lb.id))


def label_matches(search: str, title: str, description: str | None) -> bool:
    """GitLab's label `search`: the title or the description holds it, case-insensitively."""
    return not search or search in title.lower() or search in (description or "").lower()


def _group_ids(ctx: Ctx, group: Group, *, ancestors: bool, descendants: bool) -> list[int]:
    ids = ctx.store.ancestors(group.id) if ancestors else [group.id]
    if descendants:
        ids += [g for g in ctx.store.descendants(group.id)
                if ctx.store.can_read_group(ctx.user, ctx.store.groups[g])]
    return ids


def _available(ctx: Ctx, group: Group, *, ancestors: bool = True, descendants: bool = False) -> list[Label]:
    ids = set(_group_ids(ctx, group, ancestors=ancestors, descendants=descendants))
    return sorted((lb for lb in state(ctx.store).labels.values() if lb.group_id in ids),
                  key=lambda lb: (lb.title.lower(), lb.id))


def _find(ctx: Ctx, group: Group, ident: str, *, ancestors: bool = True, descendants: bool = False) -> Label:
    labels = _available(ctx, group, ancestors=ancestors, descendants=descendants)
    number = parse_digits(ident)
    found = next((lb for lb in labels if number is not None and lb.id == number), None)
    found = found or next((lb for lb in labels if lb.title == ident), None)
    if found is None:
        raise SandboxError.not_found("Label")
    return found


def _uid(ctx: Ctx) -> int | None:
    return ctx.user.id if ctx.user else None


def _colour(raw: str) -> str:
    try:
        return stored_colour(raw)
    except ColourError:
        raise SandboxError.validation({"color": [COLOUR_ERROR]}) from None


async def list_labels(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    p = ctx.params
    labels = _available(ctx, group, ancestors=bool(p.bool("include_ancestor_groups", True)),
                        descendants=bool(p.bool("include_descendant_groups", False)))
    search = (p.str("search") or "").lower()
    labels = [lb for lb in labels if label_matches(search, lb.title, lb.description)]
    counts = bool(p.bool("with_counts", False))
    rows: list[Any] = [label_json(lb, _uid(ctx), counts=counts) for lb in labels]
    if not p.bool("only_group_labels", True):
        descendants = bool(p.bool("include_descendant_groups", False))
        groups = [group.id, *(ctx.store.descendants(group.id) if descendants else [])]
        by_namespace = ctx.store.projects_by_namespace()
        ids = [pid for gid in groups for pid in by_namespace.get(("group", gid), [])]
        rows += [project_label_json(lb) for lb in project_labels(ctx, ids)
                 if label_matches(search, lb.name, lb.description)]
    return paginate(ctx, rows, lambda row: row)


async def get_label(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    p = ctx.params
    label = _find(ctx, group, ctx.path("label_id"), ancestors=bool(p.bool("include_ancestor_groups", True)),
                  descendants=bool(p.bool("include_descendant_groups", False)))
    return label_json(label, _uid(ctx), counts=False)


async def create_label(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    require_level(ctx, group, MANAGE_LEVEL)
    p = ctx.params
    p.require("name", "color")
    title = (p.str("name") or "").strip()
    color = _colour(p.str("color") or "")
    if any(lb.title == title for lb in _available(ctx, group, descendants=True)):
        raise error(409, "Label already exists")
    label = add_label(ctx.store, group, title, color, p.str("description"))
    ctx.store.touch()
    return json_response(label_json(label, _uid(ctx), counts=False), 201)


def _apply_update(ctx: Ctx, group: Group, label: Label) -> Any:
    p = ctx.params
    if not any(p.data.get(n) not in (None, "") for n in ("new_name", "color", "description")):
        raise SandboxError(400, {"error": AT_LEAST_ONE})
    new_name = (p.str("new_name") or "").strip()
    if new_name and new_name != label.title and any(
            lb.title == new_name for lb in _available(ctx, group, descendants=True)):
        raise SandboxError.validation({"title": ["has already been taken"]})
    color = _colour(p.str("color") or "") if p.str("color") else None
    if new_name:
        label.title = new_name
    if color:
        label.color = color
    if "description" in p:
        label.description = p.str("description")
    ctx.store.touch()
    return label_json(label, _uid(ctx), counts=False)


async def update_label(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    require_level(ctx, group, MANAGE_LEVEL)
    return _apply_update(ctx, group, _find(ctx, group, ctx.path("label_id"), ancestors=False))


async def update_label_by_name(ctx: Ctx) -> Any:
    """Deprecated: `PUT /groups/:id/labels` with `name`."""
    group = authed_group(ctx)
    require_level(ctx, group, MANAGE_LEVEL)
    ctx.params.require("name")
    return _apply_update(ctx, group, _find(ctx, group, ctx.params.str("name") or "", ancestors=False))


def _delete(ctx: Ctx, label: Label) -> Response:
    del state(ctx.store).labels[label.id]
    ctx.store.touch()
    return Response(status_code=204)


async def delete_label(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    require_level(ctx, group, MANAGE_LEVEL)
    return _delete(ctx, _find(ctx, group, ctx.path("label_id"), ancestors=False))


async def delete_label_by_name(ctx: Ctx) -> Any:
    """Deprecated: `DELETE /groups/:id/labels` with `name`."""
    group = authed_group(ctx)
    require_level(ctx, group, MANAGE_LEVEL)
    ctx.params.require("name")
    return _delete(ctx, _find(ctx, group, ctx.params.str("name") or "", ancestors=False))


def _subscription(subscribe: bool) -> Callable[[Ctx], Any]:
    async def handler(ctx: Ctx) -> Any:
        group = authed_group(ctx)
        user = ctx.require_user()
        label = _find(ctx, group, ctx.path("label_id"))
        if (user.id in label.subscribers) == subscribe:
            return Response(status_code=304)
        if subscribe:
            label.subscribers.add(user.id)
        else:
            label.subscribers.discard(user.id)
        ctx.store.touch()
        return json_response(label_json(label, user.id, counts=False), 201)
    return handler


routes: list[Route] = [
    Route("/groups/{id}/labels", endpoint(list_labels), methods=["GET"]),
    Route("/groups/{id}/labels", endpoint(create_label), methods=["POST"]),
    Route("/groups/{id}/labels", endpoint(update_label_by_name), methods=["PUT"]),
    Route("/groups/{id}/labels", endpoint(delete_label_by_name), methods=["DELETE"]),
    Route("/groups/{id}/labels/{label_id}", endpoint(get_label), methods=["GET"]),
    Route("/groups/{id}/labels/{label_id}", endpoint(update_label), methods=["PUT"]),
    Route("/groups/{id}/labels/{label_id}", endpoint(delete_label), methods=["DELETE"]),
    Route("/groups/{id}/labels/{label_id}/subscribe", endpoint(_subscription(True)), methods=["POST"]),
    Route("/groups/{id}/labels/{label_id}/unsubscribe", endpoint(_subscription(False)), methods=["POST"]),
]
