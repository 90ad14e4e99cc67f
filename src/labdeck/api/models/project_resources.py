"""Models of the per-project resources of GitLab's API docs: wiki pages and attachment results,
repository tags (with their commit and release) and branches, Pages domains (with their certificate and its
expiry), and error tracking settings."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from labdeck.api.models.base import ApiModel

WIKI_FORMATS = ("markdown", "rdoc", "asciidoc", "org")
NEAR_EXPIRY = timedelta(days=30)
_NOT_AFTER = re.compile(r"Not After\s*:\s*([A-Z][a-z]{2})\s+([0-9]{1,2})\s+([0-9]{2}:[0-9]{2}:[0-9]{2})"
                        r"\s+([0-9]{4})\s+GMT")


class WikiPage(ApiModel):
    slug: str
    title: str = ""
    format: str = "markdown"
    content: str | None = None  # only with `with_content` in listings
    encoding: str | None = None

    @property
    def directory(self) -> str:
        return self.slug.rpartition("/")[0]


class WikiAttachmentLink(ApiModel):
    url: str
    markdown: str


class WikiAttachment(ApiModel):
    file_name: str
    file_path: str
    branch: str
    link: WikiAttachmentLink


class TagCommit(ApiModel):
    id: str
    short_id: str | None = None
    title: str | None = None
    message: str | None = None
    created_at: datetime | None = None
    parent_ids: list[str] = []
    author_name: str | None = None
    author_email: str | None = None
    authored_date: datetime | None = None
    committer_name: str | None = None
    committer_email: str | None = None
    committed_date: datetime | None = None


class TagRelease(ApiModel):
    tag_name: str
    description: str | None = None


class RepositoryTag(ApiModel):
    name: str
    target: str | None = None
    created_at: datetime | None = None
    message: str | None = None
    protected: bool = False
    release: TagRelease | None = None
    commit: TagCommit | None = None

    @property
    def annotated(self) -> bool:
        return self.message is not None

    @property
    def updated(self) -> datetime | None:
        return self.commit.committed_date or self.commit.created_at if self.commit else None


class Branch(ApiModel):
    """GitLab's `Branch` entity (`lib/api/entities/branch.rb`): flags of the project's and the caller's."""

    name: str
    merged: bool = False  # into the default branch
    protected: bool = False
    default: bool = False
    developers_can_push: bool = False
    developers_can_merge: bool = False
    can_push: bool = False  # the caller may push to it
    web_url: str | None = None
    commit: TagCommit | None = None


class PagesCertificate(ApiModel):
    """A domain's certificate as `PagesDomainCertificate` (project endpoints: subject, expired, the PEM and
    its text) or `PagesDomainCertificateExpiration` (the admin listing: expired, expiration) sends it."""

    subject: str | None = None
    expired: bool | None = None
    expiration: datetime | None = None  # `certificate_expiration` of the admin listing
    certificate: str | None = None
    certificate_text: str | None = None

    @property
    def not_after(self) -> datetime | None:
        """The expiry: `expiration` when given, else read from `certificate_text` (project endpoints)."""
        if self.expiration is not None:
            return self.expiration
        match = _NOT_AFTER.search(self.certificate_text or "")
        if match is None:
            return None
        month, day, clock, year = match.groups()
        try:
            return datetime.strptime(f"{month} {day} {clock} {year}", "%b %d %H:%M:%S %Y").replace(tzinfo=UTC)
        except ValueError:
            return None


class PagesDomain(ApiModel):
    """A Pages domain as either of GitLab's entities sends it: `PagesDomain` (a project's endpoints) with a
    `certificate` object, or `PagesDomainBasic` (`GET /pages/domains`) with `project_id` and
    `certificate_expiration` instead. Read the certificate through `tls`, `not_after` and `expiry_state`,
    which take whichever shape came."""

    domain: str
    url: str | None = None
    project_id: int | None = None
    verified: bool | None = None
    verification_code: str | None = None
    enabled_until: datetime | None = None
    auto_ssl_enabled: bool = False
    certificate: PagesCertificate | None = None
    certificate_expiration: PagesCertificate | None = None  # PagesDomainBasic (the admin listing)

    @property
    def tls(self) -> PagesCertificate | None:
        """The certificate, from `certificate` or, in the admin listing, `certificate_expiration`."""
        return self.certificate if self.certificate is not None else self.certificate_expiration

    @property
    def not_after(self) -> datetime | None:
        """When the certificate expires (None without a certificate or when it cannot be read)."""
        cert = self.tls
        return cert.not_after if cert is not None else None

    def expiry_state(self, now: datetime) -> str:
        """`none` (no certificate), `expired`, `soon` (within 30 days), `valid` or `unknown`."""
        cert = self.tls
        if cert is None:
            return "none"
        not_after = cert.not_after
        if cert.expired or (not_after is not None and not_after <= now):
            return "expired"
        if not_after is None:
            return "unknown"
        return "soon" if not_after - now <= NEAR_EXPIRY else "valid"


class ErrorTrackingSettings(ApiModel):
    active: bool
    project_name: str | None = None
    tracker_external_url: str | None = None
    sentry_external_url: str | None = None
    api_url: str | None = None

    @property
    def external_url(self) -> str | None:
        return self.tracker_external_url or self.sentry_external_url
