"""The typed context of the TUI: everything a screen or widget may use of the running console.

Screens never reach into the app (no attribute looked up on the app by name, no private member): they read
`context_of(self)` (a `LabdeckScreen` has it as `self.ctx`). The context holds the connected session and its
services (`ctx.services.registry`, built once per client), the policy (read-only, edition and version,
administrator, job token), the job centre, the request log, the clocks, the config and labdeck's state, the
one way to describe an error, and the shell's navigation (`ctx.shell.open_area(...)`).

Two clocks, each with one use: `clock` (monotonic seconds) measures how old loaded data is; `now()` and
`today()` are the one "now" of every date a screen shows or computes (a certificate's expiry, a member's
expiry, a user's dormancy, a tag's age, a deployment window): the instance's time as its answers tell it
(`ApiClient.server_time`), or `wall` when no instance is connected. A test moves it by moving the instance's
clock (the sandbox's), never by depending on the calendar.

A widget shown outside labdeck's app (a test app, a snapshot) gets `DETACHED`: no session, no jobs, a
monotonic clock.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, Protocol

from labdeck.api.errors import LabdeckError
from labdeck.api.request_log import RequestLog
from labdeck.domain.capabilities import Capabilities
from labdeck.domain.endpoints import Endpoint
from labdeck.domain.features import Feature
from labdeck.domain.job_tokens import JOB_TOKEN_AREAS, JOB_TOKEN_UNREACHABLE, NOT_WITH_JOB_TOKEN
from labdeck.domain.redaction import redact
from labdeck.tui.errors import describe_error

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.screen import Screen

    from labdeck.api.services import Services
    from labdeck.config.files import Config
    from labdeck.config.state import State
    from labdeck.tui.areas import Area, AreaRequest
    from labdeck.tui.jobs import Job, JobCentre
    from labdeck.tui.session import Session, SignedInUser
    from labdeck.tui.type_ahead import KeyRouter
    from labdeck.tui.widgets.status_bar import StatusInfo


class NotConnected(LabdeckError):
    """No instance is connected (the first-run screen is open, or a switch is under way)."""

    def __init__(self) -> None:
        super().__init__("no instance is connected")


class Shell(Protocol):
    """What the console's shell does for screens: navigation, the status bar, remembering state."""

    def open_area(self, name: str, request: AreaRequest | None = None) -> Awaitable[Any] | None: ...

    def area_allowed(self, area: Area) -> bool: ...

    def reach_note(self) -> str: ...

    def status_info(self, screen: Screen[Any]) -> StatusInfo: ...

    def remember(self, state: State) -> None: ...


@dataclass(frozen=True)
class Policy:
    """What may be done on the connected instance with this token."""

    read_only: bool = False
    capabilities: Capabilities = field(default_factory=Capabilities)
    is_admin: bool = False
    job_token: bool = False

    def feature_reason(self, feature: Feature) -> str | None:
        """Why `feature` cannot work here ("needs GitLab Premium", "needs GitLab 15.2", "not reachable with a
        CI job token"), or None when it can (or when the edition is not known yet: nothing is hidden)."""
        if self.job_token and feature in JOB_TOKEN_UNREACHABLE:
            return NOT_WITH_JOB_TOKEN
        return self.capabilities.supports(feature)

    def endpoint_reason(self, endpoint: Endpoint) -> str | None:
        """Why a request to `endpoint` cannot be answered with this token (a CI job token authenticates only
        where the catalogue says `job_token`; elsewhere GitLab ignores it), or None."""
        if self.job_token and not endpoint.job_token:
            return NOT_WITH_JOB_TOKEN
        return None

    def area_reason(self, area_name: str) -> str | None:
        """Why a whole area cannot work here, or None."""
        if self.job_token and area_name not in JOB_TOKEN_AREAS:
            return NOT_WITH_JOB_TOKEN
        return None


