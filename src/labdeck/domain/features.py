"""The features labdeck offers that not every GitLab has: a paid tier (Premium or Ultimate, absent from
Community Edition) and/or the GitLab version that introduced them.

A feature is an object, held where it matters: by the endpoints that need it (`Endpoint.feature`, in
`labdeck.domain.catalogue`), by a screen's actions and panes, by the sandbox's Premium behaviours. Whoever
asks reads the object itself (`Capabilities.supports(ITERATIONS)`, `sandbox/editions.has_feature`);
nothing looks a feature up by its name. Facts come from GitLab's API docs ("Introduced in GitLab X.Y") and
`ee/lib` (Premium routes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Feature:
    """A feature not every instance has: `premium` (Premium or Ultimate tier, absent from Community
    Edition) and/or the GitLab version that `introduced` it. `name` is what tests and logs call it;
    `title` is what a screen says ("Iterations: needs GitLab Premium")."""

    name: str
    title: str
    premium: bool = False
    introduced: tuple[int, int] | None = None


ITERATIONS: Final = Feature("iterations", "Iterations", premium=True, introduced=(13, 5))  # iterations.md
PROTECTED_ENVIRONMENTS: Final = Feature("protected_environments", "Protected environments",
                                        premium=True)  # ee/lib/ee/api/api.rb
# `PUT .../protected_environments/:name`: rules changed in place (doc/api/protected_environments.md, "Update a
# protected environment", gitlab#351854); before it a change is unprotect, then protect
PROTECTED_ENVIRONMENT_UPDATE: Final = Feature(
    "protected_environment_update", "Changing deploy rules in place", premium=True, introduced=(15, 4))
BILLABLE_MEMBERS: Final = Feature("billable_members", "Billable members", premium=True)  # ee/.../members.rb
MEMBER_OVERRIDE: Final = Feature("member_override", "LDAP member override", premium=True)
PROMOTE_TO_EPIC: Final = Feature("promote_to_epic", "Promotion to an epic", premium=True)
ISSUE_WEIGHT: Final = Feature("issue_weight", "Issue weight", premium=True)
HEALTH_STATUS: Final = Feature("health_status", "Health status", premium=True)
GROUP_VARIABLE_ENVIRONMENT_SCOPE: Final = Feature("group_variable_environment_scope",
                                                  "Environment scope of group variables", premium=True)
RELATIONS_EXPORT: Final = Feature("relations_export", "Relations export",
                                  introduced=(13, 12))  # doc/api/group_relations_export.md
GROUP_EXPORT: Final = Feature("group_export", "Group export", introduced=(12, 5))  # lib/api/group_export.rb
METADATA: Final = Feature("metadata", "Instance metadata", introduced=(15, 2))  # doc/api/metadata.md
USERS_KEYSET: Final = Feature("users_keyset", "Keyset pagination of users",
                              introduced=(16, 5))  # doc/api/rest/index.md
JOB_TOKEN_JOB: Final = Feature("job_token_job", "The job of a job token", introduced=(13, 10))  # jobs.md
# parameters, not endpoints: without them a group's labels and milestones leave out its projects'
GROUP_LABEL_PROJECTS: Final = Feature("group_label_projects", "Project labels in a group's labels",
                                      introduced=(13, 6))
GROUP_MILESTONE_DESCENDANTS: Final = Feature("group_milestone_descendants",
                                             "Project milestones in a group's milestones", introduced=(16, 7))
# a value, not an endpoint: `older_than: 60d` in a cleanup policy (commit c7be549c, GitLab 14.4)
CLEANUP_OLDER_THAN_60D: Final = Feature("cleanup_older_than_60d", "60 days in a cleanup policy",
                                        introduced=(14, 4))

# Access tokens and memberships (issue 36): doc/api/personal_access_tokens.md, group_access_tokens.md,
# project_access_tokens.md (their "Introduced in" and history notes), lib/api/personal_access_tokens.rb.
# `GET /personal_access_tokens`: GitLab 13.3 for Ultimate, every tier from 13.6 (labdeck asks for 13.6).
PERSONAL_ACCESS_TOKENS: Final = Feature("personal_access_tokens", "Personal access tokens",
                                        introduced=(13, 6))
PERSONAL_ACCESS_TOKEN: Final = Feature("personal_access_token", "One personal access token",
                                       introduced=(15, 1))  # GET /personal_access_tokens/:id
# `state`, `revoked`, `search`, `created_*`, `last_used_*` on the personal tokens' listing (gitlab#362248)
TOKEN_FILTERS: Final = Feature("token_filters", "Filtering personal access tokens", introduced=(15, 5))
TOKEN_ROTATION: Final = Feature("token_rotation", "Rotating access tokens", introduced=(16, 0))  # #403042
# a parameter, not an endpoint: `expires_at` of a rotation (gitlab#416795); before it, one week
ROTATION_EXPIRY: Final = Feature("rotation_expiry", "Choosing a rotated token's expiry", introduced=(16, 6))
GROUP_ACCESS_TOKENS: Final = Feature("group_access_tokens", "Group access tokens", introduced=(14, 7))
GROUP_ACCESS_TOKEN: Final = Feature("group_access_token", "One group access token", introduced=(14, 10))
PROJECT_ACCESS_TOKENS: Final = Feature("project_access_tokens", "Project access tokens", introduced=(13, 9))
PROJECT_ACCESS_TOKEN: Final = Feature("project_access_token", "One project access token",
                                      introduced=(14, 10))
# a parameter: `state` on the group and project tokens' listings (gitlab#462217); older instances ignore it
RESOURCE_TOKEN_STATE: Final = Feature("resource_token_state", "Filtering group and project access tokens",
                                      introduced=(17, 2))
USER_MEMBERSHIPS: Final = Feature("user_memberships", "A user's memberships",
                                  introduced=(12, 8))  # GET /users/:id/memberships (doc/api/users.md)

# Every feature above (for tests and listings: nothing is looked up in it by name).
FEATURES: Final[tuple[Feature, ...]] = tuple(value for value in tuple(globals().values())
                                             if isinstance(value, Feature))
