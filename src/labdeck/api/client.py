"""`ApiClient`, the async HTTP client of one instance: it sends requests (timeouts and the overall deadline,
retries, rate-limit pacing, redirects kept on the instance, a concurrency limit, cancellation safety, typed
errors, the request log) and reads their answers (JSON bodies, off the event loop when large; pages; whole
lists through the list cache).

It touches the network (through httpx), the request log, the list cache and the undo journal it is given;
never the TUI. The parts it stands on (the instance's addressing, the read-only guard, the page walks,
bodies, backoff, redirects, rate limits, the instance's clock) never name it."""

from __future__ import annotations

import asyncio
import importlib.util
import random
import ssl
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Self

import httpx

from labdeck.api import backoff, body, page_fetch
from labdeck.api.addressing import Addressing
from labdeck.api.cache import ListCache, identity_of, make_key
from labdeck.api.errors import (
    AnswerLost,
    ApiError,
    DeadlineExceeded,
    LabdeckError,
    MalformedResponse,
    NetworkError,
    UnreadableIdentity,
    error_for,
)
from labdeck.api.models import tolerant as decode_warnings
from labdeck.api.pagination import Page, page_from_response
from labdeck.api.rate_limit import RateLimitState
from labdeck.api.read_only_guard import ReadOnlyGuard, body_beside_json
from labdeck.api.redirects import (
    MAX_REDIRECTS,
    REDIRECT_STATUSES,
    SENSITIVE_HEADERS,
    method_after,
    redirect_target,
)
from labdeck.api.request_log import RequestLog, redact_url
from labdeck.api.server_time import ServerTime
from labdeck.api.settings import ConnectionSettings
from labdeck.domain.endpoints import ApiPath, EndpointPath
from labdeck.domain.redaction import register_secret

if TYPE_CHECKING:
    from labdeck.api.journal import Journal


def _remember_missing(name: str) -> None:
    """Record an optional module that is not installed as absent (`sys.modules[name] = None`), so that a
    library's `try: import name` inside the request path (httpcore imports `sniffio` in every lock it
    sets up: four times per request) fails at once instead of searching every `sys.path` entry again."""
    if name not in sys.modules and importlib.util.find_spec(name) is None:
        sys.modules[name] = None  # type: ignore[assignment]


_remember_missing("sniffio")

Sleep = Callable[[float], Awaitable[None]]
Progress = page_fetch.Progress
FetchMode = page_fetch.FetchMode

# Transport failures worth another try for an idempotent request.
RETRYABLE_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.ReadError, httpx.ReadTimeout,
                    httpx.WriteError, httpx.PoolTimeout, httpx.RemoteProtocolError)

# Failures before any byte of the request left: the server cannot have applied it.
NOT_SENT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
# Answers after which a write may still have been applied (the proxy lost the backend's answer).
MAYBE_APPLIED_STATUSES = frozenset({502, 504})


def _network_error(exc: httpx.HTTPError, method: str, url: httpx.URL) -> NetworkError:
    """The failure, naming the request (`GET https://host/api/v4/projects: ConnectError: ...`); the URL
    as the request log shows it (no credentials: tokens travel in headers, and `redact_url` drops any)."""
    error = NetworkError(f"{method} {redact_url(str(url))}: {_describe(exc)}")
    error.may_have_sent = not isinstance(exc, NOT_SENT_ERRORS)
    return error


class _Retry(Exception):
    """Internal: an attempt failed in a way that may be retried."""

    def __init__(self, status: int | None, headers: Mapping[str, str], final: Exception) -> None:
        self.status = status
        self.headers = headers
        self.final = final


class _Slot:
    """One concurrency slot, released exactly once (early by an abandoning caller, or by the exchange)."""

    __slots__ = ("_released", "_semaphore")

    def __init__(self, semaphore: asyncio.Semaphore) -> None:
        self._semaphore = semaphore
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._semaphore.release()


