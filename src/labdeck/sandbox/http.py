"""Helpers every sandbox route uses: the `endpoint` wrapper (parameters, caller, sudo, errors), `Ctx`,
offset `paginate()` with GitLab's headers, keyset pagination, time parameters and JSON responses.

A route is `Route("/projects/{id}", endpoint(get_project))` with `async def get_project(ctx: Ctx)`, which
returns a JSON-able value (200), a `Response`, or raises `SandboxError` (see `error()`, `missing()`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import parse_qsl, unquote, urlencode

import orjson
from starlette.requests import Request
from starlette.responses import Response

from labdeck.sandbox.auth import Identity, caller_outside_body, identify
from labdeck.sandbox.bodies import ANONYMOUS_BODY, TOO_LARGE, BodyTooLarge, read_body, replayed
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.job_tokens import job_token_allowed
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.params import Params, decode_pairs
from labdeck.sandbox.store import Store, User

# Above this many records GitLab stops counting: no x-total, x-total-pages or rel="last".
COUNT_LIMIT = 10_000
DEFAULT_PER_PAGE = 20
MAX_PER_PAGE = 100
_BODY_TYPES = frozenset({"application/json", "application/x-www-form-urlencoded", "multipart/form-data"})
# Never echoed into Link URLs.
_SECRET_PARAMS = {"private_token", "access_token", "job_token"}


class Ctx:
    """One request as a route sees it."""

    def __init__(self, request: Request, params: Params, identity: Identity) -> None:
        self.request = request
        self.params = params
        self.identity = identity
        self.store: Store = request.app.state.store
        self.options: SandboxOptions = request.app.state.options

    @property
    def base(self) -> str:
        """The instance's web base URL (configured, else the request's own), without a trailing slash."""
        return (self.options.base_url or str(self.request.base_url)).rstrip("/")

    @property
    def user(self) -> User | None:
        """The acting user (the sudo target when sudo is used), None when anonymous."""
        return self.identity.user

    @property
    def is_admin(self) -> bool:
        return self.identity.is_admin

    def path(self, name: str) -> str:
        """A path parameter, decoded once (`group%2Fproject` becomes `group/project`); see
        `app.EncodedSlashes`, which keeps each raw segment one parameter."""
        return unquote(self.request.path_params[name])

    def listing_key(self, *ignore: str) -> tuple[Any, ...]:
        """A cache key for a listing: route, caller and every parameter except paging ones."""
        skip = {"page", "per_page", "private_token", "access_token", "job_token", *ignore}
        items = tuple(sorted((k, repr(v)) for k, v in self.params.data.items() if k not in skip))
        return (self.request.url.path, self.user.id if self.user else None, items)

    def require_user(self) -> User:
        if self.user is None:
            raise SandboxError.unauthorized()
        return self.user

    def require_admin(self) -> User:
        user = self.require_user()
        if not user.is_admin:
            raise SandboxError.forbidden()
        return user


Handler = Callable[[Ctx], Awaitable[Any]]


def error(status: int, message: Any) -> SandboxError:
    """`raise error(409, "...")`: a `{"message": ...}` error."""
    return SandboxError.message(status, message)


def missing(*names: str) -> SandboxError:
    """`raise missing("title")`: 400 `{"error": "title is missing"}`."""
    return SandboxError.missing(*names)


def datetime_param(ctx: Ctx, name: str, *, space_is_plus: bool = False) -> datetime | None:
    """An ISO 8601 time parameter (`2026-01-05T10:20:30Z`), None when absent or empty; a time without an
    offset is UTC, as Grape reads it. `space_is_plus`: a `+` of the offset that reached us as a space
    (an unencoded query string) is read back as `+`. 400 `{"error": "<name> is invalid"}` otherwise."""
    text = ctx.params.str(name)
    if not text:
        return None
    if space_is_plus:
        text = text.replace(" ", "+")
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise SandboxError.invalid(name) from None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def iso(value: datetime | None) -> str | None:
    """GitLab's timestamp form: `2026-01-05T10:20:30.000Z`."""
    if value is None:
        return None
    # formatted by hand: `strftime` was a third of the time of a deployments listing
    return (f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{value.hour:02d}:{value.minute:02d}:"
            f"{value.second:02d}.{value.microsecond // 1000:03d}Z")


