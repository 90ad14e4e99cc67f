"""A fake GitLab instance whose every answer is chosen by the test: the hostile-server suite's one server.

    app = build_app({"/projects": json_answer([{"id": 1}], headers={"RateLimit-Remaining": "-1"}),
                     "/user": lambda call: html_answer(502)})
    transport = httpx.ASGITransport(app=app)        # in-process (service layer, `labdeck api`, Pilot)
    with start(app) as base_url: ...                 # or over a real loopback socket

`build_app(routes)` takes a table from path (relative to `/api/v4`, without the query; `"*"` for any other
path) to an `Answer` or to a handler `Call -> Answer` (a handler sees the method, path, query, headers, body,
host and how many calls came before). Unknown paths answer GitLab's 404. `app.calls` records every call, so a
test can assert what was (or was not) sent, and to which host.

`Answer.declared_length` sends a `Content-Length` larger than the body: over `start`'s socket the connection
ends early (a truncated body); in-process the client simply gets the short body.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

API_PREFIX = "/api/v4"
BASE_URL = "https://gitlab.hostile.test"


@dataclass(frozen=True)
class Call:
    """One request as the fake instance saw it."""

    method: str
    path: str  # relative to /api/v4 when under it
    query: Mapping[str, list[str]]
    headers: Mapping[str, str]  # lower-case names
    body: bytes
    host: str
    number: int  # 0 for the first call the app received

    def param(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[0] if values else default


@dataclass
class Answer:
    """What to send back: status, headers, raw body (and optionally a larger declared length)."""

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str | None = "application/json"
    declared_length: int | None = None


Handler = Callable[[Call], "Answer | Awaitable[Answer]"]


def json_answer(value: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Answer:
    """A JSON body (`allow_nan`: a test may send NaN on purpose)."""
    return Answer(status, json.dumps(value).encode(), dict(headers or {}))


def raw_answer(body: bytes | str, status: int = 200, content_type: str | None = "application/json",
               headers: Mapping[str, str] | None = None, declared_length: int | None = None) -> Answer:
    data = body.encode() if isinstance(body, str) else body
    return Answer(status, data, dict(headers or {}), content_type, declared_length)


def html_answer(status: int, title: str | None = None, text: str = "Something went wrong.") -> Answer:
    """An HTML error page as a proxy (nginx, a load balancer) sends it, with or without a `<title>`."""
    head = f"<head><title>{title}</title></head>" if title is not None else ""
    page = f"<!DOCTYPE html>\n<html>{head}<body><h1>{text}</h1></body></html>\n"
    return Answer(status, page.encode(), {}, "text/html; charset=utf-8")


def redirect_answer(status: int, location: str, body: bytes = b'{"message": "moved"}') -> Answer:
    return Answer(status, body, {"Location": location})


class HostileApp:
    """The ASGI app `build_app` returns."""

    def __init__(self, routes: Mapping[str, Answer | Handler]) -> None:
        self.routes = dict(routes)
        self.calls: list[Call] = []

    def hosts(self) -> set[str]:
        return {call.host for call in self.calls}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        path = scope["path"]
        relative = path[len(API_PREFIX):] or "/" if path.startswith(API_PREFIX) else path
        call = Call(scope["method"], relative, parse_qs(scope["query_string"].decode("latin-1"),
                                                          keep_blank_values=True),
                    headers, body, headers.get("host", ""), len(self.calls))
        self.calls.append(call)
        route = self.routes.get(relative, self.routes.get("*"))
        if route is None:
            answer = json_answer({"message": "404 Not Found"}, 404)
        elif isinstance(route, Answer):
            answer = route
        else:
            result = route(call)
            answer = await result if isinstance(result, Awaitable) else result  # type: ignore[misc]
        await _send(send, answer)


async def _send(send: Any, answer: Answer) -> None:
    headers = [(k.lower().encode("latin-1"), str(v).encode("utf-8")) for k, v in answer.headers.items()]
    if answer.content_type and not any(k == b"content-type" for k, _ in headers):
        headers.append((b"content-type", answer.content_type.encode("latin-1")))
    length = answer.declared_length if answer.declared_length is not None else len(answer.body)
    headers.append((b"content-length", str(length).encode()))
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    await send({"type": "http.response.body", "body": answer.body, "more_body": False})


def build_app(routes: Mapping[str, Answer | Handler]) -> HostileApp:
    """A fake instance answering each path from `routes` (see the module docstring)."""
    return HostileApp(routes)


def start(app: Any, timeout: float = 10.0) -> contextlib.AbstractContextManager[str]:
    """Serve `app` on a loopback socket (uvicorn in a thread) for a `with` block; yields the base URL."""
    from loopback import serve

    return serve(app, timeout)


# --- connection settings for the fake instance -------------------------------------------------------------

# Tokens that do not look like GitLab's: only redaction by value can catch them.
LEGACY_TOKEN = "aB3dE5fG7hJ9kL1mN2pQ"  # 20 characters, a pre-prefix personal access token
OAUTH_TOKEN = "5f0c3a9e8b7d6c1f2e4a9b8c7d6e5f40312a9b8c7d6e5f4a3b2c1d0e9f8a7b6c"  # 64 hex, an OAuth token
TOKENS = {"legacy": (LEGACY_TOKEN, "private"), "oauth": (OAUTH_TOKEN, "oauth")}


def hostile_settings(token: str = LEGACY_TOKEN, auth: str = "private", url: str = BASE_URL,
                     **overrides: Any) -> Any:
    """Settings for the fake instance: retries a few milliseconds apart and short timeouts, so every case
    ends quickly whatever the server does."""
    from pydantic import SecretStr

    from labdeck.api.settings import ConnectionSettings, RetryPolicy, Timeouts

    values: dict[str, Any] = {
        "url": url, "token": SecretStr(token), "auth": auth, "name": "hostile",
        "retry": RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, max_total=0.05),
        "timeouts": Timeouts(connect=2, read=2, pool=2, deadline=10),
    }
    values.update(overrides)
    return ConnectionSettings(**values)
