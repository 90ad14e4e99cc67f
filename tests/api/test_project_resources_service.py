"""The per-project services against the tiny sandbox: wikis (directory slugs, update rules, attachments),
repository tags (search, order, annotated, the 405 message), Pages domains (PEM text and files, removal,
expiry from the listing and from `certificate_text`) and error tracking settings."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta

import pytest
from sandbox_clients import ClientPool

from labdeck.api import bindings
from labdeck.api.client import ApiClient
from labdeck.api.error_tracking import ErrorTrackingService
from labdeck.api.errors import BadRequest, Forbidden, MethodNotAllowed, NotFound
from labdeck.api.models.project_resources import PagesCertificate, PagesDomain
from labdeck.api.pages_domains import PagesDomainsService
from labdeck.api.repository_tags import TagsService
from labdeck.api.services import Services
from labdeck.api.wikis import WikiService
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed.certificates import make_certificate, make_private_key

GATEWAY = "acme/platform/api-gateway"
PORTAL = "acme/platform/web-portal"
START = 1_790_000_000.0
NOW = datetime.fromtimestamp(START, UTC)


@pytest.fixture
async def connect() -> AsyncIterator[Callable[..., ApiClient]]:
    pool = ClientPool(create_app(SandboxOptions(scale="tiny"), clock=ManualClock(START)))
    yield pool.client
    await pool.aclose()


async def test_wiki_pages_round_trip(connect: Callable[..., ApiClient]) -> None:
    wikis = WikiService(connect())
    pages = await wikis.pages(GATEWAY)
    assert [p.slug for p in pages] == ["Getting-started", "docs/faq", "docs/setup", "home"]
    assert all(p.content is None for p in pages)
    full = await wikis.pages(GATEWAY, with_content=True)
    assert full[0].content == "1. Clone\n2. `make run`\n"
    setup = await wikis.page(GATEWAY, "docs/setup")
    assert (setup.format, setup.title, setup.directory) == ("asciidoc", "setup", "docs")
    created = await wikis.create(GATEWAY, "guides/Deploy it", "steps", format="org")
    assert (created.slug, created.format) == ("guides/Deploy-it", "org")
    assert "guides/Deploy-it" in [p.slug for p in await wikis.pages(GATEWAY)]  # the cache was dropped
    updated = await wikis.update(GATEWAY, created.slug, content="more steps")
    assert updated.content == "more steps" and updated.slug == created.slug
    renamed = await wikis.update(GATEWAY, created.slug, title="Ship it")
    assert renamed.slug == "guides/Ship-it"
    with pytest.raises(ValueError):
        await wikis.update(GATEWAY, renamed.slug)
    await wikis.delete(GATEWAY, renamed.slug)
    with pytest.raises(NotFound):
        await wikis.page(GATEWAY, renamed.slug)


async def test_wiki_refusals_carry_the_server_message(connect: Callable[..., ApiClient]) -> None:
    wikis = WikiService(connect())
    with pytest.raises(BadRequest) as duplicate:
        await wikis.create(GATEWAY, "home", "again")
    assert duplicate.value.message == "Duplicate page: A page with that title already exists"
    with pytest.raises(Forbidden):
        await WikiService(connect("glpat-sandbox-alice")).delete(GATEWAY, "home")


async def test_wiki_attachment(connect: Callable[..., ApiClient]) -> None:
    wikis = WikiService(connect("glpat-sandbox-alice"))
    result = await wikis.upload_attachment(GATEWAY, "chart.png", b"\x89PNG")
    assert result.file_name == "chart.png" and result.branch == "main"
    assert result.link.markdown == f"![chart]({result.file_path})" and result.link.url == result.file_path
    other = await wikis.upload_attachment(GATEWAY, "notes.txt", b"hi", branch="drafts")
    assert other.branch == "drafts" and other.link.markdown.startswith("[notes.txt](")


async def test_tags_listing_search_and_order(connect: Callable[..., ApiClient]) -> None:
    services = Services(connect())

    async def names(**params: str) -> list[str]:
        return [t.name for t in await services.read(bindings.PROJECT_TAGS, GATEWAY, params=params)]

    newest = {"order_by": "updated", "sort": "desc"}
    listed = await services.read(bindings.PROJECT_TAGS, GATEWAY, params=newest)
    assert [t.name for t in listed] == ["v1.0.0-rc1", "v0.2.0", "v0.1.0"]
    assert listed[1].annotated and listed[1].release is not None and listed[1].protected
    assert listed[0].updated is not None and listed[0].commit is not None
    assert await names(order_by="name", sort="asc") == ["v0.1.0", "v0.2.0", "v1.0.0-rc1"]
    assert await names(search="^v0") == ["v0.2.0", "v0.1.0"]
    assert await names(search="rc1$") == ["v1.0.0-rc1"]


async def test_tags_public_read_without_a_token(connect: Callable[..., ApiClient]) -> None:
    anonymous = TagsService(connect(""))
    assert (await anonymous.tag(GATEWAY, "v0.1.0")).name == "v0.1.0"


async def test_tag_create_and_delete(connect: Callable[..., ApiClient]) -> None:
    tags = TagsService(connect("glpat-sandbox-alice"))
    light = await tags.create(GATEWAY, "v2.0.0", "main")
    assert not light.annotated and light.target == light.commit.id  # type: ignore[union-attr]
    annotated = await tags.create(GATEWAY, "v2.1.0", "develop", message="Annotated")
    assert annotated.annotated and annotated.message == "Annotated"
    with pytest.raises(MethodNotAllowed) as refused:
        await tags.create(GATEWAY, "v2.0.0", "main")
    assert refused.value.status == 405 and refused.value.message == "Tag v2.0.0 already exists"
    with pytest.raises(MethodNotAllowed) as bad_ref:
        await tags.create(GATEWAY, "v3", "no-such-branch")
    assert bad_ref.value.message == "Target no-such-branch is invalid"
    await tags.delete(GATEWAY, "v2.0.0")
    assert "v2.0.0" not in [t.name for t in await bindings.PROJECT_TAGS.read(tags.client, GATEWAY)]


async def test_pages_domains(connect: Callable[..., ApiClient]) -> None:
    pages = PagesDomainsService(connect())
    every = {d.domain: d for d in await Services(pages.client).read(bindings.ALL_PAGES_DOMAINS)}
    assert every["old.acme.test"].expiry_state(NOW) == "expired"
    assert every["soon.acme.test"].expiry_state(NOW) == "soon"
    assert every["portal.acme.test"].expiry_state(NOW) == "valid"
    assert every["plain.acme.test"].expiry_state(NOW) == "none"
    assert every["portal.acme.test"].project_id is not None
    mine = {d.domain: d for d in await bindings.PROJECT_PAGES_DOMAINS.read(pages.client, PORTAL)}
    portal = mine["portal.acme.test"].certificate
    assert portal is not None and portal.subject == "/O=Acme/CN=portal.acme.test"
    # project endpoints give no `expiration`: it is read from certificate_text, to the second
    assert portal.expiration is None and portal.not_after == every["portal.acme.test"].not_after
    assert mine["soon.acme.test"].expiry_state(NOW) == "soon"


async def test_pages_domain_create_update_remove(connect: Callable[..., ApiClient]) -> None:
    pages = PagesDomainsService(connect())
    pem = make_certificate([("CN", "new.acme.test")], NOW - timedelta(days=1), NOW + timedelta(days=90))
    key = make_private_key("new")
    text = await pages.create(PORTAL, "new.acme.test", certificate=pem, key=key)
    assert text.url == "https://new.acme.test" and text.expiry_state(NOW) == "valid"
    files = await pages.create(PORTAL, "files.acme.test", certificate=pem, key=key, as_files=True,
                               auto_ssl_enabled=True)
    assert files.auto_ssl_enabled and files.certificate is not None
    bare = await pages.create(PORTAL, "bare.acme.test")
    assert bare.certificate is None and bare.url == "http://bare.acme.test"
    updated = await pages.update(PORTAL, "bare.acme.test", certificate=pem, key=key, as_files=True)
    assert updated.certificate is not None
    removed = await pages.remove_certificate(PORTAL, "files.acme.test")
    assert removed.certificate is None and removed.auto_ssl_enabled is False
    with pytest.raises(BadRequest) as taken:
        await pages.create(PORTAL, "new.acme.test")
    assert taken.value.status == 400
    await pages.delete(PORTAL, "new.acme.test")
    left = await bindings.PROJECT_PAGES_DOMAINS.read(pages.client, PORTAL)
    assert "new.acme.test" not in [d.domain for d in left]


def test_certificate_expiry_parsing() -> None:
    text = "Validity\n            Not After : Mar  2 07:08:09 2027 GMT\n"
    assert PagesCertificate(certificate_text=text).not_after == datetime(2027, 3, 2, 7, 8, 9, tzinfo=UTC)
    assert PagesCertificate(certificate_text="garbage").not_after is None
    unknown = PagesDomain(domain="x.test", certificate=PagesCertificate(expired=False))
    assert unknown.expiry_state(NOW) == "unknown"


async def test_error_tracking(connect: Callable[..., ApiClient]) -> None:
    tracking = ErrorTrackingService(connect())
    settings = await bindings.PROJECT_ERROR_TRACKING.read(tracking.client, GATEWAY)
    assert settings.active and settings.external_url == "https://sentry.acme.test/acme/api-gateway"
    assert (await tracking.set_active(GATEWAY, False)).active is False
    assert (await bindings.PROJECT_ERROR_TRACKING.read(tracking.client, GATEWAY)).active is False
    assert (await tracking.set_active(GATEWAY, True)).active is True
    with pytest.raises(NotFound):
        await bindings.PROJECT_ERROR_TRACKING.read(tracking.client, "acme/handbook")
    with pytest.raises(Forbidden):
        await ErrorTrackingService(connect("glpat-sandbox-alice")).set_active(GATEWAY, False)
