"""Connection settings of one instance, as the client needs them (built from the config or environment)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from pydantic import SecretStr

AuthKind = Literal["private", "oauth", "job"]


@dataclass(frozen=True)
class Timeouts:
    """Seconds: connect, read and pool per attempt, and an overall deadline per request (retries included)."""

    connect: float = 5.0
    read: float = 30.0
    pool: float = 10.0
    deadline: float = 120.0


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds of automatic retries (idempotent requests only)."""

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_total: float = 60.0


@dataclass(frozen=True)
class ConnectionSettings:
    """Everything the client needs to talk to one instance. The token never leaves the auth headers."""

    url: str
    token: SecretStr | None = None
    auth: AuthKind = "private"
    sudo: str | None = None
    verify_tls: bool = True
    ca_file: str | None = None
    timeouts: Timeouts = field(default_factory=Timeouts)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    concurrency: int = 8
    name: str = "default"
    read_only: bool = False
    max_body: int = 64 * 1024 * 1024  # bytes of one response body, after decompression (`api.body`)
    # The most pages one list walk (`fetch_all`, `pages`, `labdeck api --paginate`) follows.
    max_pages: int = 10_000
    # The most rows a list read on demand holds (`api/windowed.py`): far pages are dropped past it.
    max_list_rows: int = 10_000

    @property
    def base_url(self) -> str:
        """The instance URL without a trailing slash (no `/api/v4`)."""
        return self.url.rstrip("/")

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/v4"

    @property
    def origin(self) -> tuple[str, str]:
        """(scheme, host[:port]) that auth headers may be sent to."""
        parts = urlsplit(self.base_url)
        return parts.scheme.lower(), parts.netloc.lower()

    def __repr__(self) -> str:  # never show the token, even masked, in reprs that reach crash screens
        parts = urlsplit(self.url)
        url = self.url
        if parts.username or parts.password:  # a password in the URL is a secret too
            host = parts.hostname or ""
            url = parts._replace(netloc=host if parts.port is None else f"{host}:{parts.port}").geturl()
        return f"ConnectionSettings(name={self.name!r}, url={url!r}, auth={self.auth!r})"
