"""The users service for administrators: the users listing (`GET /users`) and the moderation operations
(`POST /users/:id/<op>`, `try_moderate`: a result per user, never an exception; the job over the marked
users is `tui/bulk.start_bulk`).

Paths come from the endpoint catalogue. An operation, done or refused, invalidates the cached `/users`
lists (the catalogue's family of the operation), so the next listing shows the new states.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from labdeck.api import bindings as b
from labdeck.api import body
from labdeck.api.client import ApiClient
from labdeck.api.errors import LabdeckError, MalformedResponse, failure_text
from labdeck.api.models.fast_lists import fast_decoder
from labdeck.api.models.moderation import ModeratedUser, ModerationResult
from labdeck.api.windowed import FROM_SETTINGS, WindowedList
from labdeck.domain import catalogue as ep
from labdeck.domain.moderation import Operation

USERS_PATH: Final = ep.USERS.path()


def _message(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    if body is True:
        return "done"
    if body is False:
        return "nothing to change"
    return "done" if body is None else str(body)


def user_rows() -> body.PageDecode | None:
    """How a listing page becomes users: parsed from the bytes, or decoded for `parse_many`."""
    fast = fast_decoder(b.USERS.model)
    return None if fast is None else body.page_decoder(fast.decode)


class UsersService:
    """Users listing and moderation on one instance."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    # -- listing --------------------------------------------------------------------------------------
    @staticmethod
    def list_params(*, search: str | None = None, active: bool | None = None, blocked: bool | None = None,
                    exclude_internal: bool | None = None, order_by: str = "id",
                    sort: str = "asc") -> dict[str, Any]:
        """The query of `GET /users` for these filters (`None` filters are left out)."""
        params: dict[str, Any] = {"order_by": order_by, "sort": sort}
        if search:
            params["search"] = search
        for name, value in (("active", active), ("blocked", blocked), ("exclude_internal", exclude_internal)):
            if value is not None:
                params[name] = "true" if value else "false"
        return params

    async def list_users(self, *, search: str | None = None, active: bool | None = None,
                         blocked: bool | None = None, exclude_internal: bool | None = None,
                         refresh: bool = False,
                         on_progress: Callable[[int, int | None], None] | None = None) -> list[ModeratedUser]:
        """Every user matching the filters (through the list cache; `refresh=True` always fetches)."""
        params = self.list_params(search=search, active=active, blocked=blocked,
                                  exclude_internal=exclude_internal)
        return await b.USERS.read(self.client, params=params, refresh=refresh, on_progress=on_progress,
                                  decode=user_rows())

    def window(self, *, search: str | None = None, keyset: bool = False, order_by: str = "id",
               sort: str = "asc", max_rows: int | None = FROM_SETTINGS) -> WindowedList[ModeratedUser]:
        """The listing read on demand (`api/windowed.py`); `keyset`: GitLab 16.5+ pages users by keyset
        (`order_by` id, name or username), so deep pages cost the server as little as the first."""
        params = self.list_params(search=search, order_by=order_by, sort=sort)
        if keyset and order_by in ("id", "name", "username"):
            params["pagination"] = "keyset"
        return WindowedList(self.client, USERS_PATH, params,
                            b.USERS.parse_clean,
                            decode=user_rows(), max_rows=max_rows)

    def remember(self, window: WindowedList[ModeratedUser], *, search: str | None = None) -> bool:
        """A complete window into the list cache, where `list_users`/`cached_users` find it."""
        return window.remember(self.list_params(search=search))

    def cached_users(self, *, search: str | None = None) -> tuple[list[ModeratedUser], bool] | None:
        """What the cache holds for the unfiltered listing (with `search`), `(users, fresh)`, or None."""
        return b.USERS.cached(self.client, params=self.list_params(search=search))

    # -- moderation -----------------------------------------------------------------------------------
    async def _post(self, user_id: int, operation: Operation) -> tuple[int, Any]:
        endpoint = ep.USER_MODERATION[operation.value]
        try:
            response = await self.client.request("POST", endpoint.path(user_id))
        finally:
            # Even a refusal may mean our cached state was stale: drop it either way.
            self.client.cache.forget(endpoint, user_id)
        try:
            body = self.client.decode(response)
        except MalformedResponse:  # the status already says it was done; the body is only a courtesy
            body = None
        return response.status_code, body

    async def try_moderate(self, user_id: int, op: Operation | str,
                           username: str | None = None) -> ModerationResult:
        """`POST /users/:id/<op>`: the result says what the server answered (done, or refused with its status
        and message; a network failure too), never an exception."""
        operation = Operation(op)
        try:
            status, body = await self._post(user_id, operation)
        except LabdeckError as exc:  # a lost answer says "the server may have applied this"
            return ModerationResult(operation.label, user_id, username, False, getattr(exc, "status", None),
                                    failure_text(exc), False)
        return ModerationResult(operation.label, user_id, username, True, status, _message(body),
                                changed=body is not False)
