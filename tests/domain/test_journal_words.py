"""`domain.journal_words`: a journal entry's change in words (never a Python repr) and its target by name."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.journal_rules import classify, describe_target
from labdeck.domain.journal_words import change_phrase, change_rows, words


def test_the_phrase_does_not_repeat_the_noun() -> None:
    phrase = change_phrase("delete CI variable", "variable MY_VAR of acme")
    assert phrase == "delete CI variable MY_VAR of acme"
    assert change_phrase("delete label", "label bug of acme") == "delete label bug of acme"
    assert change_phrase("remove member", "@alice of acme") == "remove member @alice of acme"
    assert change_phrase("ban user", "@alice") == "ban user @alice"
    assert change_phrase("update issue", "acme/app#11") == "update issue acme/app#11"


def test_targets_name_paths_not_ids() -> None:
    variable = classify("DELETE", "groups/61/variables/MY_VAR")
    assert describe_target(variable, {"key": "MY_VAR"}) == "variable MY_VAR of group 61"  # path unknown
    assert describe_target(variable, {"key": "MY_VAR"}, "acme") == "variable MY_VAR of acme"
    by_path = classify("DELETE", "groups/acme%2Fplatform/variables/MY_VAR")
    assert describe_target(by_path, None) == "variable MY_VAR of acme/platform"
    issue = classify("PUT", "projects/1/issues/11")
    assert describe_target(issue, {"references": {"full": "acme/platform/api-gateway#11"}}) == \
        "acme/platform/api-gateway#11"
    assert describe_target(issue, {}, "acme/platform/api-gateway") == "acme/platform/api-gateway#11"
    member = classify("PUT", "groups/61/members/2")
    assert describe_target(member, {"username": "alice"}, "acme") == "@alice of acme"


def test_changes_in_words() -> None:
    before = {"state": "opened", "labels": ["bug"], "assignees": [{"id": 2, "username": "alice"}],
              "milestone": {"id": 1, "title": "v1"}}
    after = {"state": "closed", "labels": ["bug", "ux"], "assignees": [], "milestone": None}
    assert change_rows("issue.update", "update issue", before, after, True) == [
        ("state", "opened", "closed"), ("labels", "bug", "bug, ux"), ("assignees", "@alice", "none"),
        ("milestone", "v1", "none")]
    assert change_rows("member.level", "change member level", {"access_level": 30}, {"access_level": 40},
                       True) == [("access level", "Developer", "Maintainer")]
    banned = change_rows("user.ban", "ban user", {"state": "active"}, None, True)
    assert banned == [("state", "active", "banned")]
    assert change_rows("user.approve", "approve user", {"state": "blocked_pending_approval"}, None, True) == [
        ("state", "pending approval", "active")]
    assert change_rows("variable.delete", "delete CI variable", {"key": "K", "environment_scope": "*"}, None,
                       True) == [("", "variable K", "deleted")]
    assert change_rows("label.delete", "delete label", {"name": "bug"}, None, False) == [
        ("", "label bug", "not done")]
    assert change_rows("project.archive", "archive project", {"archived": False}, None, True) == [
        ("archived", "no", "yes")]
    assert change_rows("project.unarchive", "unarchive project", {"archived": True}, None, False) == [
        ("archived", "yes", "not done")]
    archive = classify("POST", "projects/7/archive")
    assert describe_target(archive, {"archived": False}, "acme/app") == "acme/app"


_TEXT = st.text(alphabet="abc_", max_size=5)
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | _TEXT,
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
                     max_leaves=8)


@given(_JSON)
def test_words_are_never_a_repr(value: Any) -> None:
    text = words(value)
    assert isinstance(text, str)
    if not isinstance(value, str):  # a server string is shown as it is; structure never as Python writes it
        assert "{'" not in text and "['" not in text and "True" not in text and "None" not in text
