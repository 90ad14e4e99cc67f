"""Pages domains (GitLab's API docs, "Pages domains"), as GitLab's `lib/api/pages_domains.rb` behaves:

- `GET /pages/domains` (administrators): GitLab's `PagesDomainBasic` entity, every domain with `project_id`
  and, when it has a certificate, `certificate_expiration` (`expired`, `expiration`; there is no
  `certificate` object here, whatever the API docs show); paginated like every list, as are a project's
  domains (the `PagesDomain` entity);
- every domain carries `verified`, `verification_code` (the TXT record proving ownership) and
  `enabled_until` (a verified domain stays enabled until its next verification; null until verified);
- a project's domains: list, read (`404 PagesDomain Not Found`), create (`domain` required; 400
  `{"message":{"domain":["has already been taken"]}}`), update, delete (204);
- `certificate` and `key` come as PEM text or as uploaded files; a certificate needs a key, and must be a
  readable PEM certificate; sending both empty in a PUT removes the certificate (and turns
  `auto_ssl_enabled` off);
- a domain with a certificate shows `https://` and `certificate` (`subject`, `expired`, `certificate`,
  `certificate_text`); without one only `domain`, `url` and `auto_ssl_enabled`.

The project must have Pages enabled (not `disabled`); every project endpoint needs Maintainer (40).
"""

from __future__ import annotations

import re
from typing import Any

from starlette.datastructures import UploadFile
from starlette.responses import Response
from starlette.routing import Route

from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, iso, json_response, paginate
from labdeck.sandbox.routes.projects.projects import find_project, require_level
from labdeck.sandbox.routes.projects.repository_tags import MAINTAINER
from labdeck.sandbox.seed.certificates import (
    CertificateError,
    certificate_text,
    is_private_key,
    parse_certificate,
)
from labdeck.sandbox.seed.project_resources import PagesDomain, pages_data, seed_pages, verification_code
from labdeck.sandbox.store import Project

_DOMAIN = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")


def domain_json(ctx: Ctx, record: PagesDomain, *, listing: bool = False) -> dict[str, Any]:
    scheme = "https" if record.certificate else "http"
    out: dict[str, Any] = {"domain": record.domain, "url": f"{scheme}://{record.domain}"}
    if listing:
        out["project_id"] = record.project_id
    out["verified"] = record.verified
    out["verification_code"] = record.verification_code
    out["enabled_until"] = iso(record.enabled_until) if record.enabled_until is not None else None
    out["auto_ssl_enabled"] = record.auto_ssl_enabled
    if record.certificate:
        info = parse_certificate(record.certificate)
        expired = info.not_after <= ctx.store.now()
        if listing:
            out["certificate_expiration"] = {"expired": expired, "expiration": iso(info.not_after)}
        else:
            out["certificate"] = {"subject": info.subject_line, "expired": expired,
                                  "certificate": record.certificate,
                                  "certificate_text": certificate_text(info)}
    return out


def _project(ctx: Ctx) -> Project:
    project = find_project(ctx)
    require_level(ctx, project, MAINTAINER)
    if project.id in pages_data(ctx.store).disabled:
        raise SandboxError.not_found()  # GitLab answers a project without Pages with a bare 404
    return project


def _find(ctx: Ctx, project: Project) -> PagesDomain:
    record = pages_data(ctx.store).domains.get(ctx.path("domain").lower())
    if record is None or record.project_id != project.id:
        raise SandboxError.not_found("PagesDomain")
    return record


async def _pem(ctx: Ctx, name: str) -> str | None:
    """A PEM parameter given as text or as an uploaded file (None when absent)."""
    value = ctx.params.data.get(name)
    if isinstance(value, UploadFile):
        return (await value.read()).decode("utf-8", "replace")
    if isinstance(value, (dict, list)):
        raise SandboxError.invalid(name)
    return None if value is None else str(value)


def _check(certificate: str | None, key: str | None) -> None:
    problems: dict[str, list[str]] = {}
    if certificate:
        try:
            parse_certificate(certificate)
        except CertificateError:
            problems["certificate"] = ["must be a valid PEM certificate"]
        if not key:
            problems["key"] = ["can't be blank"]
    if key and not is_private_key(key):
        problems["key"] = ["must be a valid PEM private key"]
    if key and not certificate:
        problems["certificate"] = ["can't be blank"]
    if problems:
        raise SandboxError.validation(problems)


async def all_domains(ctx: Ctx) -> Any:
    ctx.require_admin()
    records = sorted(pages_data(ctx.store).domains.values(), key=lambda r: (r.project_id, r.domain))
    return paginate(ctx, records, lambda record: domain_json(ctx, record, listing=True))


async def project_domains(ctx: Ctx) -> Any:
    project = _project(ctx)
    records = [r for r in pages_data(ctx.store).domains.values() if r.project_id == project.id]
    return paginate(ctx, sorted(records, key=lambda r: r.domain), lambda record: domain_json(ctx, record))


async def get_domain(ctx: Ctx) -> Any:
    project = _project(ctx)
    return domain_json(ctx, _find(ctx, project))


async def create_domain(ctx: Ctx) -> Any:
    ctx.params.require("domain")
    project = _project(ctx)
    name = (ctx.params.str("domain") or "").strip().lower()
    auto_ssl = bool(ctx.params.bool("auto_ssl_enabled", False))
    certificate, key = await _pem(ctx, "certificate"), await _pem(ctx, "key")
    data = pages_data(ctx.store)
    if not _DOMAIN.match(name):
        raise SandboxError.validation({"domain": ["is invalid"]})
    if name in data.domains:
        raise SandboxError.validation({"domain": ["has already been taken"]})
    _check(certificate, key)
    record = data.domains[name] = PagesDomain(name, project.id, auto_ssl, certificate or None, key or None,
                                              verification_code=verification_code(name, project.id))
    return json_response(domain_json(ctx, record), 201)


async def update_domain(ctx: Ctx) -> Any:
    project = _project(ctx)
    record = _find(ctx, project)
    auto_ssl = ctx.params.bool("auto_ssl_enabled")
    given = {name for name in ("certificate", "key") if name in ctx.params.data}
    certificate, key = await _pem(ctx, "certificate"), await _pem(ctx, "key")
    if given == {"certificate", "key"} and not certificate and not key:
        record.certificate = record.key = None
        record.auto_ssl_enabled = False
        return domain_json(ctx, record)
    if given:
        new_certificate = certificate if "certificate" in given else record.certificate
        new_key = key if "key" in given else record.key
        _check(new_certificate, new_key)
        record.certificate, record.key = new_certificate or None, new_key or None
    if auto_ssl is not None:
        record.auto_ssl_enabled = auto_ssl
    return domain_json(ctx, record)


async def delete_domain(ctx: Ctx) -> Any:
    project = _project(ctx)
    record = _find(ctx, project)
    del pages_data(ctx.store).domains[record.domain]
    return Response(status_code=204)


_DOMAINS = "/projects/{id}/pages/domains"

seed = seed_pages  # the area's seeding function

routes: list[Route] = [
    Route("/pages/domains", endpoint(all_domains), methods=["GET"]),
    Route(_DOMAINS, endpoint(project_domains), methods=["GET"]),
    Route(_DOMAINS, endpoint(create_domain), methods=["POST"]),
    Route(_DOMAINS + "/{domain}", endpoint(get_domain), methods=["GET"]),
    Route(_DOMAINS + "/{domain}", endpoint(update_domain), methods=["PUT"]),
    Route(_DOMAINS + "/{domain}", endpoint(delete_domain), methods=["DELETE"]),
]