@dataclass
class Context:
    """The console's context. The app owns one and updates `session` and `read_only` when it connects."""

    jobs: JobCentre = field(default_factory=lambda: _job_centre())
    request_log: RequestLog = field(default_factory=RequestLog)
    clock: Callable[[], float] = time.monotonic
    wall: Callable[[], float] = time.time
    config: Config | None = None
    state: State | None = None
    shell: Shell | None = None
    session: Session | None = None
    read_only: bool = False
    keys: KeyRouter = field(default_factory=lambda: _key_router())

    @property
    def services(self) -> Services:
        """The connected session's services (`NotConnected` when there is none)."""
        if self.session is None:
            raise NotConnected()
        return self.session.services

    async def user(self) -> SignedInUser:
        """Who is signed in (asked of the instance once per session; `NotConnected` when none is)."""
        session = self.session
        if session is None:
            raise NotConnected()
        return session.user or await session.load_user()

    def now(self) -> datetime:
        """The one "now" of the console: the connected instance's time (its answers' `Date`), else `wall`."""
        if self.session is not None:
            return self.session.client.server_time.now()
        return datetime.fromtimestamp(self.wall(), UTC)

    def today(self) -> date:
        """The instance's date (UTC), from `now()`."""
        return self.now().date()

    @property
    def connected(self) -> bool:
        return self.session is not None

    @property
    def policy(self) -> Policy:
        session = self.session
        if session is None:  # nothing is known yet: nothing is hidden but writes in read-only mode
            return Policy(read_only=self.read_only)
        return Policy(read_only=self.read_only, capabilities=session.capabilities,
                      is_admin=bool(session.user and session.user.is_admin),
                      job_token=session.settings.auth == "job")

    @property
    def is_admin(self) -> bool:
        return self.policy.is_admin

    def secrets(self) -> list[str]:
        """The connected token, for redaction by value."""
        token = self.session.settings.token if self.session else None
        return [token.get_secret_value()] if token is not None else []

    def describe(self, error: BaseException) -> str:
        """One line for a notification, without the token (whatever its shape)."""
        return redact(describe_error(error), self.secrets())

    def start_job(self, title: str, function: Callable[[Job], Any], *, total: int | None = None) -> Job:
        return self.jobs.start(title, function, total=total)

    def open_area(self, name: str, request: AreaRequest | None = None) -> Awaitable[Any] | None:
        """Show an area (None when it cannot be shown; the shell says why)."""
        return self.shell.open_area(name, request) if self.shell is not None else None

    def area_allowed(self, area: Area) -> bool:
        """Whether the instance and the token can work in `area`."""
        return self.shell.area_allowed(area) if self.shell is not None else True

    def reach_note(self) -> str:
        """What the home says about the token's reach (empty for an ordinary token)."""
        return self.shell.reach_note() if self.shell is not None else ""

    def remember(self, state: State) -> None:
        """Keep labdeck's own state (theme, last download folder)."""
        self.state = state
        if self.shell is not None:
            self.shell.remember(state)

    @property
    def recent_projects(self) -> list[tuple[int | str, str]]:
        return list(self.session.recent_projects) if self.session is not None else []

    def note_project(self, project_id: int | str, path: str) -> None:
        """Remember a project the user opened, for this instance (the overview follows its deployments)."""
        if self.session is not None:
            self.session.note_project(project_id, path)

    @property
    def recent_groups(self) -> list[str]:
        return list(self.session.recent_groups) if self.session is not None else []

    def note_group(self, path: str) -> None:
        """Remember a group whose deployments board the user opened (the overview follows its failures)."""
        if self.session is not None:
            self.session.note_group(path)


def _key_router() -> KeyRouter:
    from labdeck.tui.type_ahead import KeyRouter

    return KeyRouter()


def _job_centre() -> JobCentre:
    from labdeck.tui.jobs import JobCentre

    return JobCentre()


DETACHED = Context()


class HasContext:
    """Base of the app that owns the context (`LabdeckApp`)."""

    context: Context


def context_of(node: DOMNode) -> Context:
    """The context of the app `node` runs in; `DETACHED` outside labdeck's app (or before it runs)."""
    try:
        app = node.app
    except Exception:  # not attached to an app yet
        return DETACHED
    return app.context if isinstance(app, HasContext) else DETACHED
