"""The connection to one instance as the TUI holds it: settings, client, the signed-in user.

Switching instance builds a new `Session` (a new client); the request log is shared by every session of a
run so `:log` shows all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from labdeck.api.client import ApiClient
from labdeck.api.request_log import RequestLog
from labdeck.api.settings import ConnectionSettings

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

    @property
    def name(self) -> str:
        return self.settings.name

    async def load_user(self) -> SignedInUser:
        """Ask the instance who we are (`GET /user` through the instance service)."""
        self.user = await fetch_user(self.client)
        return self.user

    async def close(self) -> None:
        await self.client.aclose()


async def fetch_user(client: ApiClient) -> SignedInUser:
    from labdeck.api.instance import InstanceService

    current = await InstanceService(client).current_user()
    return SignedInUser(username=str(getattr(current, "username", "") or "?"),
                        name=str(getattr(current, "name", "") or ""),
                        is_admin=bool(getattr(current, "is_admin", False)))


def open_session(settings: ConnectionSettings, *, request_log: RequestLog,
                 transport_factory: TransportFactory | None = None) -> Session:
    transport = transport_factory(settings) if transport_factory is not None else None
    return Session(settings, ApiClient(settings, transport=transport, request_log=request_log))
