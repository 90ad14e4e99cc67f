"""Typed API errors: one class per status of GitLab's error table, carrying the server's message."""

from __future__ import annotations

import html
import json
import re
from http import HTTPStatus
from typing import Any

from labdeck.domain.redaction import redact
from labdeck.domain.text import sanitize, status_line


class LabdeckError(Exception):
    """Base of every error labdeck raises on purpose; safe to show to the user (never holds a token).
    `method` is the HTTP method of the request it is about, when there was one (set by the client)."""

    method: str = ""


class NetworkError(LabdeckError):
    """The instance could not be reached, or the connection broke (after retries). `may_have_sent` is False
    only when the request certainly never reached the server (no connection was made)."""

    may_have_sent: bool = True


class AnswerLost(NetworkError):
    """A write's answer was lost and its automatic retry cannot tell whether the first attempt was applied:
    a PUT that renamed what its path names (a label by name, a variable's scope, a project path) answers
    404 on the retry, because the first attempt moved it. The server may have applied it."""


class DeadlineExceeded(NetworkError):
    """A request (with its retries) ran past its overall deadline."""


class MalformedResponse(LabdeckError):
    """The server answered with a body labdeck cannot read (bad JSON, unexpected shape)."""


class PaginationLoop(MalformedResponse):
    """A list walk met a page it had already seen (a loop), or ran past its page limit; it stopped."""


class PageLimit(PaginationLoop):
    """A list walk reached its page limit (`max_pages`) while the list went on: nothing read is thrown
    away. `items` holds what was read, in order (empty when `fetch_all` handed the pages to `on_items`),
    `count` how many items were read, `max_pages` the limit; `partial` says it in a few words."""

    def __init__(self, message: str, max_pages: int) -> None:
        super().__init__(message)
        self.max_pages = max_pages
        self.items: list[Any] = []
        self.count = 0

    @property
    def partial(self) -> str:
        return f"first {self.count:,} (stopped at the page limit of {self.max_pages:,} pages)"


class UnsafePath(LabdeckError):
    """A request whose path, as it would leave, names another resource than the path it was built as (a
    literal `.` or `..` segment that the URL library resolves away): refused before anything is sent."""


class ReadOnly(LabdeckError):
    """A change (POST, PUT, PATCH, DELETE; a GraphQL mutation) asked of a read-only session: refused by the
    client before anything is sent (`labdeck.domain.read_only`)."""


class UnreadableIdentity(LabdeckError):
    """A request would name an item whose id could not be read (a tolerant-reading placeholder): refused
    before anything is sent (`models.tolerant.placeholder_in_path`)."""


class OffOriginRedirect(LabdeckError):
    """The server redirected a request off the instance's origin; labdeck does not follow it."""

    def __init__(self, message: str, target_host: str = "") -> None:
        super().__init__(message)
        self.target_host = target_host


MAY_HAVE_APPLIED = "the server may have applied this"
READS = frozenset({"", "GET", "HEAD", "OPTIONS"})


def may_have_applied(error: BaseException) -> bool:
    """Whether a write that failed with `error` may still have been applied by the server: its answer was
    unreadable or cut short, the connection broke after the request may have been sent, or a proxy answered
    502/504 for the backend."""
    if isinstance(error, MalformedResponse):
        return True
    if isinstance(error, NetworkError):
        return error.may_have_sent
    return isinstance(error, ApiError) and error.status in (502, 504)


def lost_write(error: BaseException) -> bool:
    """`error` is about a write (not a read) whose answer was lost: the server may have applied it."""
    return isinstance(error, LabdeckError) and error.method.upper() not in READS and may_have_applied(error)


def failure_text(error: LabdeckError) -> str:
    """What a per-item result says about a failed write: the server's message (or the error), and "the
    server may have applied this" when its answer was lost."""
    message = error.message if isinstance(error, ApiError) else str(error) or type(error).__name__
    if lost_write(error) and MAY_HAVE_APPLIED not in message:
        message = f"{message}: {MAY_HAVE_APPLIED}"
    return message


