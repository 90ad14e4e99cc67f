"""The reading half of `ApiClient`: JSON bodies (decoded off the event loop when large, an unreadable 2xx
marked in the request log), one page, every page, and whole lists through the list cache. `ApiClient`
(`api/client.py`) holds the sending half: auth, retries, pacing, redirects, the concurrency limit."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

import httpx

from labdeck.api import body, page_fetch
from labdeck.api.cache import ListCache, make_key
from labdeck.api.errors import LabdeckError, MalformedResponse
from labdeck.api.pagination import Page, page_from_response
from labdeck.api.request_log import RequestLog
from labdeck.api.settings import ConnectionSettings
from labdeck.domain.endpoints import ApiPath

Progress = page_fetch.Progress
FetchMode = page_fetch.FetchMode


class Reads:
    """Reading JSON, pages and lists; `ApiClient` gives `request` and the attributes below."""

    settings: ConnectionSettings
    request_log: RequestLog
    cache: ListCache
    identity: Any

    if TYPE_CHECKING:
        async def request(self, method: str, path: ApiPath, **kwargs: Any) -> httpx.Response: ...

    # -- JSON helpers ---------------------------------------------------------------------------------
    @staticmethod
    def decode(response: httpx.Response) -> Any:
        """Parsed JSON of a response, `None` for an empty body; `MalformedResponse` for bad JSON (or JSON
        nested too deeply: never a `RecursionError`)."""
        try:
            return body.decode_json(response.content, what_of(response))
        except MalformedResponse as exc:
            exc.method = response.request.method  # a write's unreadable answer: it may have been applied
            raise

    async def decode_async(self, response: httpx.Response) -> Any:
        """`decode`, off the event loop for a large body (`body.OFF_LOOP`)."""
        try:
            return await body.off_loop(len(response.content), body.decode_json, response.content,
                                       what_of(response))
        except MalformedResponse as exc:
            exc.method = response.request.method
            raise

    def unreadable(self, response: httpx.Response, error: LabdeckError) -> None:
        """Mark the log entry of `response` (a 2xx) as failed: its body was truncated or unreadable."""
        seq = response.extensions.get("labdeck.log_seq")
        if isinstance(seq, int):
            self.request_log.amend(seq, str(error))

    def read(self, response: httpx.Response) -> Any:
        """`decode`, and a body that cannot be read marks the request's log entry (`:log` shows it red)."""
        try:
            return self.decode(response)
        except MalformedResponse as exc:
            self.unreadable(response, exc)
            raise

    async def read_async(self, response: httpx.Response) -> Any:
        """`read`, off the event loop for a large body (`decode_async`)."""
        try:
            return await self.decode_async(response)
        except MalformedResponse as exc:
            self.unreadable(response, exc)
            raise

    async def get_json(self, path: ApiPath, params: Mapping[str, Any] | None = None) -> Any:
        return await self.read_async(await self.request("GET", path, params=params))

    async def post_json(self, path: ApiPath, json: Any = None, *, params: Mapping[str, Any] | None = None,
                        data: Mapping[str, Any] | None = None, files: Any = None) -> Any:
        return await self.read_async(await self.request("POST", path, params=params, json=json, data=data,
                                                        files=files))

    async def put_json(self, path: ApiPath, json: Any = None, *,
                       params: Mapping[str, Any] | None = None) -> Any:
        return await self.read_async(await self.request("PUT", path, params=params, json=json))

    async def delete(self, path: ApiPath, *, params: Mapping[str, Any] | None = None,
                     json: Any = None) -> Any:
        return await self.read_async(await self.request("DELETE", path, params=params, json=json))

    # -- lists ----------------------------------------------------------------------------------------
    async def get_page(self, path: ApiPath, params: Mapping[str, Any] | None = None, *,
                       decode: body.PageDecode | None = None) -> Page:
        """One page of a list endpoint (`path` may be a `Link` URL). Its items are sanitised (every string,
        keys too), once for the whole page and only when the body can hold a control character at all, so
        `pages`, `fetch_all` and `get_list` give clean items (parse them with `sanitised=True`).
        `decode`: how the body becomes the items (`body.page_decoder`: models parsed from the bytes)."""
        response = await self.request("GET", path, params=params)
        try:
            items = await body.off_loop(len(response.content), decode or body.clean_items, response.content,
                                        what_of(response))
            page = page_from_response(items, response.headers)
        except MalformedResponse as exc:
            self.unreadable(response, exc)
            raise
        page.fingerprint = page_fetch.fingerprint(response.content)
        return page

    def _decoding(self, decode: body.PageDecode | None) -> Any:
        """This client, or one whose `get_page` decodes with `decode` (for the page loops)."""
        return self if decode is None else _Decoding(self, decode)

    def pages(self, path: ApiPath, params: Mapping[str, Any] | None = None, *, per_page: int = 100,
              keyset: bool = False, decode: body.PageDecode | None = None) -> AsyncIterator[Page]:
        """Pages on demand, following `rel="next"` (keyset pagination when `keyset=True`)."""
        return page_fetch.iter_pages(self._decoding(decode), path, params, per_page=per_page, keyset=keyset)

    async def fetch_all(self, path: ApiPath, params: Mapping[str, Any] | None = None, *,
                        on_progress: Progress | None = None, per_page: int = 100,
                        mode: FetchMode = "auto", keyset: bool = False,
                        first: Page | None = None, on_items: page_fetch.OnItems | None = None,
                        decode: body.PageDecode | None = None) -> list[Any]:
        """Every item of a list: concurrent by page number when possible, else following `next`
        (`first`: page 1 when the caller already fetched it, with the same `params` and `per_page`;
        `on_items`: each page's items handed on in order as they arrive, nothing kept; `decode`: as for
        `get_page`)."""
        return await page_fetch.fetch_all(self._decoding(decode), path, params, on_progress=on_progress,
                                          per_page=per_page, mode=mode, keyset=keyset, first=first,
                                          on_items=on_items)

    # -- cached lists ---------------------------------------------------------------------------------
    def cache_key(self, path: ApiPath, params: Mapping[str, Any] | None = None) -> Any:
        return make_key(self.settings.base_url, self.identity, path, params)

    def cached_list(self, path: ApiPath,
                    params: Mapping[str, Any] | None = None) -> tuple[list[Any], bool] | None:
        """What the cache holds for a list, `(items, fresh)`, without a request (for painting at once)."""
        return self.cache.get(self.cache_key(path, params))

    async def get_list(self, path: ApiPath, params: Mapping[str, Any] | None = None, *, refresh: bool = False,
                       on_progress: Progress | None = None,
                       decode: body.PageDecode | None = None) -> list[Any]:
        """A whole list through the cache: a fresh entry costs no request; `refresh=True` always fetches
        (`decode`: as for `get_page`; the cache then holds what it gives)."""
        key = self.cache_key(path, params)
        if not refresh:
            hit = self.cache.get(key)
            if hit is not None and hit[1]:
                cached: list[Any] = hit[0]
                return cached
        items = await self.fetch_all(path, params, on_progress=on_progress, decode=decode)
        self.cache.set(key, items)
        return items


class _Decoding:
    """A client whose `get_page` decodes with a given `decode`; everything else is the client's."""

    def __init__(self, client: Reads, decode: body.PageDecode) -> None:
        self._client = client
        self._decode = decode

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    async def get_page(self, path: ApiPath, params: Mapping[str, Any] | None = None) -> Page:
        return await self._client.get_page(path, params, decode=self._decode)


def what_of(response: httpx.Response) -> str:
    """`GET /path` of the response's request, for error messages (no query: it may hold secrets)."""
    return f"{response.request.method} {response.request.url.path}"


