"""Pagination: a `Link` header parser that survives `;` and `,` inside URLs, and `Page` built from headers."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from labdeck.api.errors import MalformedResponse
from labdeck.domain.digits import parse_integer

# One link-value: `<URI-Reference>` then parameters up to the next `<` that starts a new link-value.
# The URI is taken verbatim between `<` and the first `>` (a URL never holds a raw `>`: it is %3E).
_LINK_VALUE = re.compile(r"<([^>]*)>((?:[^<\"]|\"(?:[^\"\\]|\\.)*\")*)")
_PARAM = re.compile(r";\s*([A-Za-z0-9!#$&+\-.^_`|~*]+)\s*(?:=\s*(\"(?:[^\"\\]|\\.)*\"|[^;,\s]*))?")


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def parse_link_header(header: str | None) -> dict[str, str]:
    """Map each `rel` of an RFC 8288 `Link` header to its URL; the first link wins for a repeated rel.

    Unlike httpx's parser, `;` and `,` inside `<...>` are part of the URL, and `rel` may list several
    space-separated relations (`rel="next last"`).
    """
    links: dict[str, str] = {}
    if not header:
        return links
    for match in _LINK_VALUE.finditer(header):
        url = match.group(1).strip()
        for param in _PARAM.finditer(match.group(2)):
            if param.group(1).lower() != "rel" or param.group(2) is None:
                continue
            for rel in _unquote(param.group(2)).split():
                links.setdefault(rel.lower(), url)
    return links


def format_link_header(links: Mapping[str, str]) -> str:
    """The `Link` header for `{rel: url}`, in GitLab's form: `<url>; rel="next", <url>; rel="last"`."""
    for url in links.values():
        if "<" in url or ">" in url:
            raise ValueError("a Link URL cannot contain '<' or '>' (percent-encode them)")
    return ", ".join(f'<{url}>; rel="{rel}"' for rel, url in links.items())


def _int_or_none(value: str | None) -> int | None:
    if value is None:
        return None
    return parse_integer(value.strip())


@dataclass
class Page:
    """One page of a list: its items and what the `x-*` and `Link` headers said (any may be absent)."""

    items: list[Any]
    page: int | None = None
    per_page: int | None = None
    total: int | None = None
    total_pages: int | None = None
    next_url: str | None = None
    next_page: int | None = None
    prev_page: int | None = None
    links: dict[str, str] = field(default_factory=dict)
    # A digest of the raw body (set by the client), so a walk can tell a page it has already seen.
    fingerprint: bytes | None = field(default=None, repr=False, compare=False)

    @property
    def has_next(self) -> bool:
        return bool(self.next_url or self.next_page)


def page_from_headers(items: list[Any], headers: Mapping[str, str]) -> Page:
    """Build a `Page` from a decoded list and its response headers (header names case-insensitive)."""
    lower = {k.lower(): v for k, v in headers.items()}
    links = parse_link_header(lower.get("link") or lower.get("links"))
    return Page(
        items=items,
        page=_int_or_none(lower.get("x-page")),
        per_page=_int_or_none(lower.get("x-per-page")),
        total=_int_or_none(lower.get("x-total")),
        total_pages=_int_or_none(lower.get("x-total-pages")),
        next_url=links.get("next"),
        next_page=_int_or_none(lower.get("x-next-page")),
        prev_page=_int_or_none(lower.get("x-prev-page")),
        links=links,
    )


def page_from_response(body: Any, headers: Mapping[str, str]) -> Page:
    """A `Page` from a decoded body; `MalformedResponse` when the body is not a JSON array."""
    if not isinstance(body, list):
        raise MalformedResponse(f"expected a JSON array for a list, got {type(body).__name__}")
    return page_from_headers(body, headers)
