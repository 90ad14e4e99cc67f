"""Records and seed data of the per-project resources: wiki pages, Pages domains, error tracking settings.

Each area keeps its own holder in `store.areas` (`"wikis"`, `"pages_domains"`, `"error_tracking"`). Every
scale seeds the same few records on the core projects (tests rely on them):

- wikis of `acme/platform/api-gateway`: `home`, `Getting-started`, `docs/setup` (asciidoc), `docs/faq`;
  `acme/handbook`: `home`.
- Pages domains of `acme/platform/web-portal`: `portal.acme.test` (certificate valid a year),
  `old.acme.test` (expired), `soon.acme.test` (expires in 10 days), `plain.acme.test` (none);
  `opensource/labdeck`: `labdeck.opensource.test` (`auto_ssl_enabled`).
- error tracking: `acme/platform/api-gateway` active, `acme/platform/web-portal` inactive; none elsewhere.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from labdeck.sandbox.seed.certificates import make_certificate, make_private_key
from labdeck.sandbox.store import Store

WIKIS, PAGES, ERROR_TRACKING = "wikis", "pages_domains", "error_tracking"


@dataclass(slots=True)
class WikiPage:
    slug: str
    title: str
    content: str
    format: str = "markdown"


@dataclass
class WikiData:
    pages: dict[int, dict[str, WikiPage]] = field(default_factory=dict)  # project id -> slug -> page
    uploads: int = 0


@dataclass(slots=True)
class PagesDomain:
    domain: str
    project_id: int
    auto_ssl_enabled: bool = False
    certificate: str | None = None
    key: str | None = None
    verified: bool = False
    verification_code: str = ""
    enabled_until: datetime | None = None


def verification_code(domain: str, project_id: int) -> str:
    """The (deterministic) code GitLab asks to publish in a TXT record to prove the domain is owned."""
    return hashlib.sha256(f"{project_id}:{domain}".encode()).hexdigest()[:32]


@dataclass
class PagesData:
    domains: dict[str, PagesDomain] = field(default_factory=dict)  # domain name (lower case) -> record
    disabled: set[int] = field(default_factory=set)  # projects whose Pages feature is off


@dataclass(slots=True)
class ErrorTracking:
    active: bool
    project_name: str
    tracker_external_url: str
    api_url: str


@dataclass
class ErrorTrackingData:
    settings: dict[int, ErrorTracking] = field(default_factory=dict)


def wiki_data(store: Store) -> WikiData:
    return store.area(WIKIS, WikiData)


def pages_data(store: Store) -> PagesData:
    return store.area(PAGES, PagesData)


def error_tracking_data(store: Store) -> ErrorTrackingData:
    return store.area(ERROR_TRACKING, ErrorTrackingData)


def slug_for(title: str) -> str:
    """GitLab's slug of a title: spaces become hyphens, the directory part stays."""
    return "/".join(part.strip().replace(" ", "-") for part in title.strip().split("/"))


def seed_wikis(store: Store, ctx: object) -> None:
    data = wiki_data(store)
    gateway = store.project_by_path("acme/platform/api-gateway")
    handbook = store.project_by_path("acme/handbook")
    if gateway is not None:
        data.pages[gateway.id] = {page.slug: page for page in (
            WikiPage("home", "home", "# API Gateway\n\nSee [Getting started](Getting-started)."),
            WikiPage("Getting-started", "Getting started", "1. Clone\n2. `make run`\n"),
            WikiPage("docs/setup", "setup", "= Setup\n\nInstall the gateway.", "asciidoc"),
            WikiPage("docs/faq", "faq", "**Why?** Because."),
        )}
    if handbook is not None:
        data.pages[handbook.id] = {"home": WikiPage("home", "home", "# How we work\n")}


def seed_pages(store: Store, ctx: object) -> None:
    data = pages_data(store)
    now: datetime = store.now()
    portal = store.project_by_path("acme/platform/web-portal")
    labdeck = store.project_by_path("opensource/labdeck")

    def cert(name: str, days_before: int, days_after: int) -> tuple[str, str]:
        pem = make_certificate([("O", "Acme"), ("CN", name)], now - timedelta(days=days_before),
                               now + timedelta(days=days_after), serial=len(data.domains) + 1)
        return pem, make_private_key(name)

    if portal is not None:
        for name, validity in (("portal.acme.test", (30, 365)), ("old.acme.test", (400, -35)),
                               ("soon.acme.test", (355, 10)), ("plain.acme.test", None)):
            pem, key = cert(name, *validity) if validity else (None, None)
            verified = name != "plain.acme.test"  # one waits for its TXT record
            data.domains[name] = PagesDomain(name, portal.id, certificate=pem, key=key, verified=verified,
                                             verification_code=verification_code(name, portal.id),
                                             enabled_until=now + timedelta(days=7) if verified else None)
    if labdeck is not None:
        pem, key = cert("labdeck.opensource.test", 20, 70)
        data.domains["labdeck.opensource.test"] = PagesDomain(
            "labdeck.opensource.test", labdeck.id, True, pem, key, verified=True,
            verification_code=verification_code("labdeck.opensource.test", labdeck.id),
            enabled_until=now + timedelta(days=7))


def seed_error_tracking(store: Store, ctx: object) -> None:
    data = error_tracking_data(store)
    for path, active in (("acme/platform/api-gateway", True), ("acme/platform/web-portal", False)):
        project = store.project_by_path(path)
        if project is not None:
            slug = project.path
            data.settings[project.id] = ErrorTracking(
                active, f"{slug} errors", f"https://sentry.acme.test/acme/{slug}",
                f"https://sentry.acme.test/api/0/projects/acme/{slug}")
