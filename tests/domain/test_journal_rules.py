"""The undo journal's rules: which operation a request is, its inverse, and the check before an undo."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.journal_rules import (
    ABSENT,
    REGISTRY_NO_INVERSE,
    SECRET_VARIABLE,
    VALUE_KEPT_IN_MEMORY,
    Inverse,
    changed_since,
    classify,
    inverse_of,
    why_no_inverse,
)


def test_moderation_operations_and_their_inverses() -> None:
    for op, state, inverse in (("ban", "banned", "unban"), ("block", "blocked", "unblock"),
                               ("deactivate", "deactivated", "activate"), ("unban", "active", "ban")):
        found = classify("POST", f"/users/17/{op}")
        assert (found.kind, found.snapshot) == (f"user.{op}", "users/17")
        undo = inverse_of(found, f"users/17/{op}", {"id": 17, "state": "active"}, None, {})
        assert undo == Inverse("POST", f"users/17/{inverse}", check_path="users/17", expect={"state": state})


def test_what_gitlab_cannot_undo_says_why() -> None:
    reject = classify("POST", "users/3/reject")
    assert reject.no_inverse and "deleted" in reject.no_inverse
    registry = classify("DELETE", "projects/1/registry/repositories/4/tags")
    assert registry.no_inverse == REGISTRY_NO_INVERSE
    assert inverse_of(registry, "projects/1/registry/repositories/4/tags", {}, None, {}) is None
    other = classify("POST", "projects/1/fork")
    assert other.kind == "other" and other.no_inverse


def test_member_removal_is_undone_with_level_and_expiry() -> None:
    op = classify("DELETE", "groups/acme/members/2")
    before = {"id": 2, "username": "alice", "access_level": 30, "expires_at": "2027-01-01"}
    undo = inverse_of(op, "groups/acme/members/2", before, None, {})
    assert undo == Inverse("POST", "groups/acme/members",
                           {"user_id": 2, "access_level": 30, "expires_at": "2027-01-01"},
                           check_path="groups/acme/members/2", expect=ABSENT)


def test_a_masked_variable_has_no_inverse_and_no_value_is_ever_in_an_inverse() -> None:
    op = classify("DELETE", "groups/acme/variables/TOKEN")
    masked = {"key": "TOKEN", "value": "s3cr3t", "masked": True}
    assert inverse_of(op, "groups/acme/variables/TOKEN", masked, None, {}) is None
    assert why_no_inverse(op, masked) == SECRET_VARIABLE
    plain = {"key": "MIRROR", "value": "https://m", "masked": False, "protected": False}
    undo = inverse_of(op, "groups/acme/variables/MIRROR", plain, None, {})
    assert undo is not None and undo.body["value"] == VALUE_KEPT_IN_MEMORY
    assert "https://m" not in str(undo.to_json())


def test_issue_update_inverse_restores_only_what_changed() -> None:
    op = classify("PUT", "projects/1/issues/5")
    before = {"state": "opened", "labels": ["bug"], "assignees": [{"id": 2}], "milestone": None}
    after = {"state": "closed", "labels": ["bug", "urgent"], "assignees": [{"id": 2}], "milestone": None}
    sent = {"state_event": "close", "add_labels": "urgent"}
    undo = inverse_of(op, "projects/1/issues/5", before, after, sent)
    assert undo is not None
    assert undo.body == {"state_event": "reopen", "labels": "bug"}
    assert changed_since(undo, after) is None
    moved_on = {**after, "labels": ["bug"]}
    assert "labels" in (changed_since(undo, moved_on) or "")


def test_changed_since_for_a_user() -> None:
    undo = Inverse("POST", "users/2/unban", check_path="users/2", expect={"state": "banned"})
    assert changed_since(undo, {"state": "banned"}) is None
    assert changed_since(undo, {"state": "active"}) == "its state is now active, not banned"
    assert changed_since(undo, None) == "it no longer exists"
    recreate = Inverse("POST", "groups/1/labels", check_path="groups/1/labels/bug", expect=ABSENT)
    assert changed_since(recreate, None) is None
    assert changed_since(recreate, {"name": "bug"})


@given(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]),
       st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789/%-_.", max_size=60))
def test_classify_never_fails(method: str, path: str) -> None:
    op = classify(method, path)
    assert op.label and op.kind
    assert op.no_inverse is None or isinstance(op.no_inverse, str)


def test_a_cleanup_policy_change_is_undone_by_the_old_policy() -> None:
    old = {"enabled": False, "cadence": "1d", "keep_n": 10, "older_than": "90d", "name_regex": ".*",
           "name_regex_keep": None, "next_run_at": "2026-01-02T00:00:00Z"}
    new = {**old, "enabled": True, "keep_n": 5, "next_run_at": "2026-01-03T00:00:00Z"}
    op = classify("PUT", "/projects/acme%2Fapp")
    assert (op.kind, op.snapshot) == ("project.update", "projects/acme%2Fapp")
    sent = {"container_expiration_policy_attributes": {"enabled": True, "keep_n": 5}}
    undo = inverse_of(op, "projects/acme%2Fapp", {"container_expiration_policy": old},
                      {"container_expiration_policy": new}, sent)
    assert undo is not None and undo.method == "PUT"
    back = undo.body["container_expiration_policy_attributes"]
    assert back == {k: v for k, v in old.items() if k != "next_run_at"}  # the interval is GitLab's
    assert changed_since(undo, {"container_expiration_policy": new}) is None
    later = {**new, "next_run_at": "2026-01-04T00:00:00Z"}  # a run moved next_run_at: still undoable
    assert changed_since(undo, {"container_expiration_policy": later}) is None
    assert changed_since(undo, {"container_expiration_policy": {**new, "keep_n": 50}}) is not None
    other = inverse_of(op, "projects/acme%2Fapp", {"container_expiration_policy": old},
                       {"container_expiration_policy": old}, {"description": "x"})
    assert other is None  # only cleanup policy changes of a project are undone


def test_archive_and_unarchive_undo_each_other() -> None:
    """`POST /projects/:id/archive` is undone by `/unarchive` and the other way round (both catalogued with
    their undo rule); the undo checks the project is still in the state the change left it in, and a change
    that changed nothing (archiving an archived project: GitLab answers 201 all the same) has no undo."""
    for verb, inverse, state in (("archive", "unarchive", True), ("unarchive", "archive", False)):
        op = classify("POST", f"/projects/acme%2Fapp/{verb}")
        assert (op.kind, op.label) == (f"project.{verb}", f"{verb} project")
        assert op.snapshot == "projects/acme%2Fapp"
        assert op.no_inverse is None
        undo = inverse_of(op, f"projects/acme%2Fapp/{verb}", {"archived": not state}, None, {})
        assert undo == Inverse("POST", f"projects/acme%2Fapp/{inverse}", check_path="projects/acme%2Fapp",
                               expect={"archived": state})
        assert changed_since(undo, {"archived": state}) is None
        assert changed_since(undo, {"archived": not state}) == f"its archived is now {not state}, not {state}"
        assert inverse_of(op, f"projects/acme%2Fapp/{verb}", {"archived": state}, None, {}) is None
    by_id = classify("POST", "projects/7/archive")
    assert (by_id.kind, by_id.target, by_id.snapshot) == ("project.archive", "project 7", "projects/7")


def test_a_tag_named_with_a_slash_is_recreated_in_its_collection() -> None:
    """The collection of an undo comes from the catalogue, not from cutting the path at its last `/`."""
    path = "projects/acme%2Fapp/repository/tags/release/1.0"
    op = classify("DELETE", path)
    assert (op.kind, op.target) == ("tag.delete", "tag release/1.0 of project acme/app")
    undo = inverse_of(op, path, {"name": "release/1.0", "commit": {"id": "abc123"}}, None, {})
    assert undo is not None
    assert (undo.method, undo.path, undo.body) == ("POST", "projects/acme%2Fapp/repository/tags",
                                                   {"tag_name": "release/1.0", "ref": "abc123"})
    assert undo.check_path == path


def test_inverses_name_the_collection_of_the_owner() -> None:
    label = classify("DELETE", "groups/acme%2Fops/labels/needs%20review")
    undo = inverse_of(label, "groups/acme%2Fops/labels/needs%20review", {"name": "needs review"}, None, {})
    assert undo is not None
    assert (undo.path, undo.check_path) == ("groups/acme%2Fops/labels",
                                            "groups/acme%2Fops/labels/needs%20review")
    variable = classify("DELETE", "admin/ci/variables/TOKEN")
    undo = inverse_of(variable, "admin/ci/variables/TOKEN", {"key": "TOKEN", "value": "x"}, None, {})
    assert undo is not None and undo.path == "admin/ci/variables"
    member = classify("DELETE", "projects/7/members/3")
    undo = inverse_of(member, "projects/7/members/3", {"id": 3, "access_level": 30}, None, {})
    assert undo is not None
    assert (undo.path, undo.body) == ("projects/7/members", {"user_id": 3, "access_level": 30})
