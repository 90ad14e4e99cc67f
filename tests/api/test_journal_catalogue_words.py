"""Words, not ids (issue 34): every change the endpoint catalogue knows is journalled in words, its target
named by path (`acme/platform/api-gateway#6`, `@bob`, `acme/platform/api-gateway/builds`), never by a raw
path (`projects/58/issues/6/notes`) nor as a "POST request"; and the undo prompt says what the undo will do
(`Undo: unblock @bob?`), not what was done.

The entries are recorded by the real `Journal.around`, one per write endpoint of the catalogue, its path
built from the catalogue with ids (the way the services send most of them), against a stand-in instance
that answers the reads the journal makes (the snapshot before, the owner's path, a user's or a registry
repository's name) and the change's answer as GitLab shapes it."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from labdeck.api.journal import Journal, JournalEntry, UndoService
from labdeck.domain import catalogue as ep
from labdeck.domain.endpoints import Endpoint
from labdeck.domain.journal_words import change_phrase, undo_question

GROUP, PROJECT, UPSTREAM = "acme", "acme/platform/api-gateway", "acme/upstream"
REPOSITORY = "acme/platform/api-gateway/builds"
# A value for each segment name of the catalogue's write templates (ids where GitLab takes ids)
VALUES: dict[str, object] = {"group": 61, "project": 58, "user_id": 17, "iid": 6, "key": "MY_VAR",
                             "label": 12, "badge_id": 3, "slug": "home", "tag": "v1.0",
                             "domain": "docs.example.com", "name": "production", "repository_id": 2,
                             "deployment_id": 412, "forked_from_id": 90, "token_id": 41}
ISSUE = {"id": 906, "iid": 6, "project_id": 58, "state": "opened", "labels": ["bug"], "assignees": [],
         "references": {"full": f"{PROJECT}#6"}, "milestone": None}
BOB = {"id": 17, "username": "bob", "name": "Bob", "state": "active"}


def reads(path: str) -> Any:
    """What the stand-in instance answers to the journal's reads (404 for anything else)."""
    path = path.lstrip("/").split("?")[0]
    known: dict[str, Any] = {
        "groups/61": {"id": 61, "full_path": GROUP},
        "projects/58": {"id": 58, "path_with_namespace": PROJECT},
        "projects/90": {"id": 90, "path_with_namespace": UPSTREAM}, "users/17": BOB,
        "registry/repositories/2": {"id": 2, "path": REPOSITORY, "project_id": 58},
        "projects/58/issues/6": ISSUE,
        "groups/61/labels/12": {"id": 12, "name": "needs review", "color": "#ff0000"},
        "groups/61/badges/3": {"id": 3, "name": "coverage", "link_url": "https://x", "image_url": "https://y"},
        "projects/58/repository/tags/v1.0": {"name": "v1.0", "commit": {"id": "abc1234"}},
        "admin/ci/variables/MY_VAR": {"key": "MY_VAR", "masked": False, "environment_scope": "*"},
    }
    for owner in ("groups/61", "projects/58"):
        known[f"{owner}/members/17"] = {**BOB, "access_level": 30}
        known[f"{owner}/variables/MY_VAR"] = {"key": "MY_VAR", "masked": False, "environment_scope": "*"}
    if path not in known:
        raise _not_found(path)
    return known[path]


def _not_found(path: str) -> Exception:
    from labdeck.api.errors import NotFound
    return NotFound(404, "404 Not Found", path=path)


def answer(endpoint: Endpoint) -> Any:
    """The change's answer, shaped as GitLab's entity for the endpoint's model."""
    return {
        "Member": {**BOB, "access_level": 30}, "Issue": {**ISSUE, "state": "closed"},
        "Note": {"id": 1, "body": "/promote"}, "Todo": {"id": 5},
        "TimeStats": {"time_estimate": 0, "total_time_spent": 0},
        "Deployment": {"id": 412, "iid": 3, "status": "success", "environment": {"name": "production"}},
        "Project": {"id": 58, "path_with_namespace": PROJECT, "archived": False},
        "CiVariable": {"key": "MY_VAR", "environment_scope": "*"},
        "GroupLabel": {"id": 12, "name": "needs review"}, "Badge": {"id": 3, "name": "coverage"},
        "WikiPage": {"slug": "home", "title": "home"}, "WikiAttachment": {"file_name": "a.png"},
        "RepositoryTag": {"name": "v1.0"}, "PagesDomain": {"domain": "docs.example.com"},
        "ProtectedEnvironment": {"name": "production"}, "ErrorTrackingSettings": {"active": True},
    }.get(model_name(endpoint), {"message": "202 Accepted"})


def model_name(endpoint: Endpoint) -> str:
    """The name of the model the endpoint's binding reads its answer into ("" for an unread answer)."""
    from labdeck.api.bindings import BINDINGS

    return next((b.model.__name__ for b in BINDINGS if b.endpoint is endpoint), "")


