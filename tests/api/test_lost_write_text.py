"""How a write whose answer was lost is told (issue 13 item 8): `lost_write` (a write, not a read, that may
have been applied), `failure_text` (the per-item results of bulk jobs and moderation) and the TUI's
`describe_error` say "the server may have applied this"; reads, refusals and requests never sent do not."""

from __future__ import annotations

import pytest

from labdeck.api.errors import (
    MAY_HAVE_APPLIED,
    AnswerLost,
    BadRequest,
    LabdeckError,
    MalformedResponse,
    NetworkError,
    ServerError,
    failure_text,
    lost_write,
)
from labdeck.tui.errors import describe_error


def _error(kind: str, method: str) -> LabdeckError:
    error: LabdeckError
    if kind == "cut":
        error = MalformedResponse("the server sent a body that is not JSON (POST /x)")
    elif kind == "reset":
        error = NetworkError("ReadError: connection reset")
    elif kind == "refused":
        error = NetworkError("ConnectError: refused")
        error.may_have_sent = False
    elif kind == "504":
        return ServerError(504, "", method, "/x")
    elif kind == "400":
        return BadRequest(400, "name is taken", method, "/x")
    else:
        error = AnswerLost(f"{method} /x: the answer was lost ...: {MAY_HAVE_APPLIED}")
    error.method = method
    return error


CASES = [(kind, method) for kind in ("cut", "reset", "refused", "504", "400", "lost")
         for method in ("POST", "PUT", "DELETE", "GET")
         if not (kind == "lost" and method == "GET")]  # AnswerLost is raised for a retried PUT or PATCH only


@pytest.mark.parametrize(("kind", "method"), CASES)
def test_lost_writes_are_told_once(kind: str, method: str) -> None:
    error = _error(kind, method)
    lost = method != "GET" and kind in ("cut", "reset", "504", "lost")
    assert lost_write(error) is lost
    for text in (failure_text(error), describe_error(error)):
        assert (MAY_HAVE_APPLIED in text) is lost, text
        assert text.count(MAY_HAVE_APPLIED) <= 1


def test_an_error_without_a_method_is_not_called_a_lost_write() -> None:
    assert not lost_write(MalformedResponse("cut"))
