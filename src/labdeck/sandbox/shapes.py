"""JSON shapes of the core resources (users, groups, projects), field for field as GitLab's API docs show
them (`doc/api/users.md`, `groups.md`, `projects.md`). `base` is the instance's base URL for web links."""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import urlsplit

from labdeck.sandbox.http import iso
from labdeck.sandbox.seed.cleanup_policy import policy_json
from labdeck.sandbox.seed.git_history import Commit
from labdeck.sandbox.seed.registry import registry_data
from labdeck.sandbox.seed.sharing import shared_with_groups_json
from labdeck.sandbox.store import Group, Project, Store, User

_LEVEL_FIELDS = ("issues_access_level", "repository_access_level", "merge_requests_access_level",
                 "forking_access_level", "wiki_access_level", "builds_access_level",
                 "snippets_access_level", "pages_access_level", "analytics_access_level",
                 "container_registry_access_level", "security_and_compliance_access_level")


def user_basic(user: User, base: str) -> dict[str, Any]:
    """What anyone may see of a user (lists for non-admins)."""
    return {
        "id": user.id, "username": user.username, "name": user.name, "state": user.state,
        "locked": False, "avatar_url": f"{base}/uploads/-/system/user/avatar/{user.id}/avatar.png",
        "web_url": f"{base}/{user.username}",
    }


def user_public(user: User, base: str) -> dict[str, Any]:
    """A single user as a non-admin sees it."""
    return {
        **user_basic(user, base), "created_at": iso(user.created_at), "bio": user.bio,
        "location": user.location, "public_email": None, "skype": "", "linkedin": "", "twitter": "",
        "discord": "", "website_url": "", "organization": user.organization, "job_title": user.job_title,
        "pronouns": None, "bot": user.bot, "work_information": None, "followers": 0, "following": 0,
        "is_followed": False, "local_time": None,
    }


def user_full(user: User, base: str, store: Store) -> dict[str, Any]:
    """A user as an administrator (or the user itself through `/user`) sees it."""
    return {
        **user_public(user, base), "is_admin": user.is_admin, "note": None,
        "namespace_id": user.namespace_id, "created_by": None, "email": user.email,
        "commit_email": user.email, "theme_id": 1, "color_scheme_id": 1, "projects_limit": 100000,
        "last_sign_in_at": iso(user.last_sign_in_at), "current_sign_in_at": iso(user.last_sign_in_at),
        "confirmed_at": iso(user.created_at),
        "last_activity_on": user.last_activity_on.date().isoformat() if user.last_activity_on else None,
        "identities": ([{"provider": "ldapmain", "extern_uid": f"uid={user.username},ou=people"}]
                       if user.state == "ldap_blocked" else []),
        "can_create_group": not user.external, "can_create_project": not user.external,
        "two_factor_enabled": user.two_factor_enabled, "external": user.external,
        "private_profile": False, "current_sign_in_ip": None, "last_sign_in_ip": None,
        "using_license_seat": user.state == "active" and not user.bot, "user_type": user.user_type,
    }


def commit_json(commit: Commit, project_web_url: str) -> dict[str, Any]:
    """GitLab's `Commit` entity (`lib/api/entities/commit.rb`): a tag's commit, a job's commit.
    `project_web_url` is the project's web address (`{base}/{path_with_namespace}`)."""
    when = iso(commit.created_at)
    return {"id": commit.id, "short_id": commit.id[:8], "created_at": when,
            "parent_ids": list(commit.parent_ids), "title": commit.title, "message": commit.message,
            "author_name": commit.author_name, "author_email": commit.author_email, "authored_date": when,
            "committer_name": commit.author_name, "committer_email": commit.author_email,
            "committed_date": when, "trailers": {}, "extended_trailers": {},
            "web_url": f"{project_web_url}/-/commit/{commit.id}"}


def group_json(group: Group, base: str) -> dict[str, Any]:
    return {
        "id": group.id, "web_url": f"{base}/groups/{group.full_path}", "name": group.name,
        "path": group.path, "description": group.description, "visibility": group.visibility,
        "share_with_group_lock": False, "require_two_factor_authentication": False,
        "two_factor_grace_period": 48, "project_creation_level": "developer",
        "auto_devops_enabled": None, "subgroup_creation_level": "owner", "emails_disabled": None,
        "emails_enabled": True, "mentions_disabled": None, "lfs_enabled": True,
        "default_branch_protection": 2, "avatar_url": None, "request_access_enabled": True,
        "full_name": group.full_name, "full_path": group.full_path, "created_at": iso(group.created_at),
        "parent_id": group.parent_id, "file_template_project_id": None, "shared_runners_setting": "enabled",
        "ldap_cn": None, "ldap_access": None, "marked_for_deletion_on": None,
    }


def namespace_json(store: Store, project: Project, base: str) -> dict[str, Any]:
    if project.namespace_kind == "group":
        group = store.groups[project.namespace_id]
        return {"id": group.id, "name": group.name, "path": group.path, "kind": "group",
                "full_path": group.full_path, "parent_id": group.parent_id, "avatar_url": None,
                "web_url": f"{base}/groups/{group.full_path}"}
    owner = store.user_by_namespace(project.namespace_id)
    username = owner.username if owner else "ghost"
    return {"id": project.namespace_id, "name": owner.name if owner else username, "path": username,
            "kind": "user", "full_path": username, "parent_id": None, "avatar_url": None,
            "web_url": f"{base}/{username}"}


