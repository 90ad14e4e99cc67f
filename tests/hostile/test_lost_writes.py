"""Writes whose answer was lost, against a fake instance that applies a write and then drops its answer
(the body is cut short on a real socket: the client reads a broken connection and retries the idempotent
PUT/DELETE). GitLab names a label by name or id (`PUT /groups/:id/labels/:name`, lib/api/labels.rb), so a
rename by name that the retry repeats finds nothing: that 404 says nothing about the first attempt, and the
client reports the outcome as unknown (`AnswerLost`: "the server may have applied this"), not as a 404. A
DELETE retried into a 404 is done. Errors carry the method of their request, so the TUI can tell a lost
write from a lost read."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hostile_server import Answer, Call, build_app, hostile_settings, json_answer, raw_answer, start

from labdeck.api.client import ApiClient
from labdeck.api.errors import AnswerLost, MalformedResponse, NetworkError, NotFound
from labdeck.tui.errors import describe_error
from labdeck.tui.writes import MAY_HAVE_APPLIED, may_have_applied

pytestmark = pytest.mark.timeout(60)


class Labels:
    """A group's labels, by name; `drop` answers of applied writes are cut short (then answered again)."""

    def __init__(self, drop: int = 1) -> None:
        self.names = {"bug": "#ff0000"}
        self.drop = drop

    def _cut(self, answer: Answer) -> Answer:
        if self.drop <= 0:
            return answer
        self.drop -= 1
        return raw_answer(answer.body, answer.status, declared_length=len(answer.body) + 500)

    def handle(self, call: Call) -> Answer:
        name = call.path.rsplit("/", 1)[-1]
        if name not in self.names:
            return json_answer({"message": "404 Label Not Found"}, 404)
        if call.method == "DELETE":
            del self.names[name]
            return self._cut(json_answer({"id": 1, "name": name}))  # a 204 has no body to cut
        sent: dict[str, Any] = json.loads(call.body or b"{}")
        new_name = sent.get("new_name") or name
        self.names[new_name] = sent.get("color") or self.names.pop(name)
        if new_name != name:
            self.names.pop(name, None)
        return self._cut(json_answer({"id": 1, "name": new_name, "color": self.names[new_name]}))


def _app(labels: Labels) -> Any:
    return build_app({"/groups/1/labels/bug": labels.handle, "/groups/1/labels/feature": labels.handle})


async def test_a_rename_applied_whose_answer_was_lost_is_reported_as_unknown() -> None:
    labels = Labels()
    app = _app(labels)
    with start(app) as base:
        async with ApiClient(hostile_settings(url=base)) as client:
            with pytest.raises(AnswerLost) as lost:
                await client.put_json("/groups/1/labels/bug", {"new_name": "feature"})
    assert labels.names == {"feature": "#ff0000"}  # applied once
    assert [c.method for c in app.calls] == ["PUT", "PUT"]  # the retry found the old name gone
    error = lost.value
    assert isinstance(error, NetworkError) and error.may_have_sent and error.method == "PUT"
    assert may_have_applied(error)
    text = describe_error(error)
    assert MAY_HAVE_APPLIED in text and "404" in text and not text.startswith("Network error")
    entry = client.request_log.entries[-1]
    assert entry.method == "PUT" and entry.error and MAY_HAVE_APPLIED in entry.error


async def test_a_put_retried_without_a_rename_succeeds() -> None:
    labels = Labels()
    with start(_app(labels)) as base:
        async with ApiClient(hostile_settings(url=base)) as client:
            answer = await client.put_json("/groups/1/labels/bug", {"color": "#00ff00"})
    assert answer["name"] == "bug" and labels.names == {"bug": "#00ff00"}


async def test_a_plain_404_on_a_put_is_still_a_404() -> None:
    labels = Labels(drop=0)
    with start(_app(labels)) as base:
        async with ApiClient(hostile_settings(url=base)) as client:
            with pytest.raises(NotFound):
                await client.put_json("/groups/1/labels/nothing-here", {"new_name": "x"})


async def test_a_delete_applied_whose_answer_was_lost_is_done() -> None:
    labels = Labels()
    app = _app(labels)
    with start(app) as base:
        async with ApiClient(hostile_settings(url=base)) as client:
            response = await client.request("DELETE", "/groups/1/labels/bug")
    assert response.status_code == 204 and labels.names == {}  # the retry's 404: done
    assert [c.method for c in app.calls] == ["DELETE", "DELETE"]


async def test_a_lost_answer_says_which_method_it_was_about() -> None:
    """A POST cut short (never retried) and a 200 whose JSON is cut short both carry their method."""
    app = build_app({"/groups/1/labels": raw_answer(b'{"id": 1, "na', 201),
                     "/groups": raw_answer(b'[{"id": 1}]', declared_length=400)})
    with start(app) as base:
        async with ApiClient(hostile_settings(url=base)) as client:
            with pytest.raises(MalformedResponse) as cut:
                await client.post_json("/groups/1/labels", {"name": "x", "color": "#fff"})
            with pytest.raises(NetworkError) as broken:
                await client.get_json("/groups")
    assert cut.value.method == "POST" and may_have_applied(cut.value)
    assert broken.value.method == "GET"
