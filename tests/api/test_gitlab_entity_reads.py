"""The client reads what GitLab's entities send, where it sends one thing in two shapes (issue 27):

- Pages domains: the admin listing (`GET /pages/domains`) is `PagesDomainBasic`, whose certificate comes as
  `certificate_expiration: {expired, expiration}` (GitLab's `pages_domains_spec.rb` asserts it), while a
  project's endpoints send `PagesDomain`'s `certificate` object; the API docs show `certificate` on the
  listing too. Every shape gives the same expiry, in the service, the overview and `:pages`' cells.
- An integer beyond 64 bits (here inside a user's `identities`) reads the same exact integer whether the
  listing decoder (msgspec) or the tolerant path (orjson, then pydantic) reads the page, or a single read.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import httpx

from labdeck.api import bindings
from labdeck.api.body import decode_json, exact_loads
from labdeck.api.models.project_resources import PagesDomain
from labdeck.api.overview import OverviewService
from labdeck.api.services import Services
from labdeck.api.users import UsersService
from labdeck.tui.screens.projects.pages import expiry_text

NOW = datetime(2026, 6, 1, tzinfo=UTC)
# GitLab's PagesDomainBasic, as lib/api/entities/pages_domain_basic.rb builds it (no `certificate`)
BASIC = [
    {"domain": "old.example.com", "url": "https://old.example.com", "project_id": 3, "verified": True,
     "verification_code": "abc", "enabled_until": None, "auto_ssl_enabled": False,
     "certificate_expiration": {"expired": True, "expiration": "2026-05-01T00:00:00.000Z"}},
    {"domain": "soon.example.com", "url": "https://soon.example.com", "project_id": 3, "verified": True,
     "verification_code": "def", "enabled_until": None, "auto_ssl_enabled": False,
     "certificate_expiration": {"expired": False, "expiration": "2026-06-11T00:00:00.000Z"}},
    {"domain": "far.example.com", "url": "https://far.example.com", "project_id": 4, "verified": True,
     "verification_code": "ghi", "enabled_until": None, "auto_ssl_enabled": True,
     "certificate_expiration": {"expired": False, "expiration": "2027-06-11T00:00:00.000Z"}},
    {"domain": "plain.example.com", "url": "http://plain.example.com", "project_id": 4, "verified": False,
     "verification_code": "jkl", "enabled_until": None, "auto_ssl_enabled": False},
]
STATES = {"old.example.com": "expired", "soon.example.com": "soon", "far.example.com": "valid",
          "plain.example.com": "none"}


def _serving(body: Any) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=json.dumps(body).encode(), headers={"x-total": str(len(body))})
    return handler


def test_each_certificate_shape_gives_the_expiry() -> None:
    basic = PagesDomain.model_validate(BASIC[0])
    assert basic.not_after == datetime(2026, 5, 1, tzinfo=UTC) and basic.tls is not None and basic.tls.expired
    assert basic.expiry_state(NOW) == "expired"
    documented = PagesDomain.model_validate({"domain": "d.example", "certificate": {
        "expired": False, "expiration": "2026-06-11T00:00:00.000Z"}})  # what doc/api/pages_domains.md shows
    assert documented.not_after == datetime(2026, 6, 11, tzinfo=UTC)
    assert documented.expiry_state(NOW) == "soon"
    project = PagesDomain.model_validate({"domain": "p.example", "certificate": {
        "subject": "/CN=p.example", "expired": False, "certificate": "-----BEGIN CERTIFICATE-----",
        "certificate_text": "Validity\n    Not After : Jun 11 00:00:00 2027 GMT\n"}})
    assert project.not_after == datetime(2027, 6, 11, tzinfo=UTC) and project.expiry_state(NOW) == "valid"
    assert PagesDomain.model_validate(BASIC[3]).not_after is None


async def test_the_admin_listing_in_gitlabs_shape_shows_real_expiry(make_client: Any) -> None:
    domains = await Services(make_client(_serving(BASIC))).read(bindings.ALL_PAGES_DOMAINS)
    assert {d.domain: d.expiry_state(NOW) for d in domains} == STATES
    cells = {d.domain: str(expiry_text(d, NOW)) for d in domains}
    assert cells == {"old.example.com": "expired 31d ago", "soon.example.com": "in 10d (2026-06-11)",
                     "far.example.com": "2027-06-11", "plain.example.com": "no certificate"}


async def test_the_overview_counts_gitlabs_shape(make_client: Any) -> None:
    figures = await OverviewService(make_client(_serving(BASIC)), now=lambda: NOW).certificates()
    assert [d.domain for d in figures.expired] == ["old.example.com"]
    assert [d.domain for d in figures.soon] == ["soon.example.com"]
    assert figures.scanned == 4 and figures.complete


BIG = 123456789012345678901234567890  # beyond 64 bits


def _user(n: int, **extra: Any) -> dict[str, Any]:
    return {"id": n, "username": f"u{n}", "name": f"U {n}", "state": "active",
            "identities": [{"provider": "ldapmain", "extern_uid": BIG}, {"provider": "github",
                                                                       "extern_uid": -BIG}], **extra}


async def test_a_number_beyond_64_bits_reads_the_same_on_every_path(make_client: Any) -> None:
    fast = await UsersService(make_client(_serving([_user(1), _user(2)]))).list_users()
    # a value the listing decoder will not coerce sends the page down the tolerant path
    tolerant = await UsersService(make_client(_serving([_user(1), _user(2, bot="false")]))).list_users()
    for user in (*fast, *tolerant):
        assert user.identities is not None
        uids = [identity["extern_uid"] for identity in user.identities]
        assert uids == [BIG, -BIG] and all(type(uid) is int for uid in uids)


def test_decoding_keeps_big_integers_exact_and_leaves_the_rest_alone() -> None:
    body = (b'{"a": 123456789012345678901234567890, "b": [1.5, -99999999999999999999],'
            b' "c": "12345678901234567890123"}')
    assert decode_json(body, "x") == {"a": BIG, "b": [1.5, -99999999999999999999],
                                      "c": "12345678901234567890123"}
    assert exact_loads(body) == decode_json(body, "x")
    assert decode_json(b'{"n": 18446744073709551615}', "x") == {"n": 18446744073709551615}