def _describe(exc: BaseException) -> str:
    """A short, token-free description of a transport failure. A local protocol error describes our own
    request (it can quote a header value, that is, the token), so only its kind is kept."""
    if isinstance(exc, httpx.LocalProtocolError):
        return f"{type(exc).__name__}: the request could not be sent"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ApiClient:
    """Talks to one instance's REST API v4. Use as `async with ApiClient(settings) as client:`."""

    def __init__(self, settings: ConnectionSettings, *, transport: httpx.AsyncBaseTransport | None = None,
                 request_log: RequestLog | None = None, cache: ListCache | None = None,
                 sleep: Sleep | None = None, clock: Callable[[], float] = time.time,
                 rng: Callable[[], float] = random.random) -> None:
        self.settings = settings
        self.request_log = request_log if request_log is not None else RequestLog()
        self.cache = cache if cache is not None else ListCache()
        self.rate_limit = RateLimitState()
        self.server_time = ServerTime(wall=clock)  # the instance's clock, from its answers' `Date`
        self.journal: Journal | None = None  # the undo journal; the TUI sets one per instance
        self._sleep: Sleep = sleep or asyncio.sleep
        self._clock = clock
        self._rng = rng
        self._semaphore = asyncio.Semaphore(max(1, settings.concurrency))
        self._inflight: set[asyncio.Task[httpx.Response]] = set()
        self._abandoned: set[asyncio.Task[httpx.Response]] = set()
        t = settings.timeouts
        verify: bool | ssl.SSLContext = settings.verify_tls
        if settings.verify_tls and settings.ca_file:
            try:
                verify = ssl.create_default_context(cafile=settings.ca_file)
            except (OSError, ssl.SSLError, ValueError) as exc:  # checked with the config; gone since?
                raise LabdeckError(f"instance {settings.name}: ca_file {settings.ca_file} cannot be loaded "
                                   f"({type(exc).__name__})") from None
        limits = httpx.Limits(max_connections=max(settings.concurrency, 1) * 2,
                              max_keepalive_connections=max(settings.concurrency, 1) * 2)
        self._http = httpx.AsyncClient(
            transport=transport, verify=verify, follow_redirects=False, limits=limits,
            timeout=httpx.Timeout(connect=t.connect, read=t.read, write=t.read, pool=t.pool),
            headers={"User-Agent": "labdeck", "Accept": "application/json"},
        )
        self.address = Addressing(settings)  # URLs, auth headers, the names logs and errors show
        self.guard = ReadOnlyGuard(settings, self.address)
        token = settings.token.get_secret_value() if settings.token is not None else None
        register_secret(token)  # from now on every redaction removes it, whatever its shape
        self.identity = identity_of(token, settings.sudo, settings.auth)
        del token
        decode_warnings.set_default_sink(self.request_log.note)  # tolerant reading reports to `:log`

    # -- lifecycle ------------------------------------------------------------------------------------
    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Cancel what is still in flight and close the connection pool."""
        for task in list(self._inflight):
            task.cancel()
        if self._inflight:
            await asyncio.gather(*self._inflight, return_exceptions=True)
        await self._http.aclose()

    def __repr__(self) -> str:
        return f"ApiClient({self.settings!r})"

    # -- requests -------------------------------------------------------------------------------------
    async def request(self, method: str, path: ApiPath, **kwargs: Any) -> httpx.Response:
        """Send a request with retries, pacing and the overall deadline; raise typed errors for >= 400.
        Keywords: `params`, `json`, `data`, `files`, `headers`, `allow_304`. A change goes through the undo
        journal when the client has one (`labdeck.api.journal`). A path naming a placeholder of an item whose
        id could not be read is refused before anything is sent (`UnreadableIdentity`). A path built by the
        catalogue (`EndpointPath`) is held to what its endpoint declares, its method and its query parameters
        (`UndeclaredRequest`, a programming error, before anything is sent); any other path (a `Link` URL,
        `labdeck api`'s, the journal's) is sent as it is."""
        if isinstance(path, EndpointPath):
            path.endpoint.refuse_undeclared(method, kwargs.get("params") or ())
        if path.placeholder if isinstance(path, EndpointPath) else decode_warnings.placeholder_in_path(path):
            raise UnreadableIdentity(decode_warnings.IDENTITY_UNREADABLE)
        self.guard.check_request(method, path, kwargs)
        if self.journal is None or not self.guard.changes(method, path, kwargs):
            return await self._request(method, path, **kwargs)
        return await self.journal.around(self, method, path, kwargs, self._request)

    async def _request(self, method: str, path: str, *, params: Mapping[str, Any] | None = None,
                       json: Any = None, data: Mapping[str, Any] | None = None, files: Any = None,
                       headers: Mapping[str, str] | None = None, allow_304: bool = False) -> httpx.Response:
        method = method.upper()
        decode_warnings.use_sink(self.request_log.note)
        try:
            url = self.address.target(path, params)
        except httpx.InvalidURL as exc:  # typically a `Link` the server sent
            raise MalformedResponse(f"invalid URL: {exc}") from None
        started = time.monotonic()
        # The overall deadline bounds the whole request (retries, headers and body) and every exchange it
        # starts, even one its caller abandoned (`_exchange`): a server dripping a byte at a time holds a
        # connection and a slot until the deadline, never longer.
        deadline_at = asyncio.get_running_loop().time() + self.settings.timeouts.deadline
        endpoint = path.endpoint if isinstance(path, EndpointPath) else None
        state: dict[str, Any] = {"retries": 0, "status": None, "url": url, "deadline_at": deadline_at,
                                 "retry_safe": endpoint is None or endpoint.retry_safe}
        error_text: str | None = None
        try:
            async with asyncio.timeout_at(deadline_at):
                response = await self._with_retries(method, url, json, data, files, headers, state)
        except TimeoutError:
            error_text = f"deadline of {self.settings.timeouts.deadline:g}s exceeded"
            deadline = DeadlineExceeded(f"{method} {self.address.log_path(url)}: {error_text}")
            deadline.method = method
            raise deadline from None
        except ApiError as exc:
            error_text = exc.message
            raise
        except LabdeckError as exc:
            error_text = str(exc)
            exc.method = exc.method or method  # so a lost write's answer can be told from a lost read's
            raise
        except asyncio.CancelledError:
            error_text = "cancelled"
            raise
        finally:
            if error_text is not None:
                self.request_log.record(method, self.address.log_path(state["url"]), state["status"],
                                        (time.monotonic() - started) * 1000, state["retries"], error_text,
                                        body=json if json is not None else data)
        status = response.status_code
        error = None
        if status >= 400 or (status == 304 and not allow_304):
            error = error_for(status, response.content, method, self.address.log_path(url),
                              dict(response.headers))
        entry = self.request_log.record(method, self.address.log_path(state["url"]), status,
                                        (time.monotonic() - started) * 1000, state["retries"],
                                        error.message if error else None,
                                        body=json if json is not None else data)
        response.extensions["labdeck.log_seq"] = entry.seq  # so an unreadable body can amend the entry
        if error is not None:
            raise error
        if method not in ("GET", "HEAD", "OPTIONS") and status < 300:
            self.cache.changed(method, self.address.api_path(url), self.settings.base_url)
        return response

    async def _with_retries(self, method: str, url: httpx.URL, json: Any, data: Any, files: Any,
                            headers: Mapping[str, str] | None, state: dict[str, Any]) -> httpx.Response:
        policy = self.settings.retry
        may_retry = backoff.is_idempotent(method) and files is None and state["retry_safe"]
        waited = 0.0
        attempt = 0
        maybe_applied = False  # an earlier attempt may have reached the server and done the work
        while True:
            attempt += 1
            pace = self.rate_limit.pace_delay(self._clock(), policy.max_delay)
            if pace > 0:
                await self._sleep(pace)
            try:
                response = await self._follow_redirects(method, url, json, data, files, headers, state)
                if maybe_applied and response.status_code == 404 and method in ("DELETE", "PUT", "PATCH"):
                    if method == "DELETE":  # the first attempt deleted it and its answer was lost
                        state["status"] = 204
                        return httpx.Response(204, request=response.request)
                    # the first attempt may have renamed what the path names (GitLab's `PUT .../labels/:name`
                    # by name, a variable's scope, a path): the 404 says nothing about the first attempt
                    raise AnswerLost(f"{method} {self.address.log_path(url)}: the answer was lost, and the "
                                     "retry answered 404 Not Found; the server may have applied this (a "
                                     "rename moves what the path names)")
                return response
            except _Retry as retry:
                final = retry.final
                maybe_applied = maybe_applied or retry.status in MAYBE_APPLIED_STATUSES or (
                    isinstance(final, NetworkError) and final.may_have_sent)
                if not may_retry or attempt >= policy.max_attempts:
                    raise retry.final from None
                delay = backoff.retry_delay(retry.status, retry.headers, attempt, policy,
                                            self._clock(), self._rng)
                if waited + delay > policy.max_total:
                    raise retry.final from None
                waited += delay
                state["retries"] += 1
                await self._sleep(delay)

    async def _follow_redirects(self, method: str, url: httpx.URL, json: Any, data: Any, files: Any,
                                headers: Mapping[str, str] | None, state: dict[str, Any]) -> httpx.Response:
        for _hop in range(MAX_REDIRECTS + 1):
            state["url"] = url
            beside = body_beside_json({"data": data, "files": files, "headers": headers})
            self.guard.check_hop(method, url, json, beside=beside)  # a redirect cannot make a change
            response = await self._attempt(method, url, json, data, files, headers, state)
            if response.status_code not in REDIRECT_STATUSES or "location" not in response.headers:
                return response
            url = redirect_target(method, url, response, self.address.origin, self.address.log_path)
            if method_after(response.status_code, method) != method:
                method, json, data, files = "GET", None, None, None
        raise NetworkError(f"too many redirects ({self.address.log_path(url)})")

    async def _attempt(self, method: str, url: httpx.URL, json: Any, data: Any, files: Any,
                       headers: Mapping[str, str] | None, state: dict[str, Any]) -> httpx.Response:
        """One attempt. The exchange runs in its own task, shielded from the caller's cancellation, so a
        cancelled caller never interrupts httpcore half-way (httpcore issue 1093): an abandoned exchange
        finishes, or ends at the request's overall deadline (`_exchange`). Its concurrency slot is handed
        back at once while fewer than `concurrency` exchanges are abandoned (the pool has room for twice
        that), else when it ends: at the deadline at the latest."""
        extra = dict(headers or {})
        if extra and not self.address.same_origin(url):  # a caller's own credentials stay on the instance too
            extra = {k: v for k, v in extra.items() if k.lower() not in SENSITIVE_HEADERS}
        request = self._http.build_request(method, url, json=json, data=data, files=files,
                                           headers={**extra, **self.address.auth_headers(url)})
        await self._semaphore.acquire()  # cancellation while waiting here is harmless
        slot = _Slot(self._semaphore)
        task = asyncio.get_running_loop().create_task(self._exchange(request, slot, state.get("deadline_at")))
        del request  # holds the auth headers; keep it out of this frame's locals
        self._inflight.add(task)
        task.add_done_callback(self._inflight.discard)
        try:
            response = await asyncio.shield(task)
        except body.BodyTooLarge as exc:
            state["status"] = None
            too_large = body.too_large_message(exc.cap)
            raise MalformedResponse(f"{method} {self.address.log_path(url)}: {too_large}") from None
        except RETRYABLE_ERRORS as exc:
            state["status"] = None  # no answer this time (not the status of an earlier attempt)
            raise _Retry(None, {}, _network_error(exc, method, url)) from None
        except httpx.HTTPError as exc:
            state["status"] = None
            raise _network_error(exc, method, url) from None
        except asyncio.CancelledError:
            if not task.done():
                task.add_done_callback(_swallow)
                if len(self._abandoned) < max(1, self.settings.concurrency):
                    self._abandoned.add(task)
                    task.add_done_callback(self._abandoned.discard)
                    slot.release()
            raise
        state["status"] = response.status_code
        self.rate_limit.update(response.headers)
        self.server_time.update(response.headers)
        if response.status_code in backoff.RETRY_STATUSES:
            final = error_for(response.status_code, response.content, method, self.address.log_path(url),
                              dict(response.headers))
            raise _Retry(response.status_code, response.headers, final)
        return response

    async def _exchange(self, request: httpx.Request, slot: _Slot,
                        deadline_at: float | None) -> httpx.Response:
        """Send `request` and read its body, both within the overall deadline (`deadline_at`, loop time):
        httpx's read timeout is per read, so a server dripping a byte at a time would otherwise keep the
        exchange, its connection and its slot alive for as long as it drips. At the deadline the exchange
        is cancelled (httpcore closes the connection it was reading) and the slot is given back."""
        try:
            async with asyncio.timeout_at(deadline_at):
                self.rate_limit.consume()
                response = await self._http.send(request, stream=True)
                await body.read_capped(response, self.settings.max_body)  # decompressed bytes, counted
                return response
        finally:
            slot.release()

    # -- answers --------------------------------------------------------------------------------------
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

    def _pages_through(self, decode: body.PageDecode | None) -> page_fetch.PageSource:
        """This client, or one whose `get_page` decodes with `decode` (for the page walks)."""
        return self if decode is None else _Decoding(self, decode)

    def pages(self, path: ApiPath, params: Mapping[str, Any] | None = None, *, per_page: int = 100,
              keyset: bool = False, decode: body.PageDecode | None = None) -> AsyncIterator[Page]:
        """Pages on demand, following `rel="next"` (keyset pagination when `keyset=True`)."""
        return page_fetch.iter_pages(self._pages_through(decode), path, params, per_page=per_page,
                                     keyset=keyset)

    async def fetch_all(self, path: ApiPath, params: Mapping[str, Any] | None = None, *,
                        on_progress: Progress | None = None, per_page: int = 100,
                        mode: FetchMode = "auto", keyset: bool = False,
                        first: Page | None = None, on_items: page_fetch.OnItems | None = None,
                        decode: body.PageDecode | None = None) -> list[Any]:
        """Every item of a list: concurrent by page number when possible, else following `next`
        (`first`: page 1 when the caller already fetched it, with the same `params` and `per_page`;
        `on_items`: each page's items handed on in order as they arrive, nothing kept; `decode`: as for
        `get_page`)."""
        return await page_fetch.fetch_all(self._pages_through(decode), path, params, on_progress=on_progress,
                                          per_page=per_page, mode=mode, keyset=keyset, first=first,
                                          on_items=on_items)

    # -- cached lists ---------------------------------------------------------------------------------
    def cache_key(self, path: ApiPath, params: Mapping[str, Any] | None = None, *,
                  view: str | None = None) -> Any:
        return make_key(self.settings.base_url, self.identity, path, params, view=view)

    def cached_list(self, path: ApiPath, params: Mapping[str, Any] | None = None, *,
                    view: str | None = None) -> tuple[list[Any], bool] | None:
        """What the cache holds for a list, `(items, fresh)`, without a request (for painting at once)."""
        return self.cache.get(self.cache_key(path, params, view=view))

    async def get_list(self, path: ApiPath, params: Mapping[str, Any] | None = None, *, refresh: bool = False,
                       on_progress: Progress | None = None,
                       decode: body.PageDecode | None = None, view: str | None = None) -> list[Any]:
        """A whole list through the cache: a fresh entry costs no request; `refresh=True` always fetches
        (`decode`: as for `get_page`; the cache then holds what it gives; `view`: the list as a narrower
        model, cached under a key of its own, `cache.make_key`)."""
        key = self.cache_key(path, params, view=view)
        if not refresh:
            hit = self.cache.get(key)
            if hit is not None and hit[1]:
                cached: list[Any] = hit[0]
                return cached
        items = await self.fetch_all(path, params, on_progress=on_progress, decode=decode)
        self.cache.set(key, items)
        return items


class _Decoding:
    """The client whose `get_page` decodes with a given `decode` (a `PageSource` for the page walks)."""

    def __init__(self, client: ApiClient, decode: body.PageDecode) -> None:
        self._client = client
        self._decode = decode
        self.settings = client.settings
        self.address = client.address
        self.request_log = client.request_log

    async def get_page(self, path: ApiPath, params: Mapping[str, Any] | None = None) -> Page:
        return await self._client.get_page(path, params, decode=self._decode)


def what_of(response: httpx.Response) -> str:
    """`GET /path` of the response's request, for error messages (no query: it may hold secrets)."""
    return f"{response.request.method} {response.request.url.path}"



def _swallow(task: asyncio.Task[Any]) -> None:
    """Retrieve the outcome of an abandoned exchange so asyncio does not log it."""
    if not task.cancelled():
        task.exception()