def sent(endpoint: Endpoint) -> dict[str, Any]:
    """What the services send each endpoint (its body's naming fields)."""
    bodies: dict[str, dict[str, Any]] = {
        "issue_note_create": {"body": "/promote"}, "group_import": {"name": "Imported", "path": "imported"},
        "issue_create": {"title": "A new issue"}, "deployment_create": {"environment": "production"},
        "protected_environment_create": {"name": "production"}, "project_tag_create": {"tag_name": "v1.0"},
        "project_pages_domain_create": {"domain": "docs.example.com"}, "group_label_create": {"name": "bug"},
        "group_badge_create": {"name": "coverage"}, "project_wiki_create": {"title": "home"},
        "issue_update": {"state_event": "close"}, "project_fork": {"namespace_path": "bob"},
    }
    if endpoint.name.endswith("variable_create"):
        return {"key": "MY_VAR", "value": "never-in-words"}
    if endpoint.name.endswith("member_add"):
        return {"user_id": 17, "access_level": 30}
    return bodies.get(endpoint.name, {})


class Address:
    """Request paths as the request log shows them."""

    def relative_path(self, path: str) -> str:
        return path.lstrip("/")


class Instance:
    """The client the journal sees: its address, and reads."""

    address = Address()

    async def get_json(self, path: str, params: Any = None) -> Any:
        return reads(str(path))


WRITES = [e for e in ep.ENDPOINTS if e.method != "GET"]
RAW_PATH = re.compile(r"\b(projects|groups|users|registry/repositories|admin)/[^ ]*\d")


async def recorded(endpoint: Endpoint, journal: Journal | None = None) -> JournalEntry:
    journal = journal if journal is not None else Journal(clock=lambda: 1_700_000_000.0)
    path = "/" + endpoint.path(**{name: VALUES[name] for name, _ in endpoint.segments}).lstrip("/")
    body = sent(endpoint)

    async def send(method: str, _path: str, **_kwargs: Any) -> httpx.Response:
        return httpx.Response(200, json=answer(endpoint), request=httpx.Request(method, "http://x" + path))

    await journal.around(Instance(), endpoint.method, path, {"json": body}, send)
    return journal.entries()[-1]


def test_the_walk_sees_every_write_endpoint() -> None:
    assert len(WRITES) > 60 and {"issue_note_create", "registry_repository_delete",
                                 "user_moderation.block"} <= {e.name for e in WRITES}


@pytest.mark.parametrize("endpoint", WRITES, ids=lambda e: e.name)
async def test_each_change_is_journalled_and_asked_about_in_words(endpoint: Endpoint) -> None:
    journal = Journal()
    entry = await recorded(endpoint, journal)
    line = change_phrase(entry.operation, entry.target)
    refusal = UndoService(Instance(), journal).refusal(entry)
    question = undo_question(entry.kind, entry.operation, entry.target, entry.before, entry.inverse, refusal)
    for text in (line, question):
        assert "request" not in text, text
        assert not RAW_PATH.search(text), text
        assert any(name in text for name in (GROUP, PROJECT, "@bob", "the instance", "imported")), text
        assert "never-in-words" not in text and "None" not in text, text
        assert not re.search(r"\b(\w+( \w+)?) \1\b", text), text  # a noun said twice
    if endpoint.name.startswith("registry_"):
        assert REPOSITORY in line  # never "repository 2 of ..."
    if entry.inverse is not None:
        assert question.startswith("Undo: ") and question.endswith("?")
        assert question != f"Undo: {line}?"  # what the undo does, not what was done


async def test_the_undo_prompt_says_what_the_undo_does() -> None:
    block = await recorded(ep.USER_MODERATION["block"])
    assert change_phrase(block.operation, block.target) == "block user @bob"
    assert undo_question(block.kind, block.operation, block.target, block.before, block.inverse,
                         None) == "Undo: unblock @bob?"
    promote = await recorded(ep.ISSUE_NOTE_CREATE)
    assert change_phrase(promote.operation, promote.target) == f"promote issue {PROJECT}#6"
    todo = await recorded(ep.ISSUE_TODO)
    assert change_phrase(todo.operation, todo.target) == f"add a to-do for issue {PROJECT}#6"
    tag = await recorded(ep.REGISTRY_TAG_DELETE)
    assert change_phrase(tag.operation, tag.target) == f"delete registry tag {REPOSITORY}:v1.0"
    member = await recorded(ep.GROUP_OWNED["member_delete"])
    assert undo_question(member.kind, member.operation, member.target, member.before, member.inverse,
                         None) == f"Undo: add @bob back to {GROUP} as Developer?"
    issue = await recorded(ep.ISSUE_UPDATE)
    assert undo_question(issue.kind, issue.operation, issue.target, issue.before, issue.inverse,
                         None) == f"Undo: reopen {PROJECT}#6?"
