"""Redirects: which statuses redirect, which headers never leave the instance, and where a redirect may go.

A redirect is followed only on the instance's own origin (scheme, host and port). One to anywhere else is
never followed, whatever its status (301, 302, 303, 307 or 308: the last two would re-send the body there);
`OffOriginRedirect` names the host it pointed to.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

from labdeck.api.errors import MalformedResponse, OffOriginRedirect
from labdeck.domain.text import sanitize

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Headers that carry credentials: never sent to another origin, even when a caller passed them itself.
SENSITIVE_HEADERS = frozenset({"authorization", "private-token", "job-token", "sudo", "cookie"})
MAX_REDIRECTS = 5

Origin = tuple[str, str]


def origin_of(url: httpx.URL) -> Origin:
    """(scheme, host[:port]) of `url`, lower-case."""
    return url.scheme.lower(), url.netloc.decode("ascii").lower()


def redirect_target(method: str, url: httpx.URL, response: httpx.Response, origin: Origin,
                    where: Callable[[httpx.URL], str]) -> httpx.URL:
    """Where the redirect `response` to `method url` points, if that stays on `origin`; else
    `OffOriginRedirect` (`MalformedResponse` for a Location that is not a URL). `where` shows a URL."""
    try:
        target = url.join(response.headers["location"])
        target_origin = origin_of(target)
    except (httpx.InvalidURL, UnicodeError, ValueError) as exc:
        raise MalformedResponse(f"{method} {where(url)}: the server redirected to an invalid URL "
                                f"({sanitize(str(exc))[:200]})") from None
    if target_origin == origin:
        return target
    host = sanitize(target.netloc.decode("ascii", errors="replace"))[:200]
    raise OffOriginRedirect(
        f"{method} {where(url)}: the server answered {response.status_code} redirecting to another host, "
        f"{sanitize(target.scheme or '?')}://{host}, not followed (labdeck only follows redirects on "
        f"{origin[0]}://{origin[1]})", target_host=host)


def method_after(status: int, method: str) -> str:
    """The method of the next hop: 303 (and 301/302 after a POST) turn into GET, as browsers do."""
    return "GET" if status == 303 or (status in (301, 302) and method == "POST") else method
