"""Which requests change an instance: a read-only client refuses them before anything is sent, and again
on every redirect hop; the undo journal records them. Reads are not changes, nor is a POST of GraphQL
queries (no mutation) to the instance's own `/api/graphql` with no query string and nothing sent beside its
JSON; everything else is (the rule itself is `domain.read_only.refusal`).

Reads the connection settings and the instance's address (`Addressing`); sends nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from labdeck.api.addressing import Addressing
from labdeck.api.errors import ReadOnly, UnsafePath
from labdeck.api.settings import ConnectionSettings
from labdeck.domain import read_only

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


class ReadOnlyGuard:
    """Tells a change from a read, and refuses changes while the settings say `read_only`."""

    def __init__(self, settings: ConnectionSettings, address: Addressing) -> None:
        self.settings = settings
        self.address = address

    def check_request(self, method: str, path: str, kwargs: Mapping[str, Any]) -> None:
        """`ReadOnly` for a request (`ApiClient.request`'s keywords) that a read-only session may not send;
        a path that is not even a URL is refused whatever it is (it could only be a change)."""
        if not self.settings.read_only or method.upper() in read_only.READS:
            return
        try:
            url = self.address.target(path, kwargs.get("params"))
        except httpx.InvalidURL:
            raise ReadOnly(f"instance {self.settings.name} is read-only: {method.upper()} refused; "
                           "nothing was sent") from None
        self.check_hop(method, url, kwargs.get("json"), beside=body_beside_json(kwargs))

    def check_hop(self, method: str, url: httpx.URL, json: Any, *, beside: bool) -> None:
        """`ReadOnly` when the session is read-only and sending `method` to `url` (a request, or a redirect
        it follows) with `json` (and something `beside` it) would change something."""
        if not self.settings.read_only:
            return
        why = self._why_a_change(method, url, json, beside)
        if why is not None:
            raise ReadOnly(f"instance {self.settings.name} is read-only: {method.upper()} "
                           f"{self.address.log_path(url.copy_with(query=None))} refused ({why}); "
                           "nothing was sent")

    def changes(self, method: str, path: str, kwargs: Mapping[str, Any]) -> bool:
        """Whether the request (`ApiClient.request`'s keywords) can change the instance (what the journal
        records): not a read, and not a GraphQL request of queries only (the registry reads tag details
        that way)."""
        if method.upper() in read_only.READS:
            return False
        try:
            url = self.address.target(path, kwargs.get("params"))
        except (httpx.InvalidURL, UnsafePath):
            return True
        return self._why_a_change(method, url, kwargs.get("json"), body_beside_json(kwargs)) is not None

    def _why_a_change(self, method: str, url: httpx.URL, json: Any, beside: bool) -> str | None:
        address = self.address
        graphql = address.graphql_path if address.same_origin(url) else read_only.GRAPHQL_PATH + "/off-origin"
        query = url.query.decode("ascii", "replace")
        return read_only.refusal(method, url.path, json, graphql, query=query, other_body=beside)