# orjson encodes what the standard library does, the same way, and refuses (TypeError) what it refuses:
# datetimes and dataclasses are handed back instead of encoded, and a key that is not a string becomes one
_ORJSON = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def encode(body: Any) -> bytes:
    """Compact UTF-8 JSON, as every sandbox response is encoded."""
    try:
        return orjson.dumps(body, option=_ORJSON)
    except TypeError:  # beyond orjson (an integer past 64 bits): the standard library's, or its refusal
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(encode(body), status_code=status, headers=headers, media_type="application/json")


def json_array_response(items: list[Any], headers: dict[str, str] | None = None) -> Response:
    """A JSON array whose items may already be encoded (`bytes`, e.g. memoised records)."""
    parts = [item if isinstance(item, bytes) else encode(item) for item in items]
    return Response(b"[" + b",".join(parts) + b"]", headers=headers, media_type="application/json")


def query_params(request: Request) -> Params:
    """The query string's parameters alone (bracket forms decoded): what is known before the body is read."""
    return Params(decode_pairs(parse_qsl(request.url.query, keep_blank_values=True)))


async def read_params(request: Request, limit: int, too_large: SandboxError) -> Params:
    """Query string, then form/multipart or JSON body on top, bracket forms decoded. The body is read up to
    `limit` bytes (`bodies.read_body`); `too_large` is raised past it, the rest never read."""
    data = query_params(request).data
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.method in ("POST", "PUT", "PATCH", "DELETE") and content_type in _BODY_TYPES:
        try:
            raw = await read_body(request, limit)
        except BodyTooLarge:
            raise too_large from None
        if content_type == "application/json":
            if raw.strip():
                try:
                    body = json.loads(raw)
                except ValueError:
                    raise SandboxError(400, {"error": "400 Bad Request - invalid JSON body"}) from None
                if isinstance(body, dict):
                    data.update(body)
        else:
            form = await replayed(request, raw).form()
            data.update(decode_pairs(form.multi_items()))
    return Params(data)


