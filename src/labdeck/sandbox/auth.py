"""Who is calling: token lookup for every auth method of GitLab's API docs, and sudo.

Private and OAuth tokens are accepted as `PRIVATE-TOKEN`, `Authorization: Bearer`, `private_token` or
`access_token`; job tokens only as `JOB-TOKEN` or `job_token`, and only on the routes `job_tokens.py` lists
(elsewhere GitLab ignores them: the request is anonymous). A token that is sent but unknown is a 401, even
on endpoints that serve public data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from labdeck.domain.digits import parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.params import Params
from labdeck.sandbox.store import Store, Token, User

_BEARER = re.compile(r"^\s*bearer\s+(\S+)\s*$", re.IGNORECASE)
# Users in these states cannot use the API with their tokens.
_LOCKED_OUT = {"blocked", "ldap_blocked", "banned", "blocked_pending_approval", "deactivated"}


@dataclass(frozen=True)
class Identity:
    """The caller: `user` acts (after sudo), `token_user` owns the token; both None when anonymous."""

    user: User | None
    token: Token | None = None
    token_user: User | None = None

    @property
    def is_admin(self) -> bool:
        return self.user is not None and self.user.is_admin

    def __repr__(self) -> str:  # never show the token value
        who = self.user.username if self.user else "anonymous"
        return f"Identity(user={who!r})"


def _presented(headers: dict[str, str], params: Params) -> tuple[str, str] | None:
    """The token sent with the request and how: ("private" | "job", value)."""
    if headers.get("private-token"):
        return "private", headers["private-token"]
    match = _BEARER.match(headers.get("authorization", ""))
    if match:
        return "private", match.group(1)
    if headers.get("job-token"):
        return "job", headers["job-token"]
    for name, kind in (("private_token", "private"), ("access_token", "private"), ("job_token", "job")):
        value = params.str(name)
        if value:
            return kind, value
    return None


def find_user(store: Store, identifier: str) -> User | None:
    """A user by id (all digits) or by username, case-insensitive, as GitLab's `find_user`."""
    identifier = identifier.strip()
    number = parse_digits(identifier)
    if number is not None:
        return store.users.get(number)
    return store.user_by_username(identifier)


def caller_outside_body(store: Store, headers: dict[str, str], query: Params, *,
                        job_token_allowed: bool = True) -> Identity | None:
    """The caller named by a credential in the headers or the query string, checked (the 401/403 GitLab
    gives raised) before the body is read; None when no credential is there (it may be in the body)."""
    if _presented(headers, query) is None:
        return None
    return identify(store, headers, query, job_token_allowed=job_token_allowed)


def identify(store: Store, headers: dict[str, str], params: Params, *,
             job_token_allowed: bool = True) -> Identity:
    """Resolve the caller, applying sudo; raise the 401/403/404 responses GitLab gives. Where the route does
    not take job tokens (`job_token_allowed=False`), a job token is not looked at: the caller is anonymous."""
    presented = _presented(headers, params)
    if presented is not None and presented[0] == "job" and not job_token_allowed:
        presented = None
    token: Token | None = None
    user: User | None = None
    if presented is not None:
        how, value = presented
        token = store.tokens.get(value)
        if token is None or (token.kind == "job") != (how == "job"):
            raise SandboxError.unauthorized()
        user = store.users.get(token.user_id)
        if user is None or user.state in _LOCKED_OUT:
            raise SandboxError.unauthorized()
    sudo = params.str("sudo") or headers.get("sudo")
    if not sudo:
        return Identity(user, token, user)
    if user is None or token is None:
        raise SandboxError.unauthorized()
    if not user.is_admin:
        raise SandboxError.forbidden("Must be admin to use sudo")
    if token.kind == "job":
        raise SandboxError.forbidden(
            "Must be authenticated using an OAuth or Personal Access Token to use sudo")
    if "sudo" not in token.scopes:
        raise SandboxError(403, {
            "error": "insufficient_scope",
            "error_description": "The request requires higher privileges than provided by the access token.",
            "scope": "sudo",
        })
    target = find_user(store, sudo)
    if target is None:
        raise SandboxError.not_found(f"User with ID or username '{sudo}'")
    return Identity(target, token, user)
