"""The endpoint catalogue: every REST endpoint labdeck calls (paths relative to `/api/v4`), declared once.

Each endpoint also says which query parameters labdeck may send it (`params`, and `paged` for the
pagination ones), which `ApiClient.request` enforces; the feature it needs (`feature=needs.ITERATIONS`, a
`labdeck.domain.features.Feature`) and the journal's rule for undoing a change through it
(`undo=ISSUE_UNDO`, or a rule given the endpoints it reaches: `LabelDeletion(GROUP_LABEL_CREATE, ...)`;
`labdeck.domain.undo_rules`): objects it holds, never names. The model of its body is the api's binding
(`labdeck.api.bindings`: `Listing(ep.PROJECT_TAGS, RepositoryTag)`).

Read by the services (`ENDPOINT.path(...)`: a service never writes a path), the journal (`journal_rules`
matches a request against these templates and asks the endpoint's rule), list cache invalidation
(`families`), the capability checks (`domain.capabilities`) and the sandbox, which mounts a route only where
the edition and version played have its feature and lets a CI job token in only where `job_token` says
(doc/ci/jobs/ci_job_token.md). Facts come from GitLab's API docs ("Introduced in GitLab X.Y") and `ee/lib`
(Premium routes); an endpoint without a feature exists everywhere.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from labdeck.domain import features as needs
from labdeck.domain.access_tokens import TOKEN_UNDO
from labdeck.domain.endpoints import Endpoint, find, names, shape
from labdeck.domain.features import Feature
from labdeck.domain.protection_rules import ProtectionChange
from labdeck.domain.undo_rules import (
    ISSUE_UNDO,
    PROJECT_UNDO,
    REGISTRY_UNDO,
    BadgeDeletion,
    LabelDeletion,
    MemberChange,
    ProjectArchiving,
    TagDeletion,
    UserModeration,
    VariableDeletion,
)

E = Endpoint
# Query parameters several listings share (the names of GitLab's API docs, doc/api/*.md), beside PAGINATION.
_USER_QUERY = names("username search active blocked exclude_internal")  # users.md
# groups.md (lib/api/groups.rb `group_list_params`); a group's subgroups are never filtered by the two last
_GROUP_QUERY = names("search skip_groups all_available statistics with_custom_attributes owned "
                     "min_access_level top_level_only custom_attributes")
_SUBGROUP_QUERY = _GROUP_QUERY - names("top_level_only custom_attributes")
# "List a group's shared projects" takes these; "List a group's projects" these and the ones after
_SHARED_PROJECT_QUERY = names("archived visibility search simple starred with_issues_enabled "
                              "with_merge_requests_enabled min_access_level with_custom_attributes")
_PROJECT_QUERY = _SHARED_PROJECT_QUERY | names("owned with_shared include_subgroups with_security_reports "
                                               "statistics")
_FORK_QUERY = names("archived membership min_access_level owned search simple starred statistics "
                    "updated_after updated_before visibility with_custom_attributes with_issues_enabled "
                    "with_merge_requests_enabled")  # projects.md, "List forks of a project"
_ISSUE_QUERY = names("labels not iids search in author_id author_username assignee_id assignee_username "
                     "milestone weight my_reaction_emoji confidential created_after created_before "
                     "updated_after updated_before state scope due_date issue_type iteration_id "
                     "iteration_title with_labels_details")  # issues.md (domain/issue_listing.py)
_LABEL_QUERY = names("with_counts include_ancestor_groups include_descendant_groups only_group_labels search")
_ITERATION_QUERY = names("state search include_ancestors")  # iterations.md, group_iterations.md
_SCOPE = names("filter")  # `filter[environment_scope]` (variables.md)
_USERS = "/users"
_GROUP = "/groups/{group}"
_PROJECT = "/projects/{project}"
_ISSUE = _PROJECT + "/issues/{iid:int}"
_REPO = _PROJECT + "/registry/repositories/{repository_id:int}"

# -- instance ---------------------------------------------------------------------------------------------
VERSION = E("GET", "/version")
METADATA = E("GET", "/metadata", feature=needs.METADATA)
CURRENT_USER = E("GET", "/user")
CURRENT_JOB = E("GET", "/job", feature=needs.JOB_TOKEN_JOB, job_token=True)
APPLICATION_SETTINGS = E("GET", "/application/settings")
ALL_PAGES_DOMAINS = E("GET", "/pages/domains", paged=True)
INSTANCE_VARIABLES = E("GET", "/admin/ci/variables", paged=True)
INSTANCE_VARIABLE_CREATE = E("POST", "/admin/ci/variables")
INSTANCE_VARIABLE = E("GET", "/admin/ci/variables/{key}", params=_SCOPE)
INSTANCE_VARIABLE_UPDATE = E("PUT", "/admin/ci/variables/{key}", family="/admin/ci/variables", params=_SCOPE)
INSTANCE_VARIABLE_DELETE = E("DELETE", "/admin/ci/variables/{key}", family="/admin/ci/variables",
                             undo=VariableDeletion(INSTANCE_VARIABLE_CREATE), params=_SCOPE)

# -- users ------------------------------------------------------------------------------------------------
USERS = E("GET", _USERS, params=_USER_QUERY, paged=True)
USER = E("GET", _USERS + "/{user_id:int}")
USER_MODERATION: Final[dict[str, Endpoint]] = {}  # filled below: its rule undoes one operation by another
_MODERATION_UNDO: Final = UserModeration(read=USER, operations=USER_MODERATION)
USER_MODERATION.update({
    op: E("POST", _USERS + "/{user_id:int}/" + op, family=_USERS, undo=_MODERATION_UNDO)
    for op in ("approve", "reject", "deactivate", "activate", "block", "unblock", "ban", "unban")})

USER_MEMBERSHIPS = E("GET", _USERS + "/{user_id:int}/memberships", feature=needs.USER_MEMBERSHIPS,
                     params=names("type"), paged=True)  # administrators; direct memberships only (users.md)

# -- access tokens (personal_access_tokens.md, group_access_tokens.md, project_access_tokens.md) -------------
# The listings' filters (lib/api/helpers/personal_access_tokens_helpers.rb `access_token_params`); a rotation
# is never sent twice (a second one would find the old token revoked, and GitLab then revokes the new one too:
# "automatic reuse detection"), and neither a revoke nor a rotation has an inverse (`TOKEN_UNDO`).
_TOKEN_QUERY = names("state revoked search created_before created_after last_used_before last_used_after "
                     "expires_before expires_after sort")
_PATS = "/personal_access_tokens"
PERSONAL_ACCESS_TOKENS = E("GET", _PATS, feature=needs.PERSONAL_ACCESS_TOKENS,
                           params=_TOKEN_QUERY | names("user_id"), paged=True)
PERSONAL_ACCESS_TOKEN = E("GET", _PATS + "/{token_id:int}", feature=needs.PERSONAL_ACCESS_TOKEN)
PERSONAL_ACCESS_TOKEN_ROTATE = E("POST", _PATS + "/{token_id:int}/rotate", family=_PATS,
                                 feature=needs.TOKEN_ROTATION, undo=TOKEN_UNDO, retry_safe=False)
PERSONAL_ACCESS_TOKEN_REVOKE = E("DELETE", _PATS + "/{token_id:int}", family=_PATS,
                                 feature=needs.PERSONAL_ACCESS_TOKENS, undo=TOKEN_UNDO)


def _resource_tokens(owner: str, listed: Feature, one: Feature) -> dict[str, Endpoint]:
    """The access tokens of `owner` (a group's or a project's template), as both kinds have them."""
    tokens = owner + "/access_tokens"
    return {
        "list": E("GET", tokens, feature=listed, params=_TOKEN_QUERY, paged=True),
        "get": E("GET", tokens + "/{token_id:int}", feature=one),
        "rotate": E("POST", tokens + "/{token_id:int}/rotate", family=tokens, feature=needs.TOKEN_ROTATION,
                    undo=TOKEN_UNDO, retry_safe=False),
        "revoke": E("DELETE", tokens + "/{token_id:int}", family=tokens, feature=listed, undo=TOKEN_UNDO),
    }


GROUP_ACCESS_TOKENS: Final = _resource_tokens(_GROUP, needs.GROUP_ACCESS_TOKENS, needs.GROUP_ACCESS_TOKEN)
PROJECT_ACCESS_TOKENS: Final = _resource_tokens(_PROJECT, needs.PROJECT_ACCESS_TOKENS,
                                                needs.PROJECT_ACCESS_TOKEN)


def resource_tokens(kind: str) -> dict[str, Endpoint]:
    """The access token endpoints of `groups` or `projects` (`ValueError` for anything else)."""
    if kind == "groups":
        return GROUP_ACCESS_TOKENS
    if kind == "projects":
        return PROJECT_ACCESS_TOKENS
    raise ValueError(f"unknown token owner kind {kind!r}")

# -- groups -----------------------------------------------------------------------------------------------
GROUPS = E("GET", "/groups", params=_GROUP_QUERY, paged=True)
GROUP = E("GET", _GROUP, params=names("with_projects statistics"))
GROUP_SUBGROUPS = E("GET", _GROUP + "/subgroups", params=_SUBGROUP_QUERY, paged=True)
GROUP_DESCENDANTS = E("GET", _GROUP + "/descendant_groups", params=_SUBGROUP_QUERY, paged=True)
GROUP_PROJECTS = E("GET", _GROUP + "/projects", params=_PROJECT_QUERY, paged=True)
GROUP_SHARED_PROJECTS = E("GET", _GROUP + "/projects/shared", params=_SHARED_PROJECT_QUERY, paged=True)
GROUP_ISSUES = E("GET", _GROUP + "/issues", params=_ISSUE_QUERY, paged=True)
GROUP_MILESTONES = E("GET", _GROUP + "/milestones",  # doc/api/group_milestones.md
                     params=names("search title include_ancestors include_descendants"), paged=True)
GROUP_ITERATIONS = E("GET", _GROUP + "/iterations", feature=needs.ITERATIONS, params=_ITERATION_QUERY,
                     paged=True)
GROUP_REGISTRY_REPOSITORIES = E("GET", _GROUP + "/registry/repositories", params=names("tags_count"),
                                paged=True)
GROUP_EXPORT = E("POST", _GROUP + "/export", feature=needs.GROUP_EXPORT)
GROUP_EXPORT_DOWNLOAD = E("GET", _GROUP + "/export/download", feature=needs.GROUP_EXPORT)
GROUP_IMPORT = E("POST", "/groups/import", family="/groups")
GROUP_RELATIONS_EXPORT = E("POST", _GROUP + "/export_relations", feature=needs.RELATIONS_EXPORT)
GROUP_RELATIONS_STATUS = E("GET", _GROUP + "/export_relations/status", feature=needs.RELATIONS_EXPORT)
GROUP_RELATIONS_DOWNLOAD = E("GET", _GROUP + "/export_relations/download", feature=needs.RELATIONS_EXPORT,
                             params=names("relation"))
GROUP_BADGES = E("GET", _GROUP + "/badges", params=names("name"), paged=True)
GROUP_BADGE_CREATE = E("POST", _GROUP + "/badges")
GROUP_BADGE = E("GET", _GROUP + "/badges/{badge_id:int}")
GROUP_BADGE_UPDATE = E("PUT", _GROUP + "/badges/{badge_id:int}", family=_GROUP + "/badges")
GROUP_BADGE_DELETE = E("DELETE", _GROUP + "/badges/{badge_id:int}", family=_GROUP + "/badges",
                       undo=BadgeDeletion(GROUP_BADGE_CREATE))
GROUP_BADGE_RENDER = E("GET", _GROUP + "/badges/render", params=names("link_url image_url"))
GROUP_LABELS = E("GET", _GROUP + "/labels", params=_LABEL_QUERY, paged=True)
GROUP_LABEL_CREATE = E("POST", _GROUP + "/labels")
GROUP_LABEL = E("GET", _GROUP + "/labels/{label}")
GROUP_LABEL_UPDATE = E("PUT", _GROUP + "/labels/{label}", family=_GROUP + "/labels")
GROUP_LABEL_DELETE = E("DELETE", _GROUP + "/labels/{label}", family=_GROUP + "/labels",
                       undo=LabelDeletion(GROUP_LABEL_CREATE, read=GROUP_LABEL))
GROUP_LABEL_SUBSCRIBE = E("POST", _GROUP + "/labels/{label}/subscribe", family=_GROUP + "/labels")
GROUP_LABEL_UNSUBSCRIBE = E("POST", _GROUP + "/labels/{label}/unsubscribe", family=_GROUP + "/labels")
GROUP_BILLABLE_MEMBERS = E("GET", _GROUP + "/billable_members", feature=needs.BILLABLE_MEMBERS,
                           params=names("search sort"), paged=True)
GROUP_BILLABLE_MEMBERSHIPS = E("GET", _GROUP + "/billable_members/{user_id:int}/memberships",
                               feature=needs.BILLABLE_MEMBERS, paged=True)
GROUP_BILLABLE_MEMBER_DELETE = E("DELETE", _GROUP + "/billable_members/{user_id:int}",
                                 family=_GROUP + "/members", also=(_GROUP + "/billable_members", "/projects"),
                                 feature=needs.BILLABLE_MEMBERS)
GROUP_MEMBER_OVERRIDE = E("POST", _GROUP + "/members/{user_id:int}/override", feature=needs.MEMBER_OVERRIDE,
                          family=_GROUP + "/members", also=(_GROUP + "/billable_members",))
GROUP_MEMBER_OVERRIDE_DELETE = E("DELETE", _GROUP + "/members/{user_id:int}/override",
                                 feature=needs.MEMBER_OVERRIDE, family=_GROUP + "/members",
                                 also=(_GROUP + "/billable_members",))


def _owned(owner: str, billable: bool) -> dict[str, Endpoint]:
    """Members and CI variables, which groups and projects both have, under `owner` (a template)."""
    members = owner + "/members"
    also = (owner + "/billable_members",) if billable else ()
    variables = owner + "/variables"
    listed = names("query user_ids")
    member_add = E("POST", members, also=also)
    member_undo = MemberChange(add=member_add)
    variable_create = E("POST", variables)
    return {
        "members": E("GET", members, params=listed, paged=True),
        "members_all": E("GET", members + "/all", params=listed, paged=True),
        "member": E("GET", members + "/{user_id:int}"),
        "member_all": E("GET", members + "/all/{user_id:int}"),
        "member_add": member_add,
        "member_update": E("PUT", members + "/{user_id:int}", family=members, also=also, undo=member_undo),
        "member_delete": E("DELETE", members + "/{user_id:int}", family=members, also=also, undo=member_undo),
        "variables": E("GET", variables, paged=True),
        "variable_create": variable_create,
        "variable": E("GET", variables + "/{key}", params=_SCOPE),
        "variable_update": E("PUT", variables + "/{key}", family=variables, params=_SCOPE),
        "variable_delete": E("DELETE", variables + "/{key}", family=variables,
                             undo=VariableDeletion(variable_create), params=_SCOPE),
    }


GROUP_OWNED: Final = _owned(_GROUP, billable=True)
PROJECT_OWNED: Final = _owned(_PROJECT, billable=False)


def owned(kind: str) -> dict[str, Endpoint]:
    """The member and variable endpoints of `groups` or `projects` (`ValueError` for anything else)."""
    if kind == "groups":
        return GROUP_OWNED
    if kind == "projects":
        return PROJECT_OWNED
    raise ValueError(f"unknown owner kind {kind!r}")

# -- projects ---------------------------------------------------------------------------------------------
PROJECTS = E("GET", "/projects", params=names("search search_namespaces simple"), paged=True)
PROJECT = E("GET", _PROJECT)
PROJECT_UPDATE = E("PUT", _PROJECT, undo=PROJECT_UNDO)  # the journal undoes cleanup policy changes
# lib/api/projects.rb: 201 and Entities::Project; each undoes the other (the rule holds them both)
_ARCHIVING: Final[dict[str, Endpoint]] = {}
_ARCHIVE_UNDO: Final = ProjectArchiving(read=PROJECT, operations=_ARCHIVING)
PROJECT_ARCHIVE = E("POST", _PROJECT + "/archive", undo=_ARCHIVE_UNDO)
PROJECT_UNARCHIVE = E("POST", _PROJECT + "/unarchive", undo=_ARCHIVE_UNDO)
_ARCHIVING.update(archive=PROJECT_ARCHIVE, unarchive=PROJECT_UNARCHIVE)
PROJECT_MILESTONES = E("GET", _PROJECT + "/milestones", params=names("search title include_ancestors"),
                       paged=True)
PROJECT_LABELS = E("GET", _PROJECT + "/labels",  # doc/api/labels.md
                   params=names("with_counts include_ancestor_groups search"), paged=True)
PROJECT_ITERATIONS = E("GET", _PROJECT + "/iterations", feature=needs.ITERATIONS, params=_ITERATION_QUERY,
                       paged=True)
PROJECT_FORKS = E("GET", _PROJECT + "/forks", params=_FORK_QUERY, paged=True)
PROJECT_FORK = E("POST", _PROJECT + "/fork", family=_PROJECT + "/forks")
PROJECT_FORK_RELATION = E("POST", _PROJECT + "/fork/{forked_from_id:int}",
                          family="/projects/{forked_from_id}/forks")
PROJECT_FORK_RELATION_DELETE = E("DELETE", _PROJECT + "/fork")
PROJECT_ERROR_TRACKING = E("GET", _PROJECT + "/error_tracking/settings")
PROJECT_ERROR_TRACKING_UPDATE = E("PATCH", _PROJECT + "/error_tracking/settings")
PROJECT_WIKIS = E("GET", _PROJECT + "/wikis", params=names("with_content"), paged=True)
PROJECT_WIKI_CREATE = E("POST", _PROJECT + "/wikis")
PROJECT_WIKI = E("GET", _PROJECT + "/wikis/{slug:path}")
PROJECT_WIKI_UPDATE = E("PUT", _PROJECT + "/wikis/{slug:path}")
PROJECT_WIKI_DELETE = E("DELETE", _PROJECT + "/wikis/{slug:path}")
PROJECT_WIKI_ATTACHMENT = E("POST", _PROJECT + "/wikis/attachments")
PROJECT_TAGS = E("GET", _PROJECT + "/repository/tags", job_token=True, params=names("search"),
                 paged=True)  # the listing only
PROJECT_TAG_CREATE = E("POST", _PROJECT + "/repository/tags")
PROJECT_TAG = E("GET", _PROJECT + "/repository/tags/{tag:path}")
PROJECT_TAG_DELETE = E("DELETE", _PROJECT + "/repository/tags/{tag:path}",
                       undo=TagDeletion(PROJECT_TAG_CREATE))
# doc/api/branches.md, sorted by name; a CI job token is not let in (not in doc/ci/jobs/ci_job_token.md)
PROJECT_BRANCHES = E("GET", _PROJECT + "/repository/branches", paged=True)
_DOMAINS = _PROJECT + "/pages/domains"
PROJECT_PAGES_DOMAINS = E("GET", _DOMAINS, paged=True)
PROJECT_PAGES_DOMAIN_CREATE = E("POST", _DOMAINS, also=("/pages/domains",))
PROJECT_PAGES_DOMAIN = E("GET", _DOMAINS + "/{domain}")
PROJECT_PAGES_DOMAIN_UPDATE = E("PUT", _DOMAINS + "/{domain}", family=_DOMAINS, also=("/pages/domains",))
PROJECT_PAGES_DOMAIN_DELETE = E("DELETE", _DOMAINS + "/{domain}", family=_DOMAINS, also=("/pages/domains",))

# -- issues -----------------------------------------------------------------------------------------------
ISSUES = E("GET", "/issues", params=_ISSUE_QUERY, paged=True)
PROJECT_ISSUES = E("GET", _PROJECT + "/issues", params=_ISSUE_QUERY, paged=True)
ISSUE_CREATE = E("POST", _PROJECT + "/issues", also=("/issues",))
ISSUE = E("GET", _ISSUE, params=names("with_labels_details"))
ISSUE_UPDATE = E("PUT", _ISSUE, also=("/issues",), undo=ISSUE_UNDO)
ISSUE_DELETE = E("DELETE", _ISSUE, also=("/issues",))
ISSUE_NOTES = E("GET", _ISSUE + "/notes", paged=True)
ISSUE_NOTE_CREATE = E("POST", _ISSUE + "/notes", family=_ISSUE, also=("/issues",))
ISSUE_TODO = E("POST", _ISSUE + "/todo")
ISSUE_TIME_STATS = E("GET", _ISSUE + "/time_stats")
ISSUE_TIME: Final[dict[str, Endpoint]] = {
    action: E("POST", _ISSUE + "/" + action, family=_ISSUE, also=("/issues",))
    for action in ("time_estimate", "reset_time_estimate", "add_spent_time", "reset_spent_time")}
ISSUE_RELATED_MERGE_REQUESTS = E("GET", _ISSUE + "/related_merge_requests", paged=True)
ISSUE_CLOSED_BY = E("GET", _ISSUE + "/closed_by", paged=True)

# -- deployments and environments (a job token reaches every one of them) ------------------------------------
_DEPLOYMENT = _PROJECT + "/deployments/{deployment_id:int}"
DEPLOYMENTS = E("GET", _PROJECT + "/deployments", job_token=True,
                params=names("environment status updated_after updated_before"), paged=True)
DEPLOYMENT_CREATE = E("POST", _PROJECT + "/deployments", also=(_PROJECT + "/environments",), job_token=True)
DEPLOYMENT = E("GET", _DEPLOYMENT, job_token=True)
DEPLOYMENT_UPDATE = E("PUT", _DEPLOYMENT, job_token=True)
DEPLOYMENT_MERGE_REQUESTS = E("GET", _DEPLOYMENT + "/merge_requests", job_token=True, paged=True)
ENVIRONMENTS = E("GET", _PROJECT + "/environments", job_token=True, params=names("states search"),
                 paged=True)
ENVIRONMENT = E("GET", _PROJECT + "/environments/{environment_id:int}", job_token=True)
_PROTECTED = _PROJECT + "/protected_environments"
PROTECTED_ENVIRONMENTS = E("GET", _PROTECTED, feature=needs.PROTECTED_ENVIRONMENTS, paged=True)
PROTECTED_ENVIRONMENT = E("GET", _PROTECTED + "/{name}", feature=needs.PROTECTED_ENVIRONMENTS)
PROTECTED_ENVIRONMENT_CREATE = E("POST", _PROTECTED, feature=needs.PROTECTED_ENVIRONMENTS)
_PROTECTION_UNDO = ProtectionChange(create=PROTECTED_ENVIRONMENT_CREATE)
# A rule sent without an `id` is created: sent again after a lost answer it would be added twice.
PROTECTED_ENVIRONMENT_UPDATE = E("PUT", _PROTECTED + "/{name}", family=_PROTECTED,
                                 feature=needs.PROTECTED_ENVIRONMENT_UPDATE, undo=_PROTECTION_UNDO,
                                 retry_safe=False)
PROTECTED_ENVIRONMENT_DELETE = E("DELETE", _PROTECTED + "/{name}", family=_PROTECTED,
                                 feature=needs.PROTECTED_ENVIRONMENTS, undo=_PROTECTION_UNDO)

# -- container registry (a job token reaches the project's registry) ----------------------------------------
PROJECT_TAG_PROTECTION_RULES = E("GET", _PROJECT + "/registry/protection/tag/rules", paged=True)
PROJECT_REGISTRY_REPOSITORIES = E("GET", _PROJECT + "/registry/repositories", job_token=True,
                                  params=names("tags_count"), paged=True)
# `size=true`: the repository's deduplicated size, where the registry gives it (else `null`; see
# `api/registry_paths.repository_size`)
REGISTRY_REPOSITORY = E("GET", "/registry/repositories/{repository_id:int}",
                        params=names("tags tags_count size"))
REGISTRY_REPOSITORY_DELETE = E("DELETE", _REPO, job_token=True, undo=REGISTRY_UNDO)
REGISTRY_TAGS = E("GET", _REPO + "/tags", job_token=True, paged=True)
REGISTRY_TAGS_DELETE = E("DELETE", _REPO + "/tags", job_token=True, undo=REGISTRY_UNDO,
                         params=names("name_regex_delete name_regex_keep keep_n older_than"))
REGISTRY_TAG = E("GET", _REPO + "/tags/{tag}", job_token=True)
REGISTRY_TAG_DELETE = E("DELETE", _REPO + "/tags/{tag}", family=_REPO + "/tags", job_token=True,
                        undo=REGISTRY_UNDO)


def _collect() -> tuple[Endpoint, ...]:
    """Every endpoint above, each given its name (`group_label_delete`, `user_moderation.ban`)."""
    found: list[Endpoint] = []
    for key, value in list(globals().items()):
        if key.startswith("_"):
            continue  # the module's own helpers (`_ARCHIVING`: the archive rule's view of two endpoints)
        tables = {"": value} if isinstance(value, Endpoint) else value if isinstance(value, dict) else {}
        for sub, endpoint in tables.items():
            if isinstance(endpoint, Endpoint):
                object.__setattr__(endpoint, "name", key.lower() + (f".{sub}" if sub else ""))
                found.append(endpoint)
    return tuple(found)


ENDPOINTS: Final[tuple[Endpoint, ...]] = _collect()


def endpoint_for(method: str, path: str) -> tuple[Endpoint, dict[str, str]] | None:
    """The catalogue's endpoint that `method path` (relative to `/api/v4`) is, with its decoded values."""
    return find(ENDPOINTS, method, path)


def changed_families(method: str, path: str) -> tuple[str, ...]:
    """The cached list paths a successful change `method path` (relative to `/api/v4`, as sent) alters: the
    mutated path's own family and, when the catalogue knows the endpoint, the families it declares (the
    list cache drops these; the TUI re-reads the open lists that show them)."""
    found = endpoint_for(method, path)
    return (path, *(found[0].families(**found[1]) if found is not None else ()))


def _by_shape() -> dict[str, tuple[Endpoint, ...]]:
    table: dict[str, list[Endpoint]] = {}
    for endpoint in ENDPOINTS:
        table.setdefault(endpoint.shape, []).append(endpoint)
    return {key: tuple(found) for key, found in table.items()}


_BY_SHAPE: Final = _by_shape()


@lru_cache(maxsize=1024)
def endpoints_shaped(template: str, method: str | None = None) -> tuple[Endpoint, ...]:
    """The catalogue's endpoints on the route `template` however its segments are named (the sandbox's
    `/projects/{id}/issues/{issue_iid}`), of `method` when given."""
    found = _BY_SHAPE.get(shape(template), ())
    return found if method is None else tuple(e for e in found if e.method == method.upper())