class ApiError(LabdeckError):
    """An HTTP error status from the API, with the server's message."""

    status: int = 0
    default_message: str = "request failed"

    def __init__(self, status: int, message: str, method: str = "", path: str = "",
                 body: Any = None, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.message = message or self.default_message_for(status)
        self.method = method
        self.path = path
        self.body = body
        self.headers = headers or {}
        super().__init__(self.status_line())

    @classmethod
    def default_message_for(cls, status: int) -> str:
        """The class's default for its own status, else the status's standard phrase ("502 Bad Gateway"):
        a class that stands for several statuses (ServerError for every 5xx) never reports another one."""
        if status == cls.status:
            return cls.default_message
        try:
            return f"{status} {HTTPStatus(status).phrase}"
        except ValueError:
            return f"{status} {cls.default_message}" if cls is ApiError else f"{status} error"

    def status_line(self) -> str:
        """The status and the server's message, the status once: GitLab's messages often start with it
        ("404 Project Not Found"); others do not ("400: status is missing")."""
        return status_line(self.status, str(self.message))

    def __str__(self) -> str:
        where = f" ({self.method} {self.path})" if self.method else ""
        return f"{self.status_line()}{where}"


class NotModified(ApiError):
    status = 304
    default_message = "Not Modified"


class BadRequest(ApiError):
    status = 400
    default_message = "Bad Request"


class Unauthorized(ApiError):
    status = 401
    default_message = "401 Unauthorized"


class Forbidden(ApiError):
    status = 403
    default_message = "403 Forbidden"


class NotFound(ApiError):
    status = 404
    default_message = "404 Not Found"


class MethodNotAllowed(ApiError):
    status = 405
    default_message = "405 Method Not Allowed"


class Conflict(ApiError):
    status = 409
    default_message = "409 Conflict"


class PreconditionFailed(ApiError):
    status = 412
    default_message = "412 Precondition Failed"


class Unprocessable(ApiError):
    status = 422
    default_message = "422 Unprocessable"


class RateLimited(ApiError):
    status = 429
    default_message = "429 Too Many Requests"


class ServerError(ApiError):
    status = 500
    default_message = "500 Internal Server Error"


_BY_STATUS: dict[int, type[ApiError]] = {
    cls.status: cls
    for cls in (NotModified, BadRequest, Unauthorized, Forbidden, NotFound, MethodNotAllowed, Conflict,
                PreconditionFailed, Unprocessable, RateLimited, ServerError)
}


def _flatten(value: Any) -> str:
    """Turn GitLab's many message shapes into one readable line."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(_flatten(v) for v in value if v is not None)
    if isinstance(value, dict):
        parts = []
        for key, inner in value.items():
            text = _flatten(inner)
            parts.append(f"{key} {text}".strip() if not isinstance(inner, dict) else f"{key}: {text}")
        return "; ".join(parts)
    return str(value)


def message_from_body(body: Any, text: str = "") -> str:
    """Extract the server's message from any of GitLab's error body shapes, sanitised."""
    if isinstance(body, dict):
        if "message" in body:
            msg = _flatten(body["message"])
        elif "error" in body:
            msg = _flatten(body["error"])
            desc = body.get("error_description")
            if desc:
                msg = f"{msg}: {_flatten(desc)}"
        else:
            msg = _flatten(body)
    elif body is not None:
        msg = _flatten(body)
    else:
        msg = text.strip()
    return sanitize(msg[:2000])


_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)


def _html_message(text: str) -> str | None:
    """For an HTML error page (a proxy's or GitLab's own 502 page): its title, else "" (use the default);
    None when `text` is not HTML."""
    if not text.lstrip().startswith("<"):
        return None
    found = _HTML_TITLE.search(text)
    title = " ".join(html.unescape(found.group(1)).split()) if found else ""
    return sanitize(title[:200])


def error_for(status: int, raw: bytes, method: str = "", path: str = "",
              headers: dict[str, str] | None = None) -> ApiError:
    """Build the typed error for an HTTP status and raw body."""
    text = raw.decode("utf-8", errors="replace")
    body: Any = None
    if text.strip():
        try:
            body = json.loads(text)
        except ValueError:
            body = None
    cls = _BY_STATUS.get(status)
    if cls is None:
        cls = ServerError if status >= 500 else ApiError
    page_title = _html_message(text) if body is None else None
    message = page_title if page_title is not None else message_from_body(body, text)
    return cls(status, redact(message), method, path, body, headers)  # a server may echo the token
