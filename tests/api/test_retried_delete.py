"""Writes whose answer was lost (issue 13 item 8, api side): a DELETE whose first attempt may have reached
the server (connection reset after sending, 502/504) and whose automatic retry answers 404 is done; a
404 without such an attempt, or after a connection that was never made, is still a 404. Network errors
say whether the request may have been sent."""

from __future__ import annotations

import httpx
import pytest

from faulty_sandbox import fast_retry_settings
from labdeck.api.client import ApiClient
from labdeck.api.errors import NetworkError, NotFound


class Scripted(httpx.AsyncBaseTransport):
    """Answers from a script: an exception class is raised, a status is answered (404 with GitLab's body)."""

    def __init__(self, *script: type[Exception] | int) -> None:
        self.script = list(script)
        self.seen: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request.method)
        step = self.script.pop(0)
        if isinstance(step, int):
            body = {"message": "404 Not found"} if step == 404 else {"message": "x"}
            return httpx.Response(step, json=body, request=request)
        raise step("lost", request=request)


@pytest.mark.parametrize("first", [httpx.ReadError, httpx.RemoteProtocolError, 502, 504])
async def test_delete_retried_into_404_after_a_maybe_applied_attempt_is_done(first: object) -> None:
    transport = Scripted(first, 404)  # type: ignore[arg-type]
    async with ApiClient(fast_retry_settings("t"), transport=transport) as client:
        response = await client.request("DELETE", "/projects/1/issues/2")
    assert response.status_code == 204 and transport.seen == ["DELETE", "DELETE"]
    assert client.request_log.entries[-1].status == 204


@pytest.mark.parametrize("script", [(404,), (httpx.ConnectError, 404), (503, 404)])
async def test_other_404s_stay_404(script: tuple[object, ...]) -> None:
    async with ApiClient(fast_retry_settings("t"), transport=Scripted(*script)) as client:  # type: ignore[arg-type]
        with pytest.raises(NotFound):
            await client.request("DELETE", "/projects/1/issues/2")


async def test_a_get_retried_into_404_is_a_404() -> None:
    async with ApiClient(fast_retry_settings("t"), transport=Scripted(httpx.ReadError, 404)) as client:
        with pytest.raises(NotFound):
            await client.request("GET", "/projects/1")


async def test_network_errors_say_whether_the_request_may_have_been_sent() -> None:
    async with ApiClient(fast_retry_settings("t"), transport=Scripted(httpx.ConnectError)) as client:
        with pytest.raises(NetworkError) as never:
            await client.request("POST", "/projects/1/issues/2/notes", json={"body": "x"})
    assert never.value.may_have_sent is False
    async with ApiClient(fast_retry_settings("t"), transport=Scripted(httpx.ReadError)) as client:
        with pytest.raises(NetworkError) as lost:
            await client.request("POST", "/projects/1/issues/2/notes", json={"body": "x"})
    assert lost.value.may_have_sent is True
