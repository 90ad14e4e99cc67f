"""The deployments service: a project's deployments (filtered and sorted by the server), one deployment,
the merge requests it shipped, creating a deployment record and changing its status; environments; and
protected environments (who may deploy) with their rules.

Lists go through the client's cache (`refresh=True` forces a fetch); every mutation invalidates its
family through the client. Deploy rules are checked with the domain's exactly-one rule before sending.
A rule is added or removed in one `PUT` on GitLab 15.4+ (`change_rules`: the environment stays protected,
the journal can undo it); before 15.4 the only way is unprotect then protect (`_replace`), whose risk is
said first (`two_step_risk`) and whose failure to protect again is said loudly (`LeftUnprotected`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime
from typing import Any

from labdeck.api import bindings as b
from labdeck.api import body
from labdeck.api.client import ApiClient
from labdeck.api.errors import ApiError, LabdeckError, MalformedResponse, NotFound, may_have_applied
from labdeck.api.models.deployments import (
    DeployAccessLevel,
    Deployment,
    DeploymentRow,
    Environment,
    ProtectedEnvironment,
    ShippedMergeRequest,
)
from labdeck.api.models.fast_lists import fast_decoder
from labdeck.api.projects import forget
from labdeck.domain import catalogue as ep
from labdeck.domain.deploy_failures import FailureWindow
from labdeck.domain.deployments import SETTABLE_STATUSES, DeployRule, parse_rule, sha_problem
from labdeck.domain.digits import integer_value, parse_digits
from labdeck.domain.features import PROTECTED_ENVIRONMENT_UPDATE, Feature
from labdeck.domain.text import sanitize

Ref = int | str
FAILED_PAGE = 100  # failed deployments read per project for a count (more: the server's x-total counts)
Progress = Callable[[int, int | None], None]  # (read so far, total when the server said)


def _when(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def _check_status(status: str) -> None:
    """`ValueError` before anything is sent when GitLab would refuse `status` on create or update."""
    if status not in SETTABLE_STATUSES:
        raise ValueError(f"status must be one of {', '.join(SETTABLE_STATUSES)}")


def deployment_rows() -> body.PageDecode | None:
    """How a listing page becomes board rows: parsed from the bytes, or decoded for `parse_many`."""
    fast = fast_decoder(b.DEPLOYMENT_ROWS.model)
    return None if fast is None else body.page_decoder(fast.decode)


Confirm = Callable[[], Awaitable[bool]]


def two_step_risk(environment: str) -> str:
    """What changing the rules of `environment` risks on GitLab before 15.4 (said before it is done)."""
    return (f"GitLab before 15.4 cannot change rules in place: labdeck will unprotect {environment} and "
            f"protect it again; if that second request fails, {environment} stays unprotected")


class NotSent(LabdeckError):
    """The operator did not agree to the two-step change: nothing was sent."""


class RuleNotApplied(LabdeckError):
    """GitLab answered a change in place without the rule it was to add (it leaves out, without a word, a
    user without Developer access and a group the project is not shared with)."""


class InPlaceUnsupported(LabdeckError):
    """The instance has no `PUT` for protected environments (GitLab before 15.4): nothing was changed."""


class LeftUnprotected(LabdeckError):
    """The two-step change (GitLab before 15.4) unprotected `environment` and could not protect it again:
    `rules` are the ones it had, for the offer to protect it again."""

    def __init__(self, environment: str, rules: list[DeployRule], cause: BaseException) -> None:
        self.environment, self.rules = environment, rules
        shown = sanitize(environment)
        super().__init__(f"{shown} is NOT protected: labdeck unprotected it to change its rules and could "
                         f"not protect it again ({cause})")


async def _agreed(confirm: Confirm | None, environment: str) -> None:
    if confirm is not None and not await confirm():
        raise NotSent(f"the rules of {sanitize(environment)} were left as they were: nothing was sent")


def rule_of(level: DeployAccessLevel) -> DeployRule:
    """The rule a listed deploy access level stands for (a user or group rule carries no level)."""
    return DeployRule(access_level=None if level.user_id or level.group_id else level.access_level,
                      user_id=level.user_id, group_id=level.group_id)


def _id_of(item: Any) -> int | None:
    """The `id` of an object in an answer, or None (absent, or not an integer)."""
    return integer_value(item.get("id")) if isinstance(item, dict) else None


class DeploymentsService:
    """Every deployments and environments endpoint labdeck uses. `project` is an id or a full path."""

    def __init__(self, client: ApiClient, *,
                 supports: Callable[[Feature], str | None] = lambda feature: None) -> None:
        self.client = client
        self._supports = supports  # the instance's answer for a feature: None, or why it lacks it

    # -- deployments ------------------------------------------------------------------------------------
    async def deployments(self, project: Ref, *, environment: str | None = None, status: str | None = None,
                          order_by: str = "id", sort: str = "asc", updated_after: datetime | None = None,
                          updated_before: datetime | None = None, refresh: bool = False,
                          on_progress: Progress | None = None) -> list[Deployment]:
        params: dict[str, Any] = {
            "environment": environment or None, "status": status or None, "order_by": order_by,
            "sort": sort, "updated_after": _when(updated_after), "updated_before": _when(updated_before)}
        return await b.DEPLOYMENTS.read(self.client, project, params=params, refresh=refresh,
                                        on_progress=on_progress)

    async def deployment_rows(self, project: Ref, *, updated_after: datetime,
                              refresh: bool = False) -> list[DeploymentRow]:
        """Deployments updated after `updated_after`, oldest first, with only what the group board shows
        (parsed from the bytes: a board reads thousands)."""
        params = {"order_by": "id", "sort": "asc", "updated_after": _when(updated_after)}
        return await b.DEPLOYMENT_ROWS.read(self.client, project, params=params, refresh=refresh,
                                            decode=deployment_rows())

    async def failed(self, project: Ref, window: FailureWindow,
                     per_page: int = FAILED_PAGE) -> tuple[list[Deployment], int]:
        """The deployments that failed in `window` (`deploy_failures`), newest first, from one page of the
        server's `status=failed&updated_after=` listing (GitLab pairs an `updated_at` filter with
        `order_by=updated_at`, `app/finders/deployments_finder.rb`), and how many there are: the server's
        `x-total` when more pages follow, else those of the page that the window holds."""
        params = {"status": "failed", "updated_after": _when(window.since), "order_by": "updated_at",
                  "sort": "desc", "per_page": per_page}
        page = await self.client.get_page(ep.DEPLOYMENTS.path(project), params)
        found = window.failed(b.DEPLOYMENTS.parse_clean(page.items))
        more = page.next_url is not None and page.total is not None
        return found, page.total if more and page.total is not None else len(found)

    async def deployment(self, project: Ref, deployment_id: int) -> Deployment:
        return await b.DEPLOYMENT.read(self.client, project, deployment_id)

    async def merge_requests(self, project: Ref, deployment_id: int) -> list[ShippedMergeRequest]:
        shipped = b.DEPLOYMENT_MERGE_REQUESTS
        return shipped.parse(await self.client.fetch_all(shipped.path(project, deployment_id)))  # uncached

    async def create_deployment(self, project: Ref, *, environment: str, sha: str, ref: str, tag: bool,
                                status: str = "running") -> Deployment:
        """A deployment record (no CI job) with its status, always sent: GitLab requires one of `running`,
        `success`, `failed`, `canceled` (400 `status is missing` otherwise; `created` is refused)."""
        _check_status(status)
        if (problem := sha_problem(sha)) is not None:  # `zzz-not-a-sha` is never sent
            raise ValueError(problem)
        body = {"environment": environment, "sha": sha, "ref": ref, "tag": tag, "status": status}
        data = await self.client.post_json(ep.DEPLOYMENT_CREATE.path(project), json=body)
        # A new environment may have been created: that list is another family (the catalogue's `also`).
        forget(self.client, ep.DEPLOYMENT_CREATE, project)
        return b.DEPLOYMENT_CREATE.parse(data)

    async def set_status(self, project: Ref, deployment_id: int, status: str) -> Deployment:
        _check_status(status)
        data = await self.client.put_json(ep.DEPLOYMENT_UPDATE.path(project, deployment_id),
                                          json={"status": status})
        return b.DEPLOYMENT_UPDATE.parse(data)

    # -- environments -----------------------------------------------------------------------------------
    async def environments(self, project: Ref, *, states: str | None = None, search: str | None = None,
                           refresh: bool = False) -> list[Environment]:
        return await b.ENVIRONMENTS.read(self.client, project, params={"states": states, "search": search},
                                         refresh=refresh)

    async def environment(self, project: Ref, environment_id: int) -> Environment:
        return await b.ENVIRONMENT.read(self.client, project, environment_id)

    # -- protected environments -------------------------------------------------------------------------
    async def protected_environments(self, project: Ref, *,
                                     refresh: bool = False) -> list[ProtectedEnvironment]:
        return await b.PROTECTED_ENVIRONMENTS.read(self.client, project, refresh=refresh)

    async def protected_environment(self, project: Ref, name: str) -> ProtectedEnvironment:
        """The protection of `name`. An answer that is not that protection (another name, or something
        that is not a protection at all) is a `MalformedResponse`: what replaces a protection must never
        remove one it did not read."""
        found = await b.PROTECTED_ENVIRONMENT.read(self.client, project, name)
        if found.name != name:
            raise MalformedResponse(f"asked for the protection of environment {sanitize(name)!r}, the server "
                                    f"answered with {sanitize(str(found.name))[:80]!r}: nothing was changed")
        return found

    async def protect(self, project: Ref, name: str,
                      rules: Iterable[DeployRule | dict[str, Any]]) -> ProtectedEnvironment:
        """Protect `name` with `rules`; each is checked (exactly one of user, group, level; valid level)
        before anything is sent (`RuleError`)."""
        checked = [rule if isinstance(rule, DeployRule) else parse_rule(rule, index)
                   for index, rule in enumerate(rules)]
        if not checked:
            raise ValueError("at least one deploy rule is needed")
        for index, rule in enumerate(checked):
            parse_rule(rule.as_json(), index)
        body = {"name": name, "deploy_access_levels": [rule.as_json() for rule in checked]}
        data = await self.client.post_json(ep.PROTECTED_ENVIRONMENT_CREATE.path(project), json=body)
        return b.PROTECTED_ENVIRONMENT_CREATE.parse(data)

    def rules_in_place(self) -> bool:
        """Whether this instance changes deploy rules in one request (`PUT`, GitLab 15.4+); an instance whose
        version is not known is taken to (a `PUT` it does not serve is said plainly, `InPlaceUnsupported`)."""
        return self._supports(PROTECTED_ENVIRONMENT_UPDATE) is None

    async def change_rules(self, project: Ref, name: str,
                           entries: list[dict[str, Any]]) -> ProtectedEnvironment:
        """One `PUT .../protected_environments/:name` with `deploy_access_levels` as nested records (an
        entry with `id` and `_destroy: true` drops a rule, one without `id` adds one): the environment stays
        protected throughout, and the journal keeps the rules before it to undo it."""
        try:
            data = await self.client.put_json(ep.PROTECTED_ENVIRONMENT_UPDATE.path(project, name),
                                              json={"deploy_access_levels": entries})
        except NotFound as error:
            if str(error.message).strip() == "404 Not Found":  # GitLab's catch-all: no such route
                raise InPlaceUnsupported(f"this GitLab cannot change the rules of {sanitize(name)} in place "
                                         "(that needs GitLab 15.4): nothing was changed") from None
            raise
        return b.PROTECTED_ENVIRONMENT_UPDATE.parse(data)

    async def add_rule(self, project: Ref, name: str, rule: DeployRule, *,
                       confirm_two_step: Confirm | None = None) -> ProtectedEnvironment:
        """Add one deploy rule: protects `name` when it is not yet protected; else one `PUT` adds it (15.4+;
        `RuleNotApplied` when GitLab leaves it out), or, before 15.4, the protection is replaced by one with
        the old rules plus `rule` (`_replace`), once `confirm_two_step` (when given) agrees to the risk."""
        parse_rule(rule.as_json())
        try:
            current = await self.protected_environment(project, name)
        except NotFound:
            return await self.protect(project, name, [rule])
        if self.rules_in_place():
            changed = await self.change_rules(project, name, [rule.as_json()])
            if rule not in [rule_of(level) for level in changed.deploy_access_levels]:
                raise RuleNotApplied(f"GitLab left the rule out of {sanitize(name)}: a user needs at least "
                                     "Developer access to the project, a group must have the project shared "
                                     "with it")
            return changed
        old = [rule_of(level) for level in current.deploy_access_levels]
        await _agreed(confirm_two_step, name)
        return await self._replace(project, name, old, [*old, rule])

    async def remove_rule(self, project: Ref, name: str, rule: DeployRule, *,
                          confirm_two_step: Confirm | None = None) -> ProtectedEnvironment | None:
        """Remove `rule` (matched by value on the current protection, so a stale list cannot remove the
        wrong one; `LookupError` when it is no longer there); removing the last rule unprotects the
        environment (None: GitLab keeps no protection without a rule). Otherwise one `PUT` drops it by its
        id (15.4+), or, before 15.4, the protection is replaced (`_replace`, after `confirm_two_step`)."""
        current = await self.protected_environment(project, name)
        levels = current.deploy_access_levels
        old = [rule_of(level) for level in levels]
        if rule not in old:
            raise LookupError(f"{name} has no such rule any more")
        index = old.index(rule)
        if len(old) == 1:
            await self.unprotect(project, name)
            return None
        if self.rules_in_place():
            ident = levels[index].id
            if ident is None:
                raise MalformedResponse(f"the server gave no id for that rule of {sanitize(name)}: nothing "
                                        "was changed")
            return await self.change_rules(project, name, [{"id": ident, "_destroy": True}])
        await _agreed(confirm_two_step, name)
        return await self._replace(project, name, old, old[:index] + old[index + 1:])

    async def _replace(self, project: Ref, name: str, old: list[DeployRule],
                       new: list[DeployRule]) -> ProtectedEnvironment:
        """GitLab before 15.4: unprotect, then protect with `new`. Both sets are checked before the first
        request. When the second request fails the old rules are put back (after a refusal at once, after
        a lost answer when a re-read finds it unprotected); when they cannot be, `LeftUnprotected` says so
        loudly (the caller offers to protect it again with `protect`)."""
        for index, rule in enumerate([*new, *old]):
            parse_rule(rule.as_json(), index)
        await self.unprotect(project, name)
        try:
            return await self.protect(project, name, new)
        except LabdeckError as error:
            await self._put_back(project, name, old, error)
            raise

    async def _put_back(self, project: Ref, name: str, old: list[DeployRule], error: LabdeckError) -> None:
        try:
            if (isinstance(error, ApiError) and not may_have_applied(error)) \
                    or not await self._protected(project, name):
                await self.protect(project, name, old)
        except LabdeckError as again:
            raise LeftUnprotected(name, old, again) from error

    async def _protected(self, project: Ref, name: str) -> bool:
        try:
            await self.protected_environment(project, name)
        except NotFound:
            return False
        return True

    async def unprotect(self, project: Ref, name: str) -> None:
        await self.client.delete(ep.PROTECTED_ENVIRONMENT_DELETE.path(project, name))

    # -- pickers ----------------------------------------------------------------------------------------
    async def find_user_id(self, who: str) -> int | None:
        """A user's id from a username (or a numeric id as is); None when nobody has that username."""
        who = who.strip().lstrip("@")
        number = parse_digits(who)
        if number is not None:
            return number
        items = await self.client.get_json(ep.USERS.path(), {"username": who})
        return _id_of(items[0]) if isinstance(items, list) and items else None

    async def find_group_id(self, group: str) -> int | None:
        """A group's id from its full path (or a numeric id as is); None when not found."""
        group = group.strip()
        number = parse_digits(group)
        if number is not None:
            return number
        try:
            data = await self.client.get_json(ep.GROUP.path(group), {"with_projects": "false"})
        except NotFound:
            return None
        return _id_of(data)
