"""Instance-wide routes of the core: `GET /version`, `GET /metadata` (both as the edition and version played
answer them, see `editions.py`), `GET /job` (the job of a job token), `GET /user`, `GET /users`,
`GET /users/:id`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from starlette.routing import Route

from labdeck.domain.digits import parse_digits
from labdeck.sandbox.editions import version_body
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, datetime_param, endpoint, iso, paginate
from labdeck.sandbox.shapes import user_basic, user_full, user_public
from labdeck.sandbox.store import Store, User

_ADMIN_ONLY_FILTERS = ("external", "admins", "two_factor", "without_projects", "custom_attributes",
                       "extern_uid", "provider", "auditors", "skip_ldap")
_BLOCKED_STATES = {"blocked", "ldap_blocked", "blocked_pending_approval"}
_ORDER = {
    "id": lambda u: u.id, "name": lambda u: (u.name.lower(), u.id), "username": lambda u: (u.username, u.id),
    "created_at": lambda u: (u.created_at, u.id), "updated_at": lambda u: (u.created_at, u.id),
    "last_activity_on": lambda u: (u.last_activity_on or datetime.min.replace(tzinfo=u.created_at.tzinfo),
                                   u.id),
}


async def version(ctx: Ctx) -> Any:
    ctx.require_user()
    return version_body(ctx.options, metadata=False)


async def metadata(ctx: Ctx) -> Any:
    ctx.require_user()
    return version_body(ctx.options, metadata=True)


async def current_job(ctx: Ctx) -> Any:
    """`GET /job`: the running job whose token authenticated the request; another kind of token finds no job
    (404 `Job Not Found`), no token is a 401."""
    user = ctx.require_user()
    token = ctx.identity.token
    if token is None or token.kind != "job" or token.project_id is None:
        raise SandboxError.not_found("Job")
    project = ctx.store.projects.get(token.project_id)
    if project is None:
        raise SandboxError.not_found("Job")
    job_id = 90_000 + project.id  # one running job per seeded job token
    web = f"{ctx.base}/{project.path_with_namespace}"
    started = ctx.store.now()
    return {
        "id": job_id, "status": "running", "stage": "deploy", "name": "deploy", "ref": project.default_branch,
        "tag": False, "coverage": None, "allow_failure": False, "created_at": iso(started),
        "started_at": iso(started), "finished_at": None, "erased_at": None, "duration": None,
        "queued_duration": 0.5, "user": user_public(user, ctx.base), "commit": None,
        "pipeline": {"id": job_id - 1, "iid": 1, "project_id": project.id, "sha": "0" * 40,
                     "ref": project.default_branch, "status": "running", "source": "push",
                     "created_at": iso(started), "updated_at": iso(started),
                     "web_url": f"{web}/-/pipelines/{job_id - 1}"},
        "web_url": f"{web}/-/jobs/{job_id}", "project": {"ci_job_token_scope_enabled": True},
        "artifacts": [], "artifacts_expire_at": None, "tag_list": [], "runner": None, "archived": False,
    }


async def current_user(ctx: Ctx) -> Any:
    user = ctx.require_user()
    return user_full(user, ctx.base, ctx.store)


def _matches(store: Store, user: User, ctx: Ctx, admin: bool) -> bool:
    p = ctx.params
    if not admin and user.state == "banned":
        return False
    search = (p.str("search") or "").lower()
    if search and search not in user.username.lower() and search not in user.name.lower() \
            and not (admin and search in user.email.lower()):
        return False
    username = p.str("username")
    if username and user.username.lower() != username.lower():
        return False
    if p.bool("active") and (user.state != "active" or user.bot):
        return False
    if p.bool("blocked") and user.state not in _BLOCKED_STATES:
        return False
    if p.bool("external") and not user.external:
        return False
    if p.bool("exclude_external") and user.external:
        return False
    if (p.bool("exclude_internal") or p.bool("humans")) and user.user_type != "human":
        return False
    if p.bool("without_project_bots") and user.user_type == "project_bot":
        return False
    if p.bool("admins") and not user.is_admin:
        return False
    two_factor = p.choice("two_factor", ("enabled", "disabled"))
    if two_factor and user.two_factor_enabled != (two_factor == "enabled"):
        return False
    before, after = datetime_param(ctx, "created_before"), datetime_param(ctx, "created_after")
    if before and user.created_at >= before:
        return False
    if after and user.created_at <= after:
        return False
    wanted = p.dict("custom_attributes")
    return all(user.custom_attributes.get(k) == v for k, v in wanted.items())


async def list_users(ctx: Ctx) -> Any:
    admin = ctx.is_admin
    if not admin and any(name in ctx.params for name in _ADMIN_ONLY_FILTERS):
        raise SandboxError.forbidden()
    order_by = ctx.params.choice("order_by", _ORDER, "id") or "id"
    sort = ctx.params.choice("sort", ("asc", "desc"), "desc")

    def ordered() -> list[User]:
        rows = [u for u in ctx.store.users.values() if _matches(ctx.store, u, ctx, admin)]
        rows.sort(key=_ORDER[order_by], reverse=sort == "desc")
        return rows

    users = ctx.store.memo(ctx.listing_key(), ordered)
    if admin:
        return paginate(ctx, users, lambda u: user_full(u, ctx.base, ctx.store))
    return paginate(ctx, users, lambda u: user_basic(u, ctx.base))


async def get_user(ctx: Ctx) -> Any:
    ident = ctx.path("id")
    number = parse_digits(ident)
    user = ctx.store.users.get(number) if number is not None else None
    if user is None and number is not None and ctx.is_admin:  # a group or project token's bot user
        from labdeck.sandbox.seed.access import bot_user_json

        bot = bot_user_json(ctx.store, number, ctx.base)
        if bot is not None:
            return bot
    if user is None or (user.state == "banned" and not ctx.is_admin):
        raise SandboxError.not_found("User")
    if ctx.is_admin or (ctx.user is not None and ctx.user.id == user.id):
        return user_full(user, ctx.base, ctx.store)
    return user_public(user, ctx.base)


routes: list[Route] = [
    Route("/version", endpoint(version), methods=["GET"]),
    Route("/metadata", endpoint(metadata), methods=["GET"]),
    Route("/job", endpoint(current_job), methods=["GET"]),
    Route("/user", endpoint(current_user), methods=["GET"]),
    Route("/users", endpoint(list_users), methods=["GET"]),
    Route("/users/{id}", endpoint(get_user), methods=["GET"]),
]
