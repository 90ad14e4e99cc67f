"""The addressing half of `ApiClient`: turning a path into the instance's URL (refusing one that would name
another resource), the auth headers that go only to the instance's own origin, how a URL is shown in logs and
errors, and what a request is: a change (journalled, refused in read-only mode) or a read."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from labdeck.api.errors import LabdeckError, ReadOnly, UnsafePath
from labdeck.api.params import encode_params
from labdeck.api.redirects import Origin, origin_of
from labdeck.api.request_log import needs_redaction, redact_url
from labdeck.api.settings import ConnectionSettings
from labdeck.domain import read_only
from labdeck.domain.paths import same_resource
from labdeck.domain.text import sanitize

# What a header value that holds a token may contain: visible ASCII only. Anything else (a line break
# from a token file, a space, non-ASCII) makes httpx/h11 fail with a message that quotes the value.
_HEADER_VALUE = re.compile(r"[\x21-\x7e]+")


class Addressing:
    """Base of `ApiClient`: everything that depends on the instance's URL and the token's kind only."""

    settings: ConnectionSettings
    _origin: Origin
    _api_prefix: str
    _graphql_path: str

    # -- URLs and headers -----------------------------------------------------------------------------
    def url_for(self, path: str) -> httpx.URL:
        """An absolute URL: `path` relative to `/api/v4`, or already absolute (a `Link`). Refused
        (`UnsafePath`) when the URL would name another resource than `path` does: httpx resolves the dot
        segments `.` and `..`, so `.../protected_environments/..` would leave as `/projects/:id`."""
        text = path if path.startswith(("http://", "https://")) else (
            self.settings.api_url + "/" + path.lstrip("/"))
        url = httpx.URL(text)
        asked = urlsplit(text).path
        if not same_resource(asked, url.raw_path.decode("ascii").split("?", 1)[0]):
            raise UnsafePath(f"refused to send a request to {sanitize(path)[:200]}: a segment of its path "
                             "('.' or '..') would name another resource")
        return url

    def same_origin(self, url: httpx.URL) -> bool:
        """True when `url` has the instance's scheme and host (and port): only then is auth attached."""
        return origin_of(url) == self._origin

    def _auth_headers(self, url: httpx.URL) -> dict[str, str]:
        """Auth headers for `url`: none unless it is on the instance's own scheme and host."""
        if not self.same_origin(url):
            return {}
        headers: dict[str, str] = {}
        if self.settings.token is not None and self.settings.token.get_secret_value():  # "" is anonymous
            if not _HEADER_VALUE.fullmatch(self.settings.token.get_secret_value()):
                raise LabdeckError(f"the token of instance {self.settings.name} holds characters that "
                                   "cannot be sent in an HTTP header (a line break, a space or non-ASCII "
                                   "text): check where it comes from")
            if self.settings.auth == "oauth":
                headers["Authorization"] = "Bearer " + self.settings.token.get_secret_value()
            elif self.settings.auth == "job":
                headers["JOB-TOKEN"] = self.settings.token.get_secret_value()
            else:
                headers["PRIVATE-TOKEN"] = self.settings.token.get_secret_value()
        if self.settings.sudo:
            headers["Sudo"] = self.settings.sudo
        return headers

    def _log_path(self, url: httpx.URL) -> str:
        """The URL as the request log and error messages show it: relative to `/api/v4` on the instance,
        absolute elsewhere; credentials in it (user:password@, token query parameters) removed."""
        text = str(url)
        if text.startswith(self._api_prefix) and text[len(self._api_prefix):][:1] in ("", "/", "?"):
            text = text[len(self._api_prefix):] or "/"
        return redact_url(text) if needs_redaction(text) else text

    def relative_path(self, path: str) -> str:
        """`path` as the request log shows it (relative to `/api/v4` on the instance, without the query)."""
        return self._log_path(self.url_for(path).copy_with(query=None))

    def where(self, path: str) -> str:
        """`path` (relative or a `Link` URL) as error messages show it (see `_log_path`)."""
        try:
            return self._log_path(self.url_for(path))
        except (httpx.InvalidURL, UnsafePath):
            return sanitize(path)[:200]

    def target(self, path: str, params: Mapping[str, Any] | None = None) -> httpx.URL:
        """The URL a request for `path` with the query `params` goes to (`url_for`, then the parameters)."""
        url = self.url_for(path)
        pairs = encode_params(params)
        return url.copy_merge_params(tuple(pairs)) if pairs else url  # (httpx's type takes no list of pairs)

    def _refuse_if_read_only(self, method: str, url: httpx.URL, json: Any, *, beside: bool) -> None:
        """`ReadOnly` when the session is read-only and the request would change something: only reads
        leave, and a POST of GraphQL queries (no mutation) to the instance's own `/api/graphql`, with no
        query string in `url` and nothing sent `beside` its JSON (`domain.read_only.refusal`)."""
        if not self.settings.read_only:
            return
        why = self._why_a_change(method, url, json, beside)
        if why is not None:
            raise ReadOnly(f"instance {self.settings.name} is read-only: {method.upper()} "
                           f"{self._log_path(url.copy_with(query=None))} refused ({why}); nothing was sent")

    def _why_a_change(self, method: str, url: httpx.URL, json: Any, beside: bool) -> str | None:
        graphql = self._graphql_path if self.same_origin(url) else read_only.GRAPHQL_PATH + "/off-origin"
        query = url.query.decode("ascii", "replace")
        return read_only.refusal(method, url.path, json, graphql, query=query, other_body=beside)

    def _changes(self, method: str, path: str, kwargs: Mapping[str, Any]) -> bool:
        """Whether the request (`request`'s keywords) can change the instance (what the journal records):
        not a read, and not a GraphQL request of queries only (the registry reads tag details that way)."""
        if method.upper() in read_only.READS:
            return False
        try:
            url = self.target(path, kwargs.get("params"))
        except (httpx.InvalidURL, UnsafePath):
            return True
        return self._why_a_change(method, url, kwargs.get("json"), body_beside_json(kwargs)) is not None


# What the client can send instead of, or beside, a checked `json=`: httpx sends `content=`, then `files=`,
# then `data=` before `json=`; a keyword the client does not know could only be another body; and a caller's
# header can make the server read the body as something else (a form), or the method as another.
_OTHER_BODIES = ("content", "data", "files")
_REQUEST_KEYWORDS = frozenset({"params", "json", "data", "files", "headers", "allow_304"})
_BODY_HEADERS = frozenset({"content-type", "content-encoding", "transfer-encoding", "x-http-method-override"})


def body_beside_json(kwargs: Mapping[str, Any]) -> bool:
    """True when a request made with `kwargs` (`ApiClient.request`'s keywords) would send something besides
    or instead of its `json=` (see above); `Content-Type: application/json` is only what httpx sets."""
    if any(kwargs.get(k) is not None for k in _OTHER_BODIES):
        return True
    if any(v is not None for k, v in kwargs.items() if k not in _REQUEST_KEYWORDS):
        return True
    for name, value in (kwargs.get("headers") or {}).items():
        name = name.lower()
        if name in _BODY_HEADERS and not (name == "content-type"
                                          and value.split(";")[0].strip().lower() == "application/json"):
            return True
    return False
