"""Members of groups and projects, billable members and their memberships (GitLab's API docs)."""

from __future__ import annotations

from datetime import date, datetime

from labdeck.api.models.base import ApiModel, LenientDate
from labdeck.api.models.users import UserRef
from labdeck.domain.access_levels import AccessLevel


def level_label(level: int | None) -> str:
    """The display name of an access level (`Developer`), or the number when it is not a known level."""
    if level is None:
        return ""
    try:
        return AccessLevel(level).label
    except ValueError:
        return str(level)


class SamlIdentity(ApiModel):
    extern_uid: str | None = None
    provider: str | None = None
    saml_provider_id: int | None = None


class Member(UserRef):
    """A direct or inherited member of a group or project: the user and its access."""

    access_level: int | None = None
    expires_at: LenientDate | None = None
    created_at: datetime | None = None
    email: str | None = None
    group_saml_identity: SamlIdentity | None = None
    override: bool | None = None

    @property
    def level_label(self) -> str:
        return level_label(self.access_level)


class BillableMember(UserRef):
    """A user a group is billed for, with where the membership comes from."""

    email: str | None = None
    last_activity_on: date | None = None
    membership_type: str | None = None
    removable: bool | None = None


class MembershipLevel(ApiModel):
    string_value: str | None = None
    integer_value: int | None = None


class Membership(ApiModel):
    id: int
    source_id: int | None = None
    source_full_name: str | None = None
    source_members_url: str | None = None
    created_at: datetime | None = None
    expires_at: LenientDate | None = None
    access_level: MembershipLevel | None = None
