"""The fields of the GitLab REST entities the sandbox serves, copied from GitLab's Grape entities
(`lib/api/entities/*.rb` in gitlabhq/gitlabhq, the stored version named beside each), so a sandbox shape
that loses or invents a field fails a test (issue 27).

`ENTITY_FIELDS[name]` lists the fields an entity always exposes (a subclass repeats its parent's);
`CONDITIONAL[name]` the fields exposed only under a condition (`expose ... if:`), with that condition.
`fields(name, *holding)` is what one served object must have: the unconditional fields and those
conditional fields whose conditions hold for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# lib/api/entities/user_safe.rb @ 3107fe7203685580829c7d6ca56161e13acb83eb
_USER_SAFE = ["id", "username", "name"]
_JOB_BASIC = [  # lib/api/entities/ci/job_basic.rb @ 0286e4c628d68960d0ca9e961d82c3ea6ac90633
    "id", "status", "stage", "name", "ref", "tag", "coverage", "allow_failure", "created_at", "started_at",
    "finished_at", "erased_at", "duration", "queued_duration", "user", "commit", "pipeline", "web_url",
    "project",
]

ENTITY_FIELDS: dict[str, list[str]] = {
    # lib/api/entities/pages_domain_basic.rb @ d466ee5042520ad078fe050cb078d81dc2ebe196
    "PagesDomainBasic": ["domain", "url", "project_id", "verified", "verification_code", "enabled_until",
                         "auto_ssl_enabled"],
    # lib/api/entities/pages_domain_certificate_expiration.rb @ dba864470fbcbb6bdd5b94eb510acdce62c962d8
    "PagesDomainCertificateExpiration": ["expired", "expiration"],
    # lib/api/entities/pages_domain.rb @ d466ee5042520ad078fe050cb078d81dc2ebe196
    "PagesDomain": ["domain", "url", "verified", "verification_code", "enabled_until", "auto_ssl_enabled"],
    # lib/api/entities/pages_domain_certificate.rb @ d466ee5042520ad078fe050cb078d81dc2ebe196
    "PagesDomainCertificate": ["subject", "expired", "certificate", "certificate_text"],
    # lib/api/entities/deployment.rb @ 48b4860d60e8d3c634c91dea473a86081d9b4727
    "Deployment": ["id", "iid", "ref", "sha", "created_at", "updated_at", "user", "environment", "deployable",
                   "status"],
    # lib/api/entities/environment_basic.rb @ 41946e65501d176230532ae34b16e64f5cdac462
    "EnvironmentBasic": ["id", "name", "slug", "external_url", "created_at", "updated_at"],
    # lib/api/entities/ci/job.rb @ 495a5c79948d687d28af0f41e823cb8e4c6fbb0e (on Ci::JobBasic)
    "Job": [*_JOB_BASIC, "artifacts", "runner", "artifacts_expire_at", "archived", "tag_list"],
    # lib/api/entities/ci/pipeline_basic.rb @ 0653e08efd039a5905f3fa4f6e9cef9f5d2f799c
    "PipelineBasic": ["id", "project_id", "sha", "ref", "status", "source", "created_at", "updated_at",
                      "web_url"],
    # lib/api/entities/commit.rb @ 495a5c79948d687d28af0f41e823cb8e4c6fbb0e
    "Commit": ["id", "short_id", "created_at", "parent_ids", "title", "message", "author_name",
               "author_email", "authored_date", "committer_name", "committer_email", "committed_date",
               "trailers", "extended_trailers", "web_url"],
    # lib/api/entities/branch.rb @ 1737a58c4276b35e508ee2657ce268b92617ea8c
    "Branch": ["name", "commit", "merged", "protected", "developers_can_push", "developers_can_merge",
               "can_push", "default", "web_url"],
    # lib/api/entities/tag.rb @ ba0f3164d55d31dedaebd6ebda6232beb2681c86
    "Tag": ["name", "message", "target", "commit", "protected", "created_at"],
    # lib/api/entities/label_basic.rb @ 346c2ebb5a818524c5d8d95dc6b9fc8c892e3b5c
    "LabelBasic": ["id", "name", "color", "description", "description_html", "text_color", "remove_on_close"],
    # lib/api/entities/note.rb @ ba0f3164d55d31dedaebd6ebda6232beb2681c86
    "Note": ["id", "type", "body", "attachment", "author", "created_at", "updated_at", "system",
             "noteable_id", "noteable_type", "project_id", "resolvable", "confidential", "internal",
             "imported", "imported_from", "noteable_iid", "commands_changes"],
    # lib/api/entities/container_registry.rb @ 28bc811a3e7a7bcf8558510daf5d15a8c315a587 (Repository)
    "ContainerRepository": ["id", "name", "path", "project_id", "location", "created_at",
                            "cleanup_policy_started_at", "status"],
    # lib/api/entities/user_basic.rb @ 495a5c79948d687d28af0f41e823cb8e4c6fbb0e (on UserSafe; EE may add)
    "UserBasic": [*_USER_SAFE, "state", "locked", "avatar_url", "web_url"],
    # lib/api/entities/identity.rb @ 1ea1db491c8bc90789acda45c9002aaa5c4dc498
    "Identity": ["provider", "extern_uid"],
}

CONDITIONAL: dict[str, dict[str, str]] = {
    "PagesDomainBasic": {"certificate_expiration": "certificate"},
    "PagesDomain": {"certificate": "certificate"},
    "Job": {"failure_reason": "failed", "artifacts_file": "artifacts", "runner_manager": "build"},
    "Tag": {"release": "can read releases"},
    "Note": {"commit_id": "merge request diff note", "position": "diff note", "resolved": "resolvable",
             "resolved_by": "resolvable", "resolved_at": "resolvable"},
    "ContainerRepository": {"tags_count": "tags_count", "tags": "tags", "size": "size",
                            "delete_api_path": "user may admin_container_image"},
    "UserBasic": {"avatar_path": "only_path", "custom_attributes": "with_custom_attributes"},
}


def fields(name: str, *holding: str) -> set[str]:
    """The fields an object of entity `name` has when the conditions `holding` hold (and no others)."""
    conditional = CONDITIONAL.get(name, {})
    unknown = set(holding) - set(conditional.values())
    assert not unknown, f"{name} has no condition {unknown}"
    return set(ENTITY_FIELDS[name]) | {field for field, when in conditional.items() if when in holding}


def assert_entity(value: Mapping[str, Any], name: str, *holding: str, at_least: bool = False) -> None:
    """`value` has exactly (or, `at_least`, at least) the fields of entity `name` under `holding`."""
    expected = fields(name, *holding)
    got = set(value)
    missing, extra = expected - got, got - expected
    assert not missing, f"{name} lacks {sorted(missing)}"
    assert at_least or not extra, f"{name} has fields GitLab does not send: {sorted(extra)}"
