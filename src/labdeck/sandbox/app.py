"""The sandbox's ASGI app: `create_app(options)` seeds a store and serves the API under `/api/v4` (and
GraphQL at `/api/graphql` unless `options.graphql` is off), behind the fault/latency/rate-limit layer and a
path fix that keeps URL-encoded slashes (`group%2Fproject`) in one path segment, as GitLab's `:id` needs;
every answer's `Date` header tells the sandbox's own clock (`InstanceDate`)."""

from __future__ import annotations

import gc
from email.utils import formatdate
from typing import Any
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.datastructures import URLPath
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Mount, NoMatchFound, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from labdeck.sandbox.areas import load_areas
from labdeck.sandbox.bodies import ANONYMOUS_BODY, TOO_LARGE
from labdeck.sandbox.clock import Clock, SystemClock
from labdeck.sandbox.editions import route_available
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.faults import FaultLayer
from labdeck.sandbox.http import json_response, read_params
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.routes.issues.listing import warm as warm_issue_listings
from labdeck.sandbox.seed import build_store
from labdeck.sandbox.seed.issues import build_in_background
from labdeck.sandbox.store import Store


class EncodedSlashes:
    """Rebuild `scope["path"]` from `raw_path` so that an encoded `/` stays inside its segment: each raw
    segment is decoded, then `%` and `/` re-encoded, and `Ctx.path()` decodes the parameter once."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("raw_path") if scope["type"] == "http" else None
        if raw and b"%" in raw:
            text = raw.split(b"?")[0].decode("latin-1")
            segments = (unquote(part).replace("%", "%25").replace("/", "%2F") for part in text.split("/"))
            scope = {**scope, "path": "/".join(segments)}
        await self.app(scope, receive, send)


class InstanceDate:
    """Every answer's `Date` header is the sandbox's own time (its one clock, which `POST /-/sandbox/clock`
    moves forward), as a GitLab instance's is its own: a client that reads the instance's time from it
    sees the time the sandbox runs policies at. (`serve` turns uvicorn's own wall-time header off.)"""

    def __init__(self, app: ASGIApp, clock: Clock) -> None:
        self.app = app
        self.clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def dated(message: Message) -> None:
            if message["type"] == "http.response.start":
                told = formatdate(self.clock.time(), usegmt=True).encode()
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"date"]
                message = {**message, "headers": [*kept, (b"date", told)]}
            await send(message)

        await self.app(scope, receive, dated)


async def _echo(request: Request) -> Response:
    """`/-/sandbox/echo`: the parsed parameters of any request (to check body and bracket decoding)."""
    params = await read_params(request, ANONYMOUS_BODY, SandboxError(413, TOO_LARGE))  # no caller here

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        if hasattr(value, "filename"):
            return {"filename": value.filename}
        return value

    return json_response(plain(params.data))


def _tagged(route: BaseRoute) -> BaseRoute:
    """The route, its endpoint noting its template in the scope (`labdeck.route`): where job tokens count
    depends on the route, not on the concrete path."""
    if not isinstance(route, Route) or route.endpoint is None:
        return route
    inner, template = route.endpoint, route.path

    async def tagged(request: Request) -> Response:
        request.scope["labdeck.route"] = template
        return await inner(request)

    return Route(template, tagged, methods=list(route.methods or ()), name=route.name)


class Unmounted(BaseRoute):
    """A route the edition or version played does not have, answered as GitLab's catch-all route answers
    it (404 `{"error":"404 Not Found"}`): without it, a method missing on a path that other methods serve
    (`PUT .../protected_environments/:name` before 15.4) would be Starlette's 405."""

    def __init__(self, route: Route) -> None:
        self.route = route

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = self.route.matches(scope)
        return (Match.FULL, child) if match is Match.FULL else (Match.NONE, {})

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        await json_response({"error": "404 Not Found"}, 404)(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        raise NoMatchFound(name, path_params)


def api_routes(options: SandboxOptions) -> list[BaseRoute]:
    """Every area's routes that the edition and version played mount (`editions.route_available`), and
    after them the catch-all answers of those it does not (`Unmounted`)."""
    from labdeck.sandbox.routes.virtual import virtual_routes  # matched first: they replace listings

    routes = [route for area in load_areas() for route in area.routes]
    served = [route for route in routes
              if not isinstance(route, Route) or route_available(route.path, options, route.methods or ())]
    mounted = {id(route) for route in served}  # by identity: Starlette compares routes field by field
    return [_tagged(route) for route in virtual_routes(options)] + [_tagged(route) for route in served] + [
        Unmounted(route) for route in routes if isinstance(route, Route) and id(route) not in mounted]


async def _not_found(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 404)
    if status == 405:
        return json_response({"error": "405 Not Allowed"}, 405)
    return json_response({"error": "404 Not Found"}, status if status >= 400 else 404)


def _after_issues_built(store: Store) -> None:
    warm_issue_listings(store)
    # The seeded records live as long as the sandbox: full collections (over millions of objects at this
    # scale, a pause in whichever request set one off) skip them from now on.
    gc.freeze()


def create_app(options: SandboxOptions | None = None, *, clock: Clock | None = None,
               store: Store | None = None) -> Starlette:
    """The ASGI app. `clock` (default: the real one) drives scheduled completions and rate windows;
    pass a ready `store` to skip seeding."""
    options = options or SandboxOptions()
    clock = clock or (store.clock if store is not None else SystemClock())
    store = store or build_store(options, clock)
    clock = store.clock  # the one clock (build_store makes it one that `POST /-/sandbox/clock` can advance)
    # Routes outside /api/v4 (GraphQL at /api/graphql), left out when the options turn GraphQL off.
    root_routes = [route for area in load_areas() for route in area.root_routes
                   if options.graphql or area.name != "graphql"]
    app = Starlette(
        routes=[Mount("/api/v4", routes=api_routes(options)), *root_routes,
                Route("/-/sandbox/echo", _echo, methods=["GET", "POST", "PUT", "DELETE"])],
        exception_handlers={HTTPException: _not_found},
    )
    app.state.store = store
    app.state.options = options
    # The large scale's 50,000 issues, while nobody asks for them yet; then what every issue listing starts
    # from, so the first request only filters.
    build_in_background(store, then=_after_issues_built)
    app.add_middleware(FaultLayer, options=options, clock=clock)
    app.add_middleware(EncodedSlashes)
    app.add_middleware(InstanceDate, clock=clock)  # outermost: the 429s and faults are dated too
    return app
