"""Where a request to one instance goes, and how it is named: a path (relative to `/api/v4`, or a full URL
such as a `Link`) made the instance's URL, refused when a dot segment would make it name another resource;
the auth headers, which go to the instance's own scheme and host only; and the URL as the request log and
error messages show it (relative to `/api/v4`, credentials removed).

Reads the connection settings and nothing else: it sends nothing and keeps no state but the instance's
address."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from labdeck.api.errors import LabdeckError, UnsafePath
from labdeck.api.params import encode_params
from labdeck.api.redirects import origin_of
from labdeck.api.request_log import needs_redaction, redact_url
from labdeck.api.settings import ConnectionSettings
from labdeck.domain import read_only
from labdeck.domain.paths import same_resource
from labdeck.domain.text import sanitize

# What a header value that holds a token may contain: visible ASCII only. Anything else (a line break
# from a token file, a space, non-ASCII) makes httpx/h11 fail with a message that quotes the value.
_HEADER_VALUE = re.compile(r"[\x21-\x7e]+")


class Addressing:
    """The URLs, auth headers and shown names of one instance's requests (`ApiClient.address`)."""

    def __init__(self, settings: ConnectionSettings) -> None:
        self.settings = settings
        api = httpx.URL(settings.api_url)
        self.origin = origin_of(api)
        self.api_prefix = str(api).rstrip("/")
        self._api_raw_path = httpx.URL(self.api_prefix).raw_path.decode("ascii")
        self.graphql_path = urlsplit(settings.base_url).path.rstrip("/") + read_only.GRAPHQL_PATH

    # -- URLs -----------------------------------------------------------------------------------------
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

    def target(self, path: str, params: Mapping[str, Any] | None = None) -> httpx.URL:
        """The URL a request for `path` with the query `params` goes to (`url_for`, then the parameters)."""
        url = self.url_for(path)
        pairs = encode_params(params)
        return url.copy_merge_params(tuple(pairs)) if pairs else url  # (httpx's type takes no list of pairs)

    def api_path(self, url: httpx.URL) -> str:
        """The raw path of a URL sent to the instance, relative to `/api/v4`, without the query (what the
        list cache's change rules match, as `url_for` checked it)."""
        return url.raw_path.decode("ascii").split("?", 1)[0].removeprefix(self._api_raw_path)

    def same_origin(self, url: httpx.URL) -> bool:
        """True when `url` has the instance's scheme and host (and port): only then is auth attached."""
        return origin_of(url) == self.origin

    # -- credentials ----------------------------------------------------------------------------------
    def auth_headers(self, url: httpx.URL) -> dict[str, str]:
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

    # -- names shown ----------------------------------------------------------------------------------
    def log_path(self, url: httpx.URL) -> str:
        """The URL as the request log and error messages show it: relative to `/api/v4` on the instance,
        absolute elsewhere; credentials in it (user:password@, token query parameters) removed."""
        text = str(url)
        if text.startswith(self.api_prefix) and text[len(self.api_prefix):][:1] in ("", "/", "?"):
            text = text[len(self.api_prefix):] or "/"
        return redact_url(text) if needs_redaction(text) else text

    def relative_path(self, path: str) -> str:
        """`path` as the request log shows it (relative to `/api/v4` on the instance, without the query)."""
        return self.log_path(self.url_for(path).copy_with(query=None))

    def where(self, path: str) -> str:
        """`path` (relative or a `Link` URL) as error messages show it (see `log_path`)."""
        try:
            return self.log_path(self.url_for(path))
        except (httpx.InvalidURL, UnsafePath):
            return sanitize(path)[:200]
