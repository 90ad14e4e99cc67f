"""`GET /users/:id/memberships` (doc/api/users.md, "List projects and groups that a user is a member of";
`lib/api/users.rb`, `lib/api/entities/membership.rb`): a user's direct memberships, groups (`source_type`
`Namespace`) then projects (`Project`), each `{source_id, source_name, source_type, access_level}`.
Administrators only (403 otherwise); an id, not a username (400 `user_id is invalid`); `404 User
Not Found`; `type` must be `Project` or `Namespace` (400).
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from labdeck.domain.digits import parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, paginate

TYPES = ("Project", "Namespace")


async def list_memberships(ctx: Ctx) -> Any:
    ctx.require_admin()
    number = parse_digits(ctx.path("id"))
    if number is None:  # Grape's `requires :user_id, type: Integer`
        raise SandboxError.invalid("user_id")
    user = ctx.store.users.get(number)
    if user is None:
        raise SandboxError.not_found("User")
    kind = ctx.params.str("type")
    if kind is not None and kind not in TYPES:
        raise SandboxError.bad_value("type")
    store, rows = ctx.store, []
    if kind in (None, "Namespace"):
        rows += [{"source_id": gid, "source_name": store.groups[gid].name, "source_type": "Namespace",
                  "access_level": members[user.id].access_level}
                 for gid, members in sorted(store.group_members.items())
                 if user.id in members and gid in store.groups]
    if kind in (None, "Project"):
        rows += [{"source_id": pid, "source_name": store.projects[pid].name, "source_type": "Project",
                  "access_level": members[user.id].access_level}
                 for pid, members in sorted(store.project_members.items())
                 if user.id in members and pid in store.projects]
    return paginate(ctx, rows)


routes: list[Route] = [Route("/users/{id}/memberships", endpoint(list_memberships), methods=["GET"])]
