"""Access tokens (issue 36): the personal access tokens of the instance (administrators) or one's own, a
group's and a project's access tokens; reading them, revoking one and rotating one; and the access review's
Tokens tab over a scope.

A token's value never reaches a model, the list cache, the journal or a log. The listings hold no value
(GitLab sends none). A rotation's answer holds the new one, once: `rotate` takes it out of the answer as a
`SecretStr` before the rest is read (`AccessToken` has no such field and ignores it), registers it with the
redaction (`domain.redaction.register_secret`: from then on no text labdeck writes holds it, whatever its
shape), and returns it in `Rotated` for the one screen that shows it. The journal records the rotation
without reading its answer (`domain.change_names`: its words are the request's), the request log keeps the
request's body only (`{"expires_at": ...}`), and a write is never cached. A revoke and a rotation are
journalled with no inverse (`domain.access_tokens.TOKEN_UNDO`).

The Tokens tab: a group scope reads each group's and project's access tokens (one listing each, the
fan-out of `api/access_scope.py`); the instance reads `GET /personal_access_tokens` on demand
(`personal_window`: the first page paints at once, rows held up to the client's ceiling), whose rows are
every token GitLab lists for an administrator (group and project tokens too: their owners are bots).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from pydantic import SecretStr

from labdeck.api import bindings as b
from labdeck.api.access_scope import Item, OnRows, Place, Scope, Unreadable, fan_out, read_scope
from labdeck.api.client import ApiClient
from labdeck.api.errors import MalformedResponse
from labdeck.api.models.access import AccessToken
from labdeck.api.users import user_rows
from labdeck.api.windowed import FROM_SETTINGS, WindowedList
from labdeck.domain import catalogue as ep
from labdeck.domain.access_tokens import TokenRow, bot_kind
from labdeck.domain.features import RESOURCE_TOKEN_STATE, ROTATION_EXPIRY, TOKEN_FILTERS, Feature
from labdeck.domain.redaction import register_secret

Owner = Literal["groups", "projects"]
Listed = Literal["active", "inactive"]  # the listings' `state` filter
NAMES_ONE_BY_ONE = 40  # owners to name: past this many unknown ones, the users' listing is read instead


@dataclass(frozen=True)
class Rotated:
    """A rotation's outcome: the new token (its id, name, expiry...) and its value, shown once and kept
    nowhere else (`SecretStr`: never in a repr, a log or a traceback's locals)."""

    token: AccessToken
    secret: SecretStr


def row_of(token: AccessToken, kind: Literal["personal", "group", "project"], owner: str,
           path: str | None = None) -> TokenRow:
    return TokenRow(token.id, kind, token.name or "", owner, tuple(token.scopes or ()), token.created_at,
                    token.last_used_at, token.expires_at, bool(token.revoked), token.access_level, path,
                    token.user_id)


class AccessTokensService:
    """Reading, revoking and rotating access tokens on one instance. `supports`: the instance's answer for a
    feature (None, or why it lacks it): filters are sent only to instances that read them."""

    def __init__(self, client: ApiClient, *,
                 supports: Callable[[Feature], str | None] = lambda feature: None) -> None:
        self.client = client
        self._supports = supports
        self._names: dict[int, str] = {}

    # -- reading --------------------------------------------------------------------------------------
    def personal_window(self, *, user_id: int | None = None, state: Listed | None = None, per_page: int = 100,
                        max_rows: int | None = FROM_SETTINGS) -> WindowedList[AccessToken]:
        """`GET /personal_access_tokens` read on demand (administrators: every token; others: their own);
        `state` sent where the instance has the filters (15.5+), else the rows say it themselves."""
        params: dict[str, Any] = {"user_id": user_id}
        if state is not None and self._supports(TOKEN_FILTERS) is None:
            params["state"] = state
        return WindowedList(self.client, b.PERSONAL_ACCESS_TOKENS.path(), params,
                            b.PERSONAL_ACCESS_TOKENS.parse_clean, per_page=per_page, max_rows=max_rows)

    async def personal(self, *, user_id: int | None = None, refresh: bool = False) -> list[AccessToken]:
        """Every personal access token listed (through the list cache)."""
        return await b.PERSONAL_ACCESS_TOKENS.read(self.client, params={"user_id": user_id}, refresh=refresh)

    async def personal_token(self, token_id: int) -> AccessToken:
        return await b.PERSONAL_ACCESS_TOKEN.read(self.client, token_id)

    async def tokens(self, owner: Owner, ref: int | str, *, state: Listed | None = None,
                     refresh: bool = False) -> list[AccessToken]:
        """A group's or project's access tokens (`state` sent from 17.2: older instances ignore it)."""
        params = {"state": state} if state is not None and self._supports(RESOURCE_TOKEN_STATE) is None \
            else None
        return await b.resource_tokens(owner).listing.read(self.client, ref, params=params, refresh=refresh)

    async def token(self, owner: Owner, ref: int | str, token_id: int) -> AccessToken:
        return await b.resource_tokens(owner).one.read(self.client, ref, token_id)

    async def owner_names(self, user_ids: Iterable[int]) -> dict[int, str]:
        """Usernames of these users (kept for the session): one read each, or the users' listing when many
        are unknown; a user who cannot be read is left out."""
        wanted = list(user_ids)  # read twice: a generator would be spent by the first
        missing = sorted({i for i in wanted if i not in self._names})
        if len(missing) > NAMES_ONE_BY_ONE:
            await self.all_names()
            missing = [i for i in missing if i not in self._names]  # bots an instance leaves out of it
        if 0 < len(missing) <= NAMES_ONE_BY_ONE:
            found = await asyncio.gather(*(b.USER.read(self.client, i) for i in missing),
                                         return_exceptions=True)
            for one in found:
                if not isinstance(one, BaseException):
                    self._names[one.id] = one.username or str(one.id)
        return {i: self._names[i] for i in wanted if i in self._names}

    async def all_names(self) -> None:
        """Every user's username, from the users' listing (kept for the session)."""
        for user in await b.USERS.read(self.client, decode=user_rows()):
            self._names[user.id] = user.username or str(user.id)

    async def personal_rows(self, tokens: list[AccessToken]) -> list[TokenRow]:
        """Rows of personal tokens, owners named (`@alice`); a bot's token says its kind (`group`)."""
        await self.owner_names(t.user_id for t in tokens if t.user_id is not None)
        return self.rows_named_so_far(tokens)

    def rows_named_so_far(self, tokens: list[AccessToken]) -> list[TokenRow]:
        """Rows of personal tokens with the owners known so far named (`user 12` for the others): what
        can be shown before any owner is read."""
        rows = []
        for token in tokens:
            name = self._names.get(token.user_id or -1)
            rows.append(row_of(token, bot_kind(name) or "personal",
                               f"@{name}" if name else f"user {token.user_id}"))
        return rows

    async def personal_review(self, *, refresh: bool = False, on_rows: OnRows[TokenRow] | None = None,
                              per_page: int = 100) -> PersonalRead:
        """The instance's personal access tokens for the review, read on demand (`personal_window`): each
        page's rows handed to `on_rows` as it arrives (owners not read yet are `user 12`), at most the
        client's row ceiling held (`cut` then says so), the owners named at the end; a complete list is
        kept in the list cache, so a refresh within its TTL reads none of it again."""
        hit = None if refresh else b.PERSONAL_ACCESS_TOKENS.cached(self.client)
        if hit is not None and hit[1]:
            return PersonalRead(await self.personal_rows(hit[0]), cut=False, total=len(hit[0]))
        window = self.personal_window(per_page=per_page)
        window.readahead = self.client.settings.concurrency  # every slot busy: the pages are all wanted
        tokens: list[AccessToken] = []
        cut = False
        naming: asyncio.Future[None] | None = None
        async for page in window.iter_pages():
            tokens.extend(page)
            if naming is None and len({t.user_id for t in tokens} - set(self._names)) > NAMES_ONE_BY_ONE:
                # many owners: the users' listing is read beside the pages, not after them
                naming = asyncio.ensure_future(self.all_names())
            if on_rows is not None:
                on_rows(self.rows_named_so_far(page), len(tokens), window.total or len(tokens))
            if window.max_rows is not None and len(tokens) >= window.max_rows and not window.exhausted:
                cut = True
                break
        window.cancel()
        if naming is not None:
            await naming
        if not cut:
            window.remember()
        return PersonalRead(await self.personal_rows(tokens), cut=cut, total=window.total)

    # -- changing -------------------------------------------------------------------------------------
    async def revoke_personal(self, token_id: int) -> None:
        try:
            await self.client.delete(ep.PERSONAL_ACCESS_TOKEN_REVOKE.path(token_id))
        finally:
            self.client.cache.forget(ep.PERSONAL_ACCESS_TOKEN_REVOKE, token_id)

    async def revoke(self, owner: Owner, ref: int | str, token_id: int) -> None:
        endpoint = ep.resource_tokens(owner)["revoke"]
        try:
            await self.client.delete(endpoint.path(ref, token_id))
        finally:
            self.client.cache.forget(endpoint, ref, token_id)

    async def rotate_personal(self, token_id: int, *, expires_at: date | None = None) -> Rotated:
        """Rotate a personal token: the old one revoked, the new one's value in `Rotated.secret`, once."""
        return await self._rotate(b.PERSONAL_ACCESS_TOKEN_ROTATE, (token_id,), expires_at)

    async def rotate(self, owner: Owner, ref: int | str, token_id: int, *,
                     expires_at: date | None = None) -> Rotated:
        """Rotate a group's or project's token (as `rotate_personal`)."""
        return await self._rotate(b.resource_tokens(owner).rotate, (ref, token_id), expires_at)

    async def _rotate(self, binding: b.Write[AccessToken], values: tuple[object, ...],
                      expires_at: date | None) -> Rotated:
        """`expires_at` is sent from 16.6 (before it GitLab gives a week, and would ignore it)."""
        body = {"expires_at": expires_at.isoformat()} if expires_at is not None \
            and self._supports(ROTATION_EXPIRY) is None else None
        try:
            response = await self.client.request("POST", binding.path(*values), json=body)
        finally:
            self.client.cache.forget(binding.endpoint, *values)
        answer = self.client.read(response)
        value = answer.pop("token", None) if isinstance(answer, dict) else None
        if not isinstance(value, str) or not value:
            raise MalformedResponse("the rotation's answer holds no new token")
        register_secret(value)
        return Rotated(binding.parse(answer), SecretStr(value))


@dataclass
class PersonalRead:
    """The instance's personal tokens as the review reads them: `cut` when the client's row ceiling
    stopped the read (`total`: what the server counts, None when it does not say)."""

    rows: list[TokenRow]
    cut: bool = False
    total: int | None = None


@dataclass
class TokensRead:
    """The review of a group scope: every group's and project's token, the items that could not be read."""

    rows: list[TokenRow]
    unreadable: list[Unreadable]
    scope: Scope
    items: int = 0


class TokensReview:
    """Reads the Tokens tab of a group scope (the instance's is `AccessTokensService.personal_window`)."""

    def __init__(self, service: AccessTokensService) -> None:
        self.service = service

    def _item(self, place: Place, refresh: bool) -> Item[TokenRow]:
        owner: Owner = "groups" if place.kind == "group" else "projects"

        async def read() -> list[TokenRow]:
            found = await self.service.tokens(owner, place.path, refresh=refresh)
            return [row_of(t, place.kind, place.path, place.path) for t in found]
        return place.path, "access tokens", read

    async def review(self, root: str, *, refresh: bool = False,
                     on_rows: OnRows[TokenRow] | None = None) -> TokensRead:
        scope = await read_scope(self.service.client, root, refresh=refresh, shares=False)
        read = await fan_out(self.service.client, [self._item(p, refresh) for p in scope.places], on_rows)
        return TokensRead(read.rows, read.unreadable, scope, read.items)
