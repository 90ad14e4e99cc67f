"""The Pages domains service: one domain, create, update, delete (a project's domains and, for
administrators, every domain of the instance are read from their bindings, `bindings.PROJECT_PAGES_DOMAINS`
and `bindings.ALL_PAGES_DOMAINS`). Certificate and key are PEM text,
sent as form fields or, with `as_files=True`, as uploaded files; `remove_certificate()` sends both empty,
which detaches the certificate. Paths come from the
endpoint catalogue (`labdeck.domain.catalogue`)."""

from __future__ import annotations

from typing import Any

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.models.project_resources import PagesDomain
from labdeck.api.projects import ProjectRef, forget
from labdeck.domain import catalogue as ep


class PagesDomainsService:
    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def domain(self, project: ProjectRef, domain: str) -> PagesDomain:
        return await b.PROJECT_PAGES_DOMAIN.read(self.client, project, domain)

    @staticmethod
    def _form(fields: dict[str, Any], certificate: str | None, key: str | None,
              as_files: bool) -> tuple[dict[str, Any], dict[str, Any] | None]:
        data = {k: ("true" if v is True else "false" if v is False else v)
                for k, v in fields.items() if v is not None}
        files: dict[str, Any] = {}
        for name, pem in (("certificate", certificate), ("key", key)):
            if pem is None:
                continue
            if as_files:
                files[name] = (f"{name}.pem", pem.encode(), "application/x-pem-file")
            else:
                data[name] = pem
        return data, files or None

    async def create(self, project: ProjectRef, domain: str, *, auto_ssl_enabled: bool | None = None,
                     certificate: str | None = None, key: str | None = None,
                     as_files: bool = False) -> PagesDomain:
        data, files = self._form({"domain": domain, "auto_ssl_enabled": auto_ssl_enabled}, certificate, key,
                                 as_files)
        response = await self.client.post_json(ep.PROJECT_PAGES_DOMAIN_CREATE.path(project), data=data,
                                               files=files)
        forget(self.client, ep.PROJECT_PAGES_DOMAIN_CREATE, project)
        return b.PROJECT_PAGES_DOMAIN_CREATE.parse(response)

    async def update(self, project: ProjectRef, domain: str, *, auto_ssl_enabled: bool | None = None,
                     certificate: str | None = None, key: str | None = None,
                     as_files: bool = False) -> PagesDomain:
        data, files = self._form({"auto_ssl_enabled": auto_ssl_enabled}, certificate, key, as_files)
        response = await self.client.request("PUT", ep.PROJECT_PAGES_DOMAIN_UPDATE.path(project, domain),
                                             data=data, files=files)
        forget(self.client, ep.PROJECT_PAGES_DOMAIN_UPDATE, project, domain)
        return b.PROJECT_PAGES_DOMAIN_UPDATE.parse(self.client.decode(response))

    async def remove_certificate(self, project: ProjectRef, domain: str) -> PagesDomain:
        """Detach the certificate (empty `certificate` and `key`); `auto_ssl_enabled` goes off too."""
        response = await self.client.request("PUT", ep.PROJECT_PAGES_DOMAIN_UPDATE.path(project, domain),
                                             data={"certificate": "", "key": ""})
        forget(self.client, ep.PROJECT_PAGES_DOMAIN_UPDATE, project, domain)
        return b.PROJECT_PAGES_DOMAIN_UPDATE.parse(self.client.decode(response))

    async def delete(self, project: ProjectRef, domain: str) -> None:
        await self.client.delete(ep.PROJECT_PAGES_DOMAIN_DELETE.path(project, domain))
        forget(self.client, ep.PROJECT_PAGES_DOMAIN_DELETE, project, domain)
