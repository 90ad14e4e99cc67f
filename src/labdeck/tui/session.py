"""The connection to one instance as the TUI holds it: settings, client, the signed-in user, and what the
instance can do (`capabilities`: edition and version, read once per session; `job`: the job behind a CI job
token, read from `GET /job` since a job token cannot read `GET /user`).

Switching instance builds a new `Session` (a new client); the request log is shared by every session of a
run so `:log` shows all of them.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from labdeck.api.cache import ListCache
from labdeck.api.client import ApiClient
from labdeck.api.journal import Journal
from labdeck.api.private_files import private_folder
from labdeck.api.request_log import RequestLog
from labdeck.api.settings import ConnectionSettings
from labdeck.domain.capabilities import Capabilities
from labdeck.domain.job_tokens import JobScope

if TYPE_CHECKING:
    from labdeck.api.services import Services

TransportFactory = Callable[[ConnectionSettings], httpx.AsyncBaseTransport | None]


@dataclass
class SignedInUser:
    """What the status bar needs of `GET /user` (strings already sanitised by the model layer)."""

    username: str
    name: str = ""
    is_admin: bool = False


@dataclass
class Session:
    settings: ConnectionSettings
    client: ApiClient
    user: SignedInUser | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    capabilities: Capabilities = field(default_factory=Capabilities)
    job: JobScope | None = None
    recent_projects: list[tuple[int | str, str]] = field(default_factory=list)  # (id, path), newest first
    recent_groups: list[str] = field(default_factory=list)  # groups whose deployments board was opened

    @property
    def name(self) -> str:
        return self.settings.name

    @cached_property
    def services(self) -> Services:
        """This session's services, built once (a switch of instance makes a new session)."""
        from labdeck.api.services import Services

        return Services(self.client, is_admin=lambda: None if self.user is None else self.user.is_admin,
                        capabilities=lambda: self.capabilities)

    def note_project(self, project_id: int | str, path: str) -> None:
        """Remember a project the user opened on this instance (the overview follows its deployments)."""
        self.recent_projects = [(project_id, path), *[p for p in self.recent_projects if p[1] != path][:9]]

    def note_group(self, path: str) -> None:
        """Remember a group whose deployments board the user opened (the overview follows its failures)."""
        self.recent_groups = [path, *[g for g in self.recent_groups if g != path][:9]]

    async def load_user(self) -> SignedInUser:
        """Read the persisted list cache (if any), then ask the instance who we are (`GET /user`)."""
        if self.client.cache.persist_path is not None and not self.extra.get("cache_loaded"):
            self.extra["cache_loaded"] = True
            await self.client.cache.load()
        if self.settings.auth == "job":
            from labdeck.api.instance import InstanceService

            self.job = await InstanceService(self.client).current_job()
            self.user = SignedInUser(username=self.job.username)
            return self.user
        self.user = await fetch_user(self.client)
        await self.load_capabilities()
        return self.user

    async def load_capabilities(self) -> Capabilities:
        """The edition and version (`GET /metadata`, else `GET /version`); unknown when they cannot be read
        (nothing is hidden then)."""
        from labdeck.api.errors import LabdeckError
        from labdeck.api.instance import InstanceService

        try:
            self.capabilities = await InstanceService(self.client).capabilities()
        except LabdeckError:
            self.capabilities = Capabilities()
        return self.capabilities

    async def close(self) -> None:
        await self.client.aclose()
        await self.client.cache.flush()
        self.client.cache.close()


async def fetch_user(client: ApiClient) -> SignedInUser:
    from labdeck.api.instance import InstanceService

    current = await InstanceService(client).current_user()
    return SignedInUser(username=str(getattr(current, "username", "") or "?"),
                        name=str(getattr(current, "name", "") or ""),
                        is_admin=bool(getattr(current, "is_admin", False)))


def cache_dir() -> Path:
    """The user cache folder for persisted lists: `$LABDECK_CACHE_DIR`, else XDG_CACHE_HOME/labdeck."""
    override = os.environ.get("LABDECK_CACHE_DIR")
    if override:
        return Path(override)
    from platformdirs import user_cache_path

    return user_cache_path("labdeck", appauthor=False)


def cache_file(settings: ConnectionSettings, folder: Path) -> Path:
    """One SQLite file per instance URL (entries inside are keyed by identity, never by the token)."""
    digest = hashlib.sha256(settings.base_url.encode()).hexdigest()[:16]
    return folder / f"lists-{digest}.sqlite"


def state_dir() -> Path:
    """labdeck's own state folder (the state file and the undo journals): the folder of `$LABDECK_STATE`,
    else XDG_STATE_HOME/labdeck."""
    from labdeck.config.state import state_path

    return state_path().parent


def journal_file(settings: ConnectionSettings, folder: Path) -> Path:
    """One undo journal per instance URL, named so that a person can tell which is which."""
    digest = hashlib.sha256(settings.base_url.encode()).hexdigest()[:12]
    name = "".join(c if c.isalnum() or c in "-_" else "_" for c in settings.name)[:40] or "instance"
    return folder / "journal" / f"{name}-{digest}.jsonl"


def open_session(settings: ConnectionSettings, *, request_log: RequestLog,
                 transport_factory: TransportFactory | None = None,
                 persist_dir: Path | None = None, journal_dir: Path | None = None,
                 wall: Callable[[], float] = time.time) -> Session:
    """A session with a new client; with `persist_dir`, its list cache is kept on disk between runs; with
    `journal_dir`, its changes are journalled there (else in memory only). `wall`: this machine's clock
    (the instance's time is told from it and the answers' `Date`)."""
    transport = transport_factory(settings) if transport_factory is not None else None
    cache = None
    if persist_dir is not None:
        private_folder(persist_dir, own=True)  # 0700, an older, looser folder tightened
        cache = ListCache(persist_path=cache_file(settings, persist_dir))
    client = ApiClient(settings, transport=transport, request_log=request_log, cache=cache, clock=wall)
    client.journal = Journal(journal_file(settings, journal_dir) if journal_dir is not None else None)
    return Session(settings, client)
