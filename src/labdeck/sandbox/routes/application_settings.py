"""`GET /application/settings` (administrators; 401 without a user, 403 for others, as in GitLab's
`lib/api/settings.rb`): the few settings labdeck reads, with GitLab's defaults. The overview reads the
dormant-user period from it."""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from labdeck.sandbox.http import Ctx, endpoint
from labdeck.sandbox.seed.cleanup_policy import policy_data
from labdeck.sandbox.store import DORMANT_DAYS


async def application_settings(ctx: Ctx) -> Any:
    ctx.require_admin()
    return {
        "id": 1,
        "signup_enabled": True,
        "require_admin_approval_after_user_signup": True,
        "deactivate_dormant_users": False,
        "deactivate_dormant_users_period": DORMANT_DAYS,
        "default_projects_limit": 100000,
        "max_artifacts_size": 100,
        "container_registry_cleanup_tags_service_max_list_size": policy_data(ctx.store).max_list_size,
        "container_registry_expiration_policies_worker_capacity": 4,
        "container_registry_delete_tags_service_timeout": 250,
    }


routes = [Route("/application/settings", endpoint(application_settings), methods=["GET"])]