def project_simple(store: Store, project: Project, base: str) -> dict[str, Any]:
    web = f"{base}/{project.path_with_namespace}"
    host = urlsplit(base).hostname or "localhost"
    return {
        "id": project.id, "description": project.description, "name": project.name,
        "name_with_namespace": project.name_with_namespace, "path": project.path,
        "path_with_namespace": project.path_with_namespace, "created_at": iso(project.created_at),
        "default_branch": project.default_branch, "tag_list": list(project.topics),
        "topics": list(project.topics), "ssh_url_to_repo": f"git@{host}:{project.path_with_namespace}.git",
        "http_url_to_repo": f"{web}.git", "web_url": web, "readme_url": f"{web}/-/blob/main/README.md",
        "forks_count": project.forks_count, "avatar_url": None, "star_count": project.star_count,
        "last_activity_at": iso(project.last_activity_at),
        "namespace": namespace_json(store, project, base),
    }


def project_json(store: Store, project: Project, base: str, *, admin: bool = False) -> dict[str, Any]:
    """The full project record."""
    api = f"{base}/api/v4/projects/{project.id}"
    levels = {name: "enabled" for name in _LEVEL_FIELDS}
    if project.visibility != "public":
        levels["pages_access_level"] = "private"
    out = {
        **project_simple(store, project, base),
        "container_registry_image_prefix":
            f"registry.{base.split('://', 1)[-1]}/{project.path_with_namespace}",
        "_links": {"self": api, "issues": f"{api}/issues", "merge_requests": f"{api}/merge_requests",
                   "repo_branches": f"{api}/repository/branches", "labels": f"{api}/labels",
                   "events": f"{api}/events", "members": f"{api}/members",
                   "cluster_agents": f"{api}/cluster_agents"},
        "packages_enabled": True, "empty_repo": project.empty_repo, "archived": project.archived,
        "visibility": project.visibility, "resolve_outdated_diff_discussions": False,
        "container_expiration_policy": policy_json(store, project),
        "issues_enabled": True, "merge_requests_enabled": True, "wiki_enabled": True, "jobs_enabled": True,
        "snippets_enabled": True, "container_registry_enabled": True, "service_desk_enabled": False,
        "can_create_merge_request_in": True, **levels, "emails_disabled": False, "emails_enabled": True,
        "shared_runners_enabled": True, "lfs_enabled": True, "creator_id": project.creator_id,
        "import_status": project.import_status, "open_issues_count": project.open_issues_count,
        "updated_at": iso(project.updated_at), "ci_default_git_depth": 20,
        "ci_forward_deployment_enabled": True, "public_jobs": True, "build_timeout": 3600,
        "auto_cancel_pending_pipelines": "enabled", "ci_config_path": None,
        "shared_with_groups": shared_with_groups_json(store, project.id),
        "only_allow_merge_if_pipeline_succeeds": False, "request_access_enabled": True,
        "remove_source_branch_after_merge": True, "printing_merge_request_link_enabled": True,
        "merge_method": "merge", "squash_option": "default_off", "auto_devops_enabled": False,
        # the rest of GitLab's project fields (GitLab's defaults for a new project)
        "description_html": f"<p>{html.escape(project.description)}</p>" if project.description else "",
        "repository_object_format": "sha1", "group_runners_enabled": True,
        "allow_merge_on_skipped_pipeline": False, "restrict_user_defined_variables": False,
        "only_allow_merge_if_all_discussions_are_resolved": False, "autoclose_referenced_issues": True,
        "enforce_auth_checks_on_uploads": True, "suggestion_commit_message": None,
        "merge_commit_template": None,
        "marked_for_deletion_on": None,
    }
    if project.forked_from_id is not None and project.forked_from_id in store.projects:
        out["forked_from_project"] = project_simple(store, store.projects[project.forked_from_id], base)
    if admin:
        out["import_url"] = None
        out["import_type"] = None
        out["import_error"] = None
    return out



def project_statistics(store: Store, project: Project) -> dict[str, int]:
    """`statistics` of a project (administrators, `statistics=true`): sizes derived from its id, but for
    `container_registry_size`, which is the sum of its registry repositories' unique blobs, as GitLab's
    (`domain.registry_sizes`)."""
    repository = (project.id * 7_919 % 90_000 + 1_000) * 1024
    lfs = (project.id % 7) * 3 * 1024 * 1024
    artifacts = (project.id * 31 % 50) * 1024 * 1024
    packages = (project.id % 3) * 2 * 1024 * 1024
    wiki = (project.id % 11) * 40 * 1024
    registry = registry_data(store).project_size(project.id)
    return {
        "commit_count": project.id * 37 % 5_000 + 1, "storage_size": repository + lfs + artifacts + packages
        + wiki, "repository_size": repository, "wiki_size": wiki, "lfs_objects_size": lfs,
        "job_artifacts_size": artifacts, "pipeline_artifacts_size": 0, "packages_size": packages,
        "snippets_size": 0, "uploads_size": 0, "container_registry_size": registry,
    }
