"""Reading a request body in the sandbox: only once the caller is known, and never more than GitLab's cap.

An anonymous 40 MB PUT was once read and parsed whole before its 401 (about 120 MiB). Now:
- a credential in the headers or the query string is checked before any byte of the body is read
  (`auth.caller_outside_body`: an unknown token is 401 at once);
- with none there, a body may still carry one (GitLab reads `private_token` from body parameters), so it is
  read up to `ANONYMOUS_BODY` bytes; past that the REST API answers 401 and reads no further (none of
  GitLab's writes is open to anonymous callers); GraphQL, which serves anonymous callers, answers 413;
- an authenticated body is capped at `SandboxOptions.max_body`, by default GitLab's default
  `max_attachment_size` of 100 MiB (doc/administration/settings/account_and_limit_settings.md, "Max
  attachment size"; Workhorse refuses uploads above it), refused as GitLab's `file_too_large!` refuses one
  (lib/api/helpers.rb): 413 `{"message":"413 Request Entity Too Large"}`.
A declared `Content-Length` over the limit is refused unread; a chunked body is counted as it arrives and
refused at the first chunk that passes the limit.
"""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.types import Message

from labdeck.domain.digits import parse_digits

ANONYMOUS_BODY: Final = 64 * 1024
GITLAB_MAX_ATTACHMENT: Final = 100 * 1024 * 1024  # GitLab's default max_attachment_size (100 MiB)
TOO_LARGE: Final = {"message": "413 Request Entity Too Large"}  # `file_too_large!`


class BodyTooLarge(Exception):
    """The body is (or says it is) longer than the limit it was read with: nothing more was read."""


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, at most `limit` bytes; `BodyTooLarge` when its `Content-Length` says more (before
    any byte is read) or as soon as the bytes received pass the limit."""
    declared = parse_digits(request.headers.get("content-length", "").strip())
    if declared is not None and declared > limit:
        raise BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def replayed(request: Request, body: bytes) -> Request:
    """The same request with `body` (read already by `read_body`) as its body: for Starlette's form parser,
    which reads the body itself."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return Request(request.scope, receive)
