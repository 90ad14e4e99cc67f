"""Users: the short user reference, the full user record, and the current user (`GET /user`)."""

from __future__ import annotations

from datetime import date, datetime

from labdeck.api.models.base import ApiModel


class UserRef(ApiModel):
    """A user as other resources reference it (author, assignee, member)."""

    id: int
    username: str | None = None
    name: str | None = None
    state: str | None = None
    avatar_url: str | None = None
    web_url: str | None = None


class User(UserRef):
    """A user as `GET /users` and `GET /users/:id` return it (admin-only fields may be absent)."""

    locked: bool | None = None
    bot: bool | None = None
    is_admin: bool | None = None
    email: str | None = None
    public_email: str | None = None
    bio: str | None = None
    location: str | None = None
    organization: str | None = None
    job_title: str | None = None
    created_at: datetime | None = None
    last_sign_in_at: datetime | None = None
    current_sign_in_at: datetime | None = None
    confirmed_at: datetime | None = None
    last_activity_on: date | None = None
    two_factor_enabled: bool | None = None
    external: bool | None = None
    private_profile: bool | None = None
    note: str | None = None
    identities: list[dict[str, object]] | None = None


class CurrentUser(User):
    """The user the token belongs to (`GET /user`), with the fields only the owner sees."""

    can_create_group: bool | None = None
    can_create_project: bool | None = None
    projects_limit: int | None = None
    theme_id: int | None = None
    color_scheme_id: int | None = None
