"""Access tokens as GitLab serves them (issue 36): personal access tokens
(`lib/api/personal_access_tokens.rb`, `lib/api/helpers/personal_access_tokens_helpers.rb`) and group and
project access tokens (`lib/api/resource_access_tokens.rb`), with GitLab's entities
(`lib/api/entities/personal_access_token.rb`, `resource_access_token.rb`), statuses and rules:

- `GET /personal_access_tokens`: administrators see every token, the bot users' of group and project
  tokens too (`PersonalAccessTokensHelpers#finder_params`: no user, no filter; `user_id` filters, an
  unknown user 404), others their own (a `user_id` of someone else: 401); the filters of
  `access_token_params`.
- `GET /personal_access_tokens/:id`: the owner or an administrator; else 401 (an administrator asking for
  a token that does not exist: 404).
- `POST /personal_access_tokens/:id/rotate` (`PersonalAccessTokens::RotateService`): 200 and the new token
  with its `token`, once; the old one revoked; `expires_at` or one week from today (GitLab's default,
  `EXPIRATION_PERIOD`); a revoked token: 400 "Token already revoked".
- `DELETE /personal_access_tokens/:id`: 204; someone else's token: 400 (GitLab's `bad_request!(nil)`).
- `/groups/:id/access_tokens` and `/projects/:id/access_tokens` (list with the same filters, get, rotate,
  revoke): a group's for its Owners, a project's for its Maintainers and Owners
  (`read_resource_access_tokens`, `manage_resource_access_tokens`); listing or reading otherwise: 401;
  rotating: 401 (administrators: 404);
  revoking: 400 "<user> cannot delete <bot>".

A rotated token that authenticates (the seeded identities') stops authenticating and the new value does;
a revoked one stops. Records: `seed/access.py`'s `AccessTokens`.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.domain.digits import parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, datetime_param, endpoint, error, iso, json_response, paginate
from labdeck.sandbox.routes.groups.groups import find_group, level_in
from labdeck.sandbox.routes.projects.projects import find_project
from labdeck.sandbox.seed.access import TokenRecord, add_token, digest, tokens_of
from labdeck.sandbox.store import Store, Token

ROTATION_DAYS = 7  # `PersonalAccessTokens::RotateService::EXPIRATION_PERIOD`
SORTS: dict[str, Callable[[TokenRecord], Any]] = {
    "created": lambda t: (t.created_at, t.id), "expires": lambda t: (t.expires_at or date.max, t.id),
    "last_used": lambda t: (t.last_used_at is not None, t.last_used_at or t.created_at, t.id),
    "name": lambda t: (t.name.lower(), t.id)}
_MANAGE = {"group": 50, "project": 40}  # Owners of a group, Maintainers of a project


def active(record: TokenRecord, today: date) -> bool:
    return not record.revoked and (record.expires_at is None or record.expires_at > today)


def token_json(store: Store, record: TokenRecord, *, resource: bool = False,
               ips: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": record.id, "name": record.name, "revoked": record.revoked, "created_at": iso(record.created_at),
        "description": record.description, "scopes": list(record.scopes), "user_id": record.user_id,
        "last_used_at": iso(record.last_used_at), "active": active(record, store.now().date()),
        "expires_at": record.expires_at.isoformat() if record.expires_at else None}
    if ips or resource:
        body["last_used_ips"] = []
    if resource and record.resource is not None:
        body["access_level"] = record.access_level
        body["resource_type"], body["resource_id"] = record.resource
    return body


def _date(ctx: Ctx, name: str) -> date | None:
    text = ctx.params.str(name)
    if not text:
        return None
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        raise SandboxError.invalid(name) from None


def _filtered(ctx: Ctx, rows: list[TokenRecord]) -> list[TokenRecord]:
    """`access_token_params`: state, revoked, search (in the name, any case), created/last used (times,
    inclusive), expires (dates: before is strict, after inclusive), sort (default: by id)."""
    p, today = ctx.params, ctx.store.now().date()
    wanted = p.choice("state", ("active", "inactive"))
    if "state" in p and wanted is None:
        raise SandboxError.bad_value("state")
    if wanted is not None:
        rows = [t for t in rows if active(t, today) == (wanted == "active")]
    revoked = p.bool("revoked")
    if revoked is not None:
        rows = [t for t in rows if t.revoked == revoked]
    search = (p.str("search") or "").lower()
    if search:
        rows = [t for t in rows if search in t.name.lower()]
    for name, stamp in (("created", lambda t: t.created_at), ("last_used", lambda t: t.last_used_at)):
        before, after = datetime_param(ctx, f"{name}_before"), datetime_param(ctx, f"{name}_after")
        if before is not None:
            rows = [t for t in rows if stamp(t) is not None and stamp(t) <= before]
        if after is not None:
            rows = [t for t in rows if stamp(t) is not None and stamp(t) >= after]
    expires_before, expires_after = _date(ctx, "expires_before"), _date(ctx, "expires_after")
    if expires_before is not None:
        rows = [t for t in rows if t.expires_at is not None and t.expires_at < expires_before]
    if expires_after is not None:
        rows = [t for t in rows if t.expires_at is not None and t.expires_at >= expires_after]
    order = p.str("sort") or ""
    field, _, direction = order.rpartition("_")
    if field in SORTS and direction in ("asc", "desc"):
        return sorted(rows, key=SORTS[field], reverse=direction == "desc")
    return sorted(rows, key=lambda t: t.id)


def _personal(store: Store) -> list[TokenRecord]:
    return [t for t in tokens_of(store).records.values() if t.resource is None]


def _token_id(ctx: Ctx, name: str = "token_id") -> int | None:
    return parse_digits(ctx.path(name))


async def list_personal(ctx: Ctx) -> Any:
    user = ctx.require_user()
    rows = _personal(ctx.store)
    if user.is_admin:  # every token, the bots' of group and project tokens too (`finder_params`: `{}`)
        rows = list(tokens_of(ctx.store).records.values())
        if "user_id" in ctx.params:
            owner = ctx.params.int("user_id")
            if owner is None or (owner not in ctx.store.users and owner not in tokens_of(ctx.store).bots):
                raise error(404, "404 Not found")
            rows = [t for t in rows if t.user_id == owner]
    else:
        asked = ctx.params.int("user_id")
        if asked is not None and asked != user.id:
            raise SandboxError.unauthorized()
        rows = [t for t in rows if t.user_id == user.id]
    return paginate(ctx, _filtered(ctx, rows), lambda t: token_json(ctx.store, t))


def _personal_token(ctx: Ctx) -> TokenRecord:
    """The token of the path for its owner or an administrator: 401 otherwise, and 404 when it does not
    exist for an administrator (only administrators are told)."""
    user = ctx.require_user()
    ident = _token_id(ctx)
    record = tokens_of(ctx.store).records.get(ident) if ident is not None else None
    if record is not None and (user.is_admin or (record.resource is None and record.user_id == user.id)):
        return record  # an administrator's reach is every token, a bot's too
    if user.is_admin:
        raise error(404, "404 Not found")
    raise SandboxError.unauthorized()


async def get_personal(ctx: Ctx) -> Any:
    return token_json(ctx.store, _personal_token(ctx), ips=True)


async def revoke_personal(ctx: Ctx) -> Any:
    user = ctx.require_user()
    ident = _token_id(ctx)
    record = tokens_of(ctx.store).records.get(ident) if ident is not None else None
    if record is None or (record.resource is not None and not user.is_admin):
        raise error(404, "404 Not found")
    if not (user.is_admin or record.user_id == user.id):
        raise error(400, "400 Bad request")
    _revoke(ctx.store, record)
    return Response(status_code=204)


def _revoke(store: Store, record: TokenRecord) -> None:
    record.revoked = True
    if record.digest is not None:  # the value stops authenticating
        for value in [v for v in store.tokens if digest(v) == record.digest]:
            del store.tokens[value]
    store.touch()


def _rotate(ctx: Ctx, record: TokenRecord, *, resource: bool) -> Response:
    """The rotation of `record`: revoked, and a new token of the same name, scopes and owner with its value
    in the answer, once (`RotateService`)."""
    if record.revoked:
        raise error(400, "400 Bad request - Token already revoked")
    expires = _date(ctx, "expires_at") or ctx.store.now().date() + timedelta(days=ROTATION_DAYS)
    value = f"glpat-{secrets.token_urlsafe(15)[:20]}"
    owner = ctx.store.users.get(record.user_id)  # None for a group's or project's bot
    _revoke(ctx.store, record)
    made = add_token(ctx.store, record.user_id, record.name, record.scopes, age_days=0, expires_in=None,
                     resource=record.resource, access_level=record.access_level)
    made.created_at, made.expires_at, made.previous_id = ctx.store.now(), expires, record.id
    made.description = record.description
    if owner is not None:  # a person's new token authenticates (a bot's are the area's, not the store's)
        ctx.store.tokens[value] = Token(value, owner.id, scopes=record.scopes, name=record.name)
        made.digest = digest(value)
    ctx.store.touch()
    return json_response({**token_json(ctx.store, made, resource=resource), "token": value})


async def rotate_personal(ctx: Ctx) -> Any:
    return _rotate(ctx, _personal_token(ctx), resource=False)


# -- group and project access tokens ---------------------------------------------------------------------

def _resource(ctx: Ctx, kind: str) -> tuple[str, int, int]:
    """The group or project of the path (404 when the caller cannot see it), and the caller's level in it
    (administrators: Owner)."""
    user = ctx.require_user()
    if kind == "group":
        group = find_group(ctx)
        return kind, group.id, 50 if user.is_admin else level_in(ctx.store, user, group)
    project = find_project(ctx)
    return kind, project.id, 50 if user.is_admin else ctx.store.project_levels(user.id).get(project.id, 0)


def _tokens_of(ctx: Ctx, kind: str, ident: int) -> list[TokenRecord]:
    return [t for t in tokens_of(ctx.store).records.values() if t.resource == (kind, ident)]


def _found(ctx: Ctx, kind: str, ident: int) -> TokenRecord:
    number = _token_id(ctx)
    record = tokens_of(ctx.store).records.get(number) if number is not None else None
    if record is None or record.resource != (kind, ident):
        raise SandboxError.not_found(f"{kind} Access Token")
    return record


def _resource_routes(kind: str) -> list[Route]:
    base = f"/{kind}s/{{id}}/access_tokens"

    async def listing(ctx: Ctx) -> Any:
        _, ident, level = _resource(ctx, kind)
        if level < _MANAGE[kind]:
            raise SandboxError.unauthorized()
        return paginate(ctx, _filtered(ctx, _tokens_of(ctx, kind, ident)),
                        lambda t: token_json(ctx.store, t, resource=True))

    async def one(ctx: Ctx) -> Any:
        _, ident, level = _resource(ctx, kind)
        if level < _MANAGE[kind]:
            raise SandboxError.unauthorized()
        return token_json(ctx.store, _found(ctx, kind, ident), resource=True)

    async def rotate(ctx: Ctx) -> Any:
        _, ident, level = _resource(ctx, kind)
        if level < _MANAGE[kind]:
            raise error(404, "404 Not Found") if ctx.is_admin else SandboxError.unauthorized()
        return _rotate(ctx, _found(ctx, kind, ident), resource=True)

    async def revoke(ctx: Ctx) -> Any:
        _, ident, level = _resource(ctx, kind)
        record = _found(ctx, kind, ident)
        if level < _MANAGE[kind]:
            user = ctx.require_user()
            bot = tokens_of(ctx.store).bots.get(record.user_id)
            raise error(400, f"400 Bad request - {user.name} cannot delete {bot.name if bot else 'the bot'}")
        _revoke(ctx.store, record)
        return Response(status_code=204)

    return [Route(base, endpoint(listing), methods=["GET"]),
            Route(base + "/{token_id}", endpoint(one), methods=["GET"]),
            Route(base + "/{token_id}/rotate", endpoint(rotate), methods=["POST"]),
            Route(base + "/{token_id}", endpoint(revoke), methods=["DELETE"])]


routes: list[Route] = [
    Route("/personal_access_tokens", endpoint(list_personal), methods=["GET"]),
    Route("/personal_access_tokens/{token_id}", endpoint(get_personal), methods=["GET"]),
    Route("/personal_access_tokens/{token_id}/rotate", endpoint(rotate_personal), methods=["POST"]),
    Route("/personal_access_tokens/{token_id}", endpoint(revoke_personal), methods=["DELETE"]),
    *_resource_routes("group"),
    *_resource_routes("project"),
]
