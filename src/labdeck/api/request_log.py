"""The request log: one entry per API request (final outcome, retries), secrets removed, for `:log`."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import json
import logging
import re
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from labdeck.domain.redaction import redact, redact_known

log = logging.getLogger(__name__)

_SECRET_KEY = re.compile(r"token|secret|password|passwd|sudo_token|access_key|api_key|signature", re.I)
REDACTED = "[redacted]"
BODY_LIMIT = 4000  # characters of a request body the log keeps
# Statuses the code sending a request expects and handles (an export's download answers 404 until it is
# ready), with why: such an answer is logged as expected, not as an error.
_expected: contextvars.ContextVar[tuple[frozenset[int], str] | None] = contextvars.ContextVar(
    "labdeck_expected_status", default=None)


@contextlib.contextmanager
def expecting(statuses: set[int] | frozenset[int], why: str) -> Iterator[None]:
    """Requests sent inside mark an answer with one of `statuses` as expected (`why`) in the log."""
    token = _expected.set((frozenset(statuses), why))
    try:
        yield
    finally:
        _expected.reset(token)


def _hide_secrets(value: Any) -> Any:
    """`value` with the values of secret-looking keys (and of `value`, a CI variable's) replaced."""
    if isinstance(value, Mapping):
        return {str(k): REDACTED if _SECRET_KEY.search(str(k)) or str(k) == "value" else _hide_secrets(v)
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_hide_secrets(item) for item in value]
    return value


def body_text(body: Any) -> str | None:
    """A request body as the log shows it: JSON, secrets removed (by key, by known value and by shape),
    cut at `BODY_LIMIT`; a file upload is named, never read."""
    if body is None:
        return None
    if isinstance(body, bytes | bytearray):
        return f"({len(body):,} bytes)"
    try:
        text = json.dumps(_hide_secrets(body), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = f"({type(body).__name__})"
    text = redact_known(redact(text))
    return text if len(text) <= BODY_LIMIT else text[:BODY_LIMIT] + "…"


def needs_redaction(url: str) -> bool:
    """True when `url` holds credentials: `user:password@` or a token-like query parameter."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        return True
    return any(_SECRET_KEY.search(key) for key, _ in parse_qsl(parts.query, keep_blank_values=True))


def redact_url(url: str) -> str:
    """`url` with any token-like query values (`private_token`, `access_token`, `job_token`, ...) replaced."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        parts = parts._replace(netloc=parts.netloc.rpartition("@")[2])  # host[:port], whatever the port
    if not parts.query:
        return urlunsplit(parts)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    cleaned = [(k, REDACTED if _SECRET_KEY.search(k) else v) for k, v in pairs]
    return urlunsplit(parts._replace(query=urlencode(cleaned, safe="[]/:,;@")))


def _clean(text: str) -> str:
    """An error for the log (the server may echo a token): registered secrets and token shapes removed."""
    return redact(text)


@dataclass(frozen=True)
class RequestLogEntry:
    """One request as it finally went: status (None for a network failure), duration and retries."""

    at: datetime
    method: str
    path: str
    status: int | None
    duration_ms: float
    retries: int
    error: str | None = None
    seq: int = 0  # the entry's number in its log (an amended entry keeps it)
    kind: str = "request"  # or "decode": a note of tolerant reading (method READ, no status)
    body: str | None = None  # the request body, secrets removed (`body_text`)
    expected: str | None = None  # why an error status was expected (a poll's 404): not an error


Subscriber = Callable[[RequestLogEntry], None]


class RequestLog:
    """A bounded log of requests with subscribers (the TUI's log view); never holds a token."""

    def __init__(self, maxlen: int = 2000) -> None:
        self._entries: deque[RequestLogEntry] = deque(maxlen=maxlen)
        self._subscribers: list[Subscriber] = []
        self._amend_subscribers: list[Subscriber] = []
        self._seq = 0

    def record(self, method: str, url: str, status: int | None, duration_ms: float, retries: int,
               error: str | None = None, body: Any = None) -> RequestLogEntry:
        """Add an entry; the URL, the error and the body are redacted here (known secret values, token
        shapes, secret keys) so no caller can forget. Inside `expecting(...)` an expected status is marked."""
        self._seq += 1
        expected = _expected.get()
        why = expected[1] if expected is not None and status in expected[0] else None
        entry = RequestLogEntry(datetime.now(UTC), method.upper(), redact_known(redact_url(url)), status,
                                round(duration_ms, 1), retries, None if error is None else _clean(error),
                                self._seq, body=body_text(body), expected=why)
        self._entries.append(entry)
        self._notify(self._subscribers, entry)
        return entry

    def note(self, what: str, detail: str) -> RequestLogEntry:
        """A decode warning of tolerant reading (`what`: "Member #12"; `detail`: the unreadable fields
        and why): shown in `:log` among the requests, method `READ`, no status."""
        self._seq += 1
        entry = RequestLogEntry(datetime.now(UTC), "READ", redact_known(what), None, 0.0, 0,
                                _clean(detail), self._seq, kind="decode")
        self._entries.append(entry)
        self._notify(self._subscribers, entry)
        return entry

    def amend(self, seq: int, error: str) -> RequestLogEntry | None:
        """Mark entry `seq` as failed after all: a 2xx whose body was truncated or unreadable. Subscribers
        of `subscribe(..., on_amend=...)` get the new entry (same `seq`); None when it has left the log."""
        for index, entry in enumerate(self._entries):
            if entry.seq == seq:
                amended = dataclasses.replace(entry, error=_clean(error))
                self._entries[index] = amended
                self._notify(self._amend_subscribers, amended)
                return amended
        return None

    @staticmethod
    def _notify(subscribers: list[Subscriber], entry: RequestLogEntry) -> None:
        for callback in list(subscribers):
            try:
                callback(entry)
            except Exception:  # a broken subscriber must not break requests
                log.exception("request log subscriber failed")

    def subscribe(self, callback: Subscriber, *, on_amend: Subscriber | None = None) -> Callable[[], None]:
        """Call `callback` with every new entry (and `on_amend` with every amended one); returns a function
        that unsubscribes."""
        self._subscribers.append(callback)
        if on_amend is not None:
            self._amend_subscribers.append(on_amend)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)
            if on_amend is not None and on_amend in self._amend_subscribers:
                self._amend_subscribers.remove(on_amend)

        return unsubscribe

    @property
    def entries(self) -> list[RequestLogEntry]:
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()
