"""The CI/CD variables service: project and group variables (`/projects/:id/variables`,
`/groups/:id/variables`, with environment scopes; one set of methods taking the owner, `("projects", ref)` or
`("groups", ref)`) and instance variables (`/admin/ci/variables`, administrators). Keys, instance value
lengths, masked values, descriptions (255 characters) and hidden variables are checked with the domain
rules before anything is sent (`VariableError`, shaped like the server's field errors). `raw` and
`description` can be set on create and update; `masked_and_hidden` only on create (GitLab refuses to
hide an existing variable). Paths come from the endpoint catalogue."""

from __future__ import annotations

from typing import Any, Literal

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.groups import GroupRef
from labdeck.api.models.variables import CiVariable
from labdeck.api.projects import ProjectRef
from labdeck.domain import catalogue as ep
from labdeck.domain.ci_variables import VARIABLE_TYPES, variable_errors

VariableType = Literal["env_var", "file"]
Owner = tuple[Literal["projects", "groups"], ProjectRef | GroupRef]  # whose variables


class VariableError(ValueError):
    """A variable that breaks the rules; `errors` maps a field to its messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{field} {', '.join(msgs)}" for field, msgs in errors.items()))


def _check(key: str, value: str, *, masked: bool | None, instance: bool, variable_type: str | None,
           raw: bool | None = None, description: str | None = None, hidden: bool = False) -> None:
    errors = variable_errors(key, value, masked=bool(masked) or hidden, instance=instance, raw=bool(raw),
                             description=description)
    if variable_type is not None and variable_type not in VARIABLE_TYPES:
        errors["variable_type"] = ["does not have a valid value"]
    if errors:
        raise VariableError(errors)


def _body(value: str, variable_type: str | None, protected: bool | None, masked: bool | None,
          **extra: Any) -> dict[str, Any]:
    body = {"value": value, "variable_type": variable_type, "protected": protected, "masked": masked, **extra}
    return {k: v for k, v in body.items() if v is not None}


def _hidden_body(body: dict[str, Any], masked_and_hidden: bool) -> dict[str, Any]:
    """`masked_and_hidden` replaces `masked` on create (GitLab's parameter for a hidden variable)."""
    if masked_and_hidden:
        body.pop("masked", None)
        body["masked_and_hidden"] = True
    return body


class VariablesService:
    """Project, group and instance CI/CD variables on one instance."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    # -- project and group variables (one set of methods, the owner says which) ----------------------
    @staticmethod
    def _scope(environment_scope: str | None) -> dict[str, Any] | None:
        return {"filter": {"environment_scope": environment_scope}} if environment_scope else None

    async def variables(self, owner: Owner, *, refresh: bool = False) -> list[CiVariable]:
        """The variables of a project (`("projects", ref)`) or a group (`("groups", ref)`)."""
        return await b.owned(owner[0]).variables.read(self.client, owner[1], refresh=refresh)

    async def variable(self, owner: Owner, key: str, *,
                       environment_scope: str | None = None) -> CiVariable:
        """One variable of a project or group (of `environment_scope` where the key has several: GitLab
        answers 409 without it); `NotFound` when there is none."""
        return await b.owned(owner[0]).variable.read(self.client, owner[1], key,
                                                     params=self._scope(environment_scope))

    async def create_variable(self, owner: Owner, key: str, value: str, *,
                              variable_type: VariableType | None = None, protected: bool | None = None,
                              masked: bool | None = None, environment_scope: str | None = None,
                              raw: bool | None = None, description: str | None = None,
                              masked_and_hidden: bool = False) -> CiVariable:
        """A new variable; `masked_and_hidden` makes it masked and hidden for good (its value is never
        shown again, by GitLab or by labdeck)."""
        _check(key, value, masked=masked, instance=False, variable_type=variable_type, raw=raw,
               description=description, hidden=masked_and_hidden)
        body = _hidden_body(_body(value, variable_type, protected, masked, key=key,
                                  environment_scope=environment_scope, raw=raw, description=description),
                            masked_and_hidden)
        try:
            create = b.owned(owner[0]).variable_create
            return create.parse(await self.client.post_json(create.path(owner[1]), body))
        finally:
            self.client.cache.forget(ep.owned(owner[0])["variable_create"], owner[1])

    async def update_variable(self, owner: Owner, key: str, value: str, *,
                              variable_type: VariableType | None = None, protected: bool | None = None,
                              masked: bool | None = None, environment_scope: str | None = None,
                              new_environment_scope: str | None = None, raw: bool | None = None,
                              description: str | None = None) -> CiVariable:
        """Update the variable `key` (of `environment_scope` when several scopes share the key)."""
        _check(key, value, masked=masked, instance=False, variable_type=variable_type, raw=raw,
               description=description)
        body = _body(value, variable_type, protected, masked, environment_scope=new_environment_scope,
                     raw=raw, description=description)
        update = b.owned(owner[0]).variable_update
        try:
            updated = await self.client.put_json(update.path(owner[1], key), body,
                                                 params=self._scope(environment_scope))
        finally:
            self.client.cache.forget(update.endpoint, owner[1], key)
        return update.parse(updated)

    async def delete_variable(self, owner: Owner, key: str, *, environment_scope: str | None = None) -> None:
        endpoint = ep.owned(owner[0])["variable_delete"]
        try:
            await self.client.delete(endpoint.path(owner[1], key), params=self._scope(environment_scope))
        finally:
            self.client.cache.forget(endpoint, owner[1], key)

    # -- instance variables ---------------------------------------------------------------------------
    async def instance_variables(self, *, refresh: bool = False) -> list[CiVariable]:
        return await b.INSTANCE_VARIABLES.read(self.client, refresh=refresh)

    async def instance_variable(self, key: str) -> CiVariable:
        """One instance variable; `NotFound` when there is none."""
        return await b.INSTANCE_VARIABLE.read(self.client, key)

    async def create_instance_variable(self, key: str, value: str, *,
                                       variable_type: VariableType | None = None,
                                       protected: bool | None = None,
                                       masked: bool | None = None, raw: bool | None = None,
                                       description: str | None = None) -> CiVariable:
        _check(key, value, masked=masked, instance=True, variable_type=variable_type, raw=raw,
               description=description)
        body = _body(value, variable_type, protected, masked, key=key, raw=raw, description=description)
        try:
            created = await self.client.post_json(ep.INSTANCE_VARIABLE_CREATE.path(), body)
            return b.INSTANCE_VARIABLE_CREATE.parse(created)
        finally:
            self.client.cache.forget(ep.INSTANCE_VARIABLE_CREATE)

    async def update_instance_variable(self, key: str, value: str, *,
                                       variable_type: VariableType | None = None,
                                       protected: bool | None = None,
                                       masked: bool | None = None, raw: bool | None = None,
                                       description: str | None = None) -> CiVariable:
        _check(key, value, masked=masked, instance=True, variable_type=variable_type, raw=raw,
               description=description)
        body = _body(value, variable_type, protected, masked, raw=raw, description=description)
        try:
            updated = await self.client.put_json(ep.INSTANCE_VARIABLE_UPDATE.path(key), body)
        finally:
            self.client.cache.forget(ep.INSTANCE_VARIABLE_UPDATE, key)
        return b.INSTANCE_VARIABLE_UPDATE.parse(updated)

    async def delete_instance_variable(self, key: str) -> None:
        try:
            await self.client.delete(ep.INSTANCE_VARIABLE_DELETE.path(key))
        finally:
            self.client.cache.forget(ep.INSTANCE_VARIABLE_DELETE, key)
