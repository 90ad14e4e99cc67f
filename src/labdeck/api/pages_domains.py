"""The Pages domains service: every domain of the instance (administrators), a project's domains, create,
update, delete. Certificate and key are PEM text, sent as form fields or, with `as_files=True`, as uploaded
files; `remove_certificate()` sends both empty, which detaches the certificate. The only module that knows
these paths."""

from __future__ import annotations

from typing import Any

from labdeck.api.client import ApiClient
from labdeck.api.models.base import parse_many, parse_one
from labdeck.api.models.project_resources import PagesDomain
from labdeck.api.projects import ProjectRef, forget
from labdeck.domain.paths import segment


class PagesDomainsService:
    def __init__(self, client: ApiClient) -> None:
        self.client = client

    def _path(self, project: ProjectRef, domain: str | None = None) -> str:
        base = f"/projects/{segment(project)}/pages/domains"
        return base if domain is None else f"{base}/{segment(domain)}"

    def _forget(self, project: ProjectRef) -> None:
        forget(self.client, self._path(project))
        forget(self.client, "/pages/domains")

    async def all_domains(self, *, refresh: bool = False) -> list[PagesDomain]:
        """Every domain with its project id and certificate expiry (administrators only)."""
        return parse_many(PagesDomain, await self.client.get_list("/pages/domains", refresh=refresh))

    async def domains(self, project: ProjectRef, *, refresh: bool = False) -> list[PagesDomain]:
        return parse_many(PagesDomain, await self.client.get_list(self._path(project), refresh=refresh))

    async def domain(self, project: ProjectRef, domain: str) -> PagesDomain:
        return parse_one(PagesDomain, await self.client.get_json(self._path(project, domain)))

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
        response = await self.client.post_json(self._path(project), data=data, files=files)
        self._forget(project)
        return parse_one(PagesDomain, response)

    async def update(self, project: ProjectRef, domain: str, *, auto_ssl_enabled: bool | None = None,
                     certificate: str | None = None, key: str | None = None,
                     as_files: bool = False) -> PagesDomain:
        data, files = self._form({"auto_ssl_enabled": auto_ssl_enabled}, certificate, key, as_files)
        response = await self.client.request("PUT", self._path(project, domain), data=data, files=files)
        self._forget(project)
        return parse_one(PagesDomain, self.client.decode(response))

    async def remove_certificate(self, project: ProjectRef, domain: str) -> PagesDomain:
        """Detach the certificate (empty `certificate` and `key`); `auto_ssl_enabled` goes off too."""
        response = await self.client.request("PUT", self._path(project, domain),
                                             data={"certificate": "", "key": ""})
        self._forget(project)
        return parse_one(PagesDomain, self.client.decode(response))

    async def delete(self, project: ProjectRef, domain: str) -> None:
        await self.client.delete(self._path(project, domain))
        self._forget(project)
