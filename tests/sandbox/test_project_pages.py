"""Conformance of the Pages domain routes: the administrators' listing, project CRUD, PEM certificates and
keys as text or files (an openssl-made certificate and the sandbox's own), removing a certificate with
empty values, `auto_ssl_enabled`, the certificate fields and expiry, and the permissions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.seed.certificates import (
    CertificateError,
    make_certificate,
    make_private_key,
    parse_certificate,
)
from labdeck.sandbox.seed.project_resources import verification_code

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}  # Developer (30) in acme: not enough
CAROL = {**ROOT, "Sudo": "carol"}  # Owner (50) of acme
PORTAL = "/api/v4/projects/acme%2Fplatform%2Fweb-portal/pages/domains"
KEY = make_private_key("test")
# made with `openssl req -x509 -newkey rsa:2048 -days 400 -subj "/O=Example, Inc./CN=docs.example.test"`
OPENSSL_PEM = """-----BEGIN CERTIFICATE-----
MIIDSTCCAjGgAwIBAgIUel3GyxQ991dZOuWnL6ZlZsnn5dkwDQYJKoZIhvcNAQEL
BQAwNDEWMBQGA1UECgwNRXhhbXBsZSwgSW5jLjEaMBgGA1UEAwwRZG9jcy5leGFt
cGxlLnRlc3QwHhcNMjYxMTIyMDI1OTM5WhcNMjcxMjI3MDI1OTM5WjA0MRYwFAYD
VQQKDA1FeGFtcGxlLCBJbmMuMRowGAYDVQQDDBFkb2NzLmV4YW1wbGUudGVzdDCC
ASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBANiDkZIHdjHBoVsYiEEAqJNw
VdTfV91EarrCqSDR2xkTaWDvYTB4B0drsePR/uh/xhgWTXe+zp+ESpwP71QMRh68
9HMjrYOdL3o5gALs79eOEOBvtegDSoVVkZFMBCE9dRIaalFqASO2HradIZPAD09+
89mFcg6eZ6isR01rhluDFe4FALyBMIOLN1+L2dw7NTu9vtPhGYDzVLRR8oxxG+5A
WoB7dWsMw4UXLTzIjH4cM2ekh9mM7rnCWpZ/Sw/EJHffBHhRMcEq2Cw7ex7vebxW
8+Y6tAxbckxjKti3fYzVds4TYckXc+/xgPUrXp6iw1T2clJ2pvT/P0qMFDp0T+8C
AwEAAaNTMFEwHQYDVR0OBBYEFM/IaUonRciDuUKaGZFTPQbGpIBgMB8GA1UdIwQY
MBaAFM/IaUonRciDuUKaGZFTPQbGpIBgMA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZI
hvcNAQELBQADggEBACfwzU+HwExYLk+skL+IfmuAxbmjvdOHD2WLBNcZ8AiaDant
YMZbOxO0vBDSbXWsag7+ew/KSCyx/xw6AtuJo0i4yIf3oGGixTutqRsVr6lk2i2C
fa1MAtBLcbnSShIJi0QcKRiKy4TTZ086e1bzuqbB+wJc70Y8CjSYirfrdAWMuSBo
OXC5D8pNIrDinw0DYKGr5zK9ggQqchB5UQ5OfwCNg8PiHYQQShK365ZtPb30wG5t
yPc0eVsAoqDqcCL7hZktGO6ASk2KWyIdXqM9vRXF3XjJ1uxXHMzN3m7g9NcZ83HL
GhJkvMTCceQO9qBWiG0TCQJ1jTeEO3sxaJ0JRnc=
-----END CERTIFICATE-----
"""


def test_the_der_reader_reads_an_openssl_certificate_and_our_own() -> None:
    info = parse_certificate(OPENSSL_PEM)
    assert info.subject_line == "/O=Example, Inc./CN=docs.example.test"
    assert info.not_after == datetime(2027, 12, 27, 2, 59, 39, tzinfo=UTC)
    made = make_certificate([("CN", "x.test")], datetime(2020, 1, 1, tzinfo=UTC),
                            datetime(2030, 2, 3, tzinfo=UTC))
    assert parse_certificate(made).not_after == datetime(2030, 2, 3, tzinfo=UTC)
    for bad in ("", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-"
                "----\n!!\n-----END CERTIFICATE-----"):
        try:
            parse_certificate(bad)
        except CertificateError:
            continue
        raise AssertionError(f"accepted {bad!r}")


async def test_all_domains_for_administrators_only(client: httpx.AsyncClient, clock: ManualClock) -> None:
    response = await client.get("/api/v4/pages/domains", headers=ROOT)
    assert response.status_code == 200
    by_name = {d["domain"]: d for d in response.json()}
    assert set(by_name) >= {"portal.acme.test", "old.acme.test", "soon.acme.test", "plain.acme.test",
                            "labdeck.opensource.test"}
    old = by_name["old.acme.test"]
    assert set(old) == {"domain", "url", "project_id", "verified", "verification_code", "enabled_until",
                        "auto_ssl_enabled", "certificate_expiration"}  # PagesDomainBasic, not the docs
    expiration = old["certificate_expiration"]
    assert expiration["expired"] is True and set(expiration) == {"expired", "expiration"}
    soon = by_name["soon.acme.test"]["certificate_expiration"]
    expiration = datetime.fromisoformat(soon["expiration"].replace("Z", "+00:00"))
    now = datetime.fromtimestamp(clock.time(), UTC)
    assert soon["expired"] is False and timedelta(days=9) < expiration - now <= timedelta(days=10)
    portal_id = by_name["portal.acme.test"]["project_id"]
    code = verification_code("plain.acme.test", portal_id)
    assert by_name["plain.acme.test"] == {"domain": "plain.acme.test", "url": "http://plain.acme.test",
                                          "project_id": portal_id, "verified": False,
                                          "verification_code": code, "enabled_until": None,
                                          "auto_ssl_enabled": False}
    verified = by_name["portal.acme.test"]
    until = datetime.fromisoformat(verified["enabled_until"].replace("Z", "+00:00"))
    assert verified["verified"] is True and until > now and len(verified["verification_code"]) == 32
    assert (await client.get("/api/v4/pages/domains", headers=ALICE)).status_code == 403
    assert (await client.get("/api/v4/pages/domains")).status_code == 401


async def test_project_listing_and_detail(client: httpx.AsyncClient) -> None:
    listing = (await client.get(PORTAL, headers=CAROL)).json()
    assert [d["domain"] for d in listing] == ["old.acme.test", "plain.acme.test", "portal.acme.test",
                                              "soon.acme.test"]
    detail = (await client.get(f"{PORTAL}/portal.acme.test", headers=CAROL)).json()
    assert detail["url"] == "https://portal.acme.test" and "project_id" not in detail
    cert = detail["certificate"]
    assert set(cert) == {"subject", "expired", "certificate", "certificate_text"}
    assert cert["subject"] == "/O=Acme/CN=portal.acme.test" and cert["expired"] is False
    assert cert["certificate"].startswith("-----BEGIN CERTIFICATE-----")
    assert "Not After :" in cert["certificate_text"]
    plain = (await client.get(f"{PORTAL}/plain.acme.test", headers=CAROL)).json()
    code = plain.pop("verification_code")
    assert plain == {"domain": "plain.acme.test", "url": "http://plain.acme.test", "verified": False,
                     "enabled_until": None, "auto_ssl_enabled": False}
    assert code and listing[1]["verification_code"] == code
    missing = await client.get(f"{PORTAL}/nope.acme.test", headers=CAROL)
    assert (missing.status_code, missing.json()) == (404, {"message": "404 PagesDomain Not Found"})


async def test_maintainers_only(client: httpx.AsyncClient) -> None:
    assert (await client.get(PORTAL, headers=ALICE)).status_code == 403
    assert (await client.post(PORTAL, headers=ALICE, json={"domain": "a.acme.test"})).status_code == 403
    assert (await client.get(PORTAL)).status_code == 401


async def test_create_with_pem_text_and_with_files(client: httpx.AsyncClient) -> None:
    text = await client.post(PORTAL, headers=CAROL, json={"domain": "docs.example.test",
                                                          "certificate": OPENSSL_PEM, "key": KEY})
    assert text.status_code == 201
    assert text.json()["certificate"]["subject"] == "/O=Example, Inc./CN=docs.example.test"
    assert text.json()["url"] == "https://docs.example.test"
    files = await client.post(PORTAL, headers=CAROL,
                              data={"domain": "files.acme.test", "auto_ssl_enabled": "true"},
                              files={"certificate": ("cert.pem", OPENSSL_PEM.encode()),
                                     "key": ("key.pem", KEY.encode())})
    assert files.status_code == 201
    assert files.json()["auto_ssl_enabled"] is True and files.json()["certificate"]["expired"] is False
    bare = await client.post(PORTAL, headers=CAROL, json={"domain": "Bare.Acme.Test"})
    assert bare.json().pop("verification_code")  # a new domain waits for its TXT record
    assert {k: v for k, v in bare.json().items() if k != "verification_code"} == {
        "domain": "bare.acme.test", "url": "http://bare.acme.test", "verified": False, "enabled_until": None,
        "auto_ssl_enabled": False}


async def test_create_validation(client: httpx.AsyncClient) -> None:
    missing = await client.post(PORTAL, headers=CAROL, json={})
    assert (missing.status_code, missing.json()) == (400, {"error": "domain is missing"})
    taken = await client.post(PORTAL, headers=CAROL, json={"domain": "portal.acme.test"})
    assert (taken.status_code, taken.json()) == (400, {"message": {"domain": ["has already been taken"]}})
    no_key = await client.post(PORTAL, headers=CAROL,
                               json={"domain": "k.acme.test", "certificate": OPENSSL_PEM})
    assert no_key.json() == {"message": {"key": ["can't be blank"]}}
    garbage = await client.post(PORTAL, headers=CAROL, json={"domain": "g.acme.test", "certificate": "nope",
                                                             "key": KEY})
    assert garbage.json() == {"message": {"certificate": ["must be a valid PEM certificate"]}}
    invalid = await client.post(PORTAL, headers=CAROL, json={"domain": "not a domain"})
    assert invalid.json() == {"message": {"domain": ["is invalid"]}}


async def test_update_and_remove_the_certificate(client: httpx.AsyncClient) -> None:
    added = await client.put(f"{PORTAL}/plain.acme.test", headers=CAROL,
                             json={"certificate": OPENSSL_PEM, "key": KEY, "auto_ssl_enabled": True})
    assert added.status_code == 200
    assert added.json()["url"] == "https://plain.acme.test" and added.json()["auto_ssl_enabled"] is True
    removed = await client.put(f"{PORTAL}/plain.acme.test", headers=CAROL,
                               data={"certificate": "", "key": ""})
    assert {k: removed.json()[k] for k in ("domain", "url", "auto_ssl_enabled")} == {
        "domain": "plain.acme.test", "url": "http://plain.acme.test", "auto_ssl_enabled": False}
    assert "certificate" not in removed.json()
    toggled = await client.put(f"{PORTAL}/portal.acme.test", headers=CAROL, json={"auto_ssl_enabled": True})
    assert toggled.json()["auto_ssl_enabled"] is True and "certificate" in toggled.json()
    bad = await client.put(f"{PORTAL}/portal.acme.test", headers=CAROL, json={"certificate": "x"})
    assert bad.status_code == 400


async def test_expiry_follows_the_clock(client: httpx.AsyncClient, clock: ManualClock) -> None:
    before = (await client.get(f"{PORTAL}/soon.acme.test", headers=CAROL)).json()
    assert before["certificate"]["expired"] is False
    clock.advance(11 * 86400)
    after = (await client.get(f"{PORTAL}/soon.acme.test", headers=CAROL)).json()
    assert after["certificate"]["expired"] is True


async def test_delete(client: httpx.AsyncClient) -> None:
    deleted = await client.delete(f"{PORTAL}/old.acme.test", headers=CAROL)
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert (await client.get(f"{PORTAL}/old.acme.test", headers=CAROL)).status_code == 404
    other = await client.delete("/api/v4/projects/opensource%2Flabdeck/pages/domains/portal.acme.test",
                                headers=ROOT)
    assert other.status_code == 404  # a domain of another project


async def test_pages_must_be_enabled(client: httpx.AsyncClient, app: Any) -> None:
    store = app.state.store
    store.areas["pages_domains"].disabled.add(store.project_by_path("acme/platform/web-portal").id)
    response = await client.get(PORTAL, headers=CAROL)
    assert (response.status_code, response.json()) == (404, {"message": "404 Not Found"})


async def test_domain_listings_are_paginated(client: httpx.AsyncClient) -> None:
    """Like every GitLab list (`present paginate(...)`): per_page, page, the x-total headers and `Link`."""
    first = await client.get("/api/v4/pages/domains", headers=ROOT, params={"per_page": 2})
    assert first.status_code == 200 and len(first.json()) == 2
    assert first.headers["x-per-page"] == "2" and int(first.headers["x-total"]) >= 5
    assert 'rel="next"' in first.headers["link"]
    second = await client.get("/api/v4/pages/domains", headers=ROOT, params={"per_page": 2, "page": 2})
    assert {d["domain"] for d in first.json()}.isdisjoint(d["domain"] for d in second.json())
    project = await client.get(PORTAL, headers=CAROL, params={"per_page": 3})
    assert [d["domain"] for d in project.json()] == ["old.acme.test", "plain.acme.test", "portal.acme.test"]
    assert project.headers["x-total"] == "4" and project.headers["x-total-pages"] == "2"