def endpoint(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Wrap a route handler: parse parameters, identify the caller (sudo included), complete due
    asynchronous operations, and render the result or the error."""

    async def run(request: Request) -> Response:
        try:
            store: Store = request.app.state.store
            template = request.scope.get("labdeck.route")  # set by app.tag_routes
            headers = {k.lower(): v for k, v in request.headers.items()}
            allowed = job_token_allowed(request.method, template)
            # who is calling is known before the body is read; an anonymous body is read a little only
            known = caller_outside_body(store, headers, query_params(request), job_token_allowed=allowed)
            if known is not None and known.user is not None:
                limit, too_large = request.app.state.options.max_body, SandboxError(413, TOO_LARGE)
            else:
                limit, too_large = ANONYMOUS_BODY, SandboxError.unauthorized()
            params = await read_params(request, limit, too_large)
            identity = identify(store, headers, params, job_token_allowed=allowed)
            store.scheduler.run_due()
            result = await handler(Ctx(request, params, identity))
        except SandboxError as exc:
            return json_response(exc.body, exc.status, exc.headers)
        if isinstance(result, Response):
            return result
        return json_response(result)

    run.__name__ = getattr(handler, "__name__", "endpoint")
    run.__doc__ = handler.__doc__
    return run


# --- pagination -----------------------------------------------------------------------------------------

def _page_args(params: Params) -> tuple[int, int]:
    page = params.int("page", 1) or 1
    per_page = params.int("per_page", DEFAULT_PER_PAGE) or DEFAULT_PER_PAGE
    return max(page, 1), min(max(per_page, 1), MAX_PER_PAGE)


def _base_and_query(ctx: Ctx, drop: set[str]) -> tuple[str, list[tuple[str, str]]]:
    request = ctx.request
    raw = request.scope.get("raw_path") or request.url.path.encode()
    path = raw.split(b"?")[0].decode("latin-1")
    base = (ctx.options.base_url or str(request.base_url)).rstrip("/")
    root = request.scope.get("root_path", "")
    if root and base.endswith(root):
        base = base[: -len(root)]
    pairs = [(k, v) for k, v in parse_qsl(request.url.query, keep_blank_values=True)
             if k not in drop and k not in _SECRET_PARAMS]
    return base + path, pairs


def _link(url: str, pairs: list[tuple[str, str]], rel: str) -> str:
    return f'<{url}?{urlencode(pairs)}>; rel="{rel}"'


class Sliceable(Protocol):
    """What offset pagination needs of a listing: its length and a slice (a list, or records built on
    demand from their index)."""

    def __len__(self) -> int: ...

    def __getitem__(self, part: slice, /) -> Sequence[Any]: ...


def paginate(ctx: Ctx, items: Sliceable, serialize: Callable[[Any], Any] = lambda x: x) -> Response:
    """Offset pagination over `items` (already filtered and ordered) with GitLab's `Link` and `x-*`
    headers; totals and `rel="last"` are left out above `COUNT_LIMIT` records. `serialize` gives a
    JSON-able value or already encoded `bytes`."""
    page, per_page = _page_args(ctx.params)
    total = len(items)
    counted = total <= COUNT_LIMIT
    start = (page - 1) * per_page
    chunk = items[start:start + per_page]
    total_pages = max(math.ceil(total / per_page), 1)
    has_next = start + per_page < total
    url, pairs = _base_and_query(ctx, {"page", "per_page"})

    def with_page(number: int) -> list[tuple[str, str]]:
        return [*pairs, ("page", str(number)), ("per_page", str(per_page))]

    links = []
    if page > 1:
        links.append(_link(url, with_page(page - 1), "prev"))
    if has_next:
        links.append(_link(url, with_page(page + 1), "next"))
    links.append(_link(url, with_page(1), "first"))
    if counted:
        links.append(_link(url, with_page(total_pages), "last"))
    headers = {
        "Link": ", ".join(links),
        "x-next-page": str(page + 1) if has_next else "",
        "x-page": str(page),
        "x-per-page": str(per_page),
        "x-prev-page": str(page - 1) if page > 1 else "",
    }
    if counted:
        headers["x-total"] = str(total)
        headers["x-total-pages"] = str(total_pages)
    return json_array_response([serialize(item) for item in chunk], headers=headers)


def keyset_paginate(ctx: Ctx, items: Sequence[Any], serialize: Callable[[Any], Any], *, descending: bool,
                    key: Callable[[Any], int] = lambda x: x.id) -> Response:
    """Keyset pagination by id (`pagination=keyset&order_by=id`): `items` ordered by id (descending or
    not); the `Link` (and legacy `Links`) header carries `id_after` (ascending) or `id_before`
    (descending). A short page, or the empty page after the last record, has no Link."""
    _, per_page = _page_args(ctx.params)
    after, before = ctx.params.int("id_after"), ctx.params.int("id_before")
    selected = [i for i in items
                if (after is None or key(i) > after) and (before is None or key(i) < before)]
    chunk = list(selected[:per_page])
    headers: dict[str, str] = {}
    if len(chunk) == per_page:
        url, pairs = _base_and_query(ctx, {"id_after", "id_before", "page", "per_page"})
        cursor = ("id_before" if descending else "id_after", str(key(chunk[-1])))
        link = _link(url, [*pairs, ("per_page", str(per_page)), cursor], "next")
        headers = {"Link": link, "Links": link}
    return json_array_response([serialize(i) for i in chunk], headers=headers)
