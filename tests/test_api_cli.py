"""`labdeck api`: GET and POST with fields, --paginate, errors as one line with the right exit status."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from labdeck.cli.api import parse_fields, run_api_command, split_path
from labdeck.cli.json_out import encode

SECRET = "glpat-ApiCliSecret987"
PAGES = 3


class FakeGitLab:
    """A tiny GitLab: records requests, answers a few paths."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if path == "/api/v4/projects/1" and request.method == "GET":
            return httpx.Response(200, json={"id": 1, "name": "demo\x1b]52;c;x\x07\u009b", "tags": ["a"]})
        if path == "/api/v4/projects/404":
            return httpx.Response(404, json={"message": "404 Project Not Found"})
        if path == "/api/v4/projects/1/issues" and request.method == "POST":
            return httpx.Response(201, json={"received": json.loads(request.content)})
        if path == "/api/v4/projects/1/issues/1" and request.method == "DELETE":
            return httpx.Response(204)
        if path == "/api/v4/search":
            return httpx.Response(200, json=[dict(request.url.params.multi_items())])
        if path == "/api/v4/projects/1/raw":
            return httpx.Response(200, text="plain text", headers={"content-type": "text/plain"})
        if path == "/api/v4/items":
            page = int(request.url.params.get("page", "1"))
            per_page = int(request.url.params.get("per_page", "20"))
            headers = {"x-page": str(page), "x-per-page": str(per_page), "x-total": str(PAGES * 2),
                       "x-total-pages": str(PAGES)}
            if page < PAGES:
                headers["x-next-page"] = str(page + 1)
                url = f"https://gitlab.test/api/v4/items?page={page + 1}&per_page={per_page}"
                headers["link"] = f'<{url}>; rel="next"'
            return httpx.Response(200, json=[{"id": page * 10 + i} for i in range(2)], headers=headers)
        return httpx.Response(404, json={"message": "404 Not Found"})


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LABDECK_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("GITLAB_URL", "https://gitlab.test")
    monkeypatch.setenv("GITLAB_TOKEN", SECRET)
    for name in ("CI_SERVER_URL", "CI_JOB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def run(argv: list[str], fake: FakeGitLab, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_api_command(argv, transport=httpx.MockTransport(fake))
    out, err = capsys.readouterr()
    assert SECRET not in out and SECRET not in err
    return code, out, err


def test_get_prints_compact_json_with_the_token_in_a_header(env: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeGitLab()
    code, out, err = run(["projects/1"], fake, capsys)
    assert (code, err) == (0, "")
    assert json.loads(out)["tags"] == ["a"]
    assert out.startswith('{"id":1,') and out.count("\n") == 1  # not a terminal: compact, as gh does
    sent = fake.requests[0]
    assert sent.method == "GET" and str(sent.url) == "https://gitlab.test/api/v4/projects/1"
    assert sent.headers["PRIVATE-TOKEN"] == SECRET and SECRET not in str(sent.url)


def test_output_cannot_drive_the_terminal(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["/projects/1"], FakeGitLab(), capsys)
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out and "\u009b" not in out
    assert json.loads(out)["name"] == "demo\x1b]52;c;x\x07\u009b"  # the data itself is exact


def test_get_sends_fields_and_the_path_query_as_params(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeGitLab()
    code, _, _ = run(["-X", "GET", "/search?scope=issues&labels[]=x", "-f", "search=bug", "-F", "page=2",
                      "-f", "labels[]=y"], fake, capsys)
    assert code == 0
    sent = fake.requests[0]
    assert sent.method == "GET" and sent.content == b""
    params = sent.url.params
    assert (params["scope"], params["search"], params["page"]) == ("issues", "bug", "2")
    assert params.get_list("labels[]") == ["x", "y"]


def test_post_with_fields_sends_a_typed_json_body(env: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    description = tmp_path / "desc.md"
    description.write_text("# Long\ntext\n", encoding="utf-8")
    fake = FakeGitLab()
    code, out, _ = run(["projects/1/issues", "-f", "title=Bug", "-f", "weight=3", "-F", "milestone_id=7",
                        "-F", "confidential=true", "-F", "due_date=null", "-F", f"description=@{description}",
                        "-f", "labels[]=a", "-f", "labels[]=b", "-F", "extra[x]=1"], fake, capsys)
    assert code == 0
    assert fake.requests[0].method == "POST"  # fields without -X mean POST, as in gh and glab
    assert json.loads(out)["received"] == {
        "title": "Bug", "weight": "3", "milestone_id": 7, "confidential": True, "due_date": None,
        "description": "# Long\ntext\n", "labels": ["a", "b"], "extra": {"x": 1},
    }


def test_extra_headers_are_sent(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeGitLab()
    assert run(["projects/1", "-H", "X-Trace: abc:1"], fake, capsys)[0] == 0
    assert fake.requests[0].headers["X-Trace"] == "abc:1"


def test_delete_with_an_empty_answer_prints_nothing(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeGitLab()
    assert run(["-X", "delete", "projects/1/issues/1"], fake, capsys) == (0, "", "")
    assert fake.requests[0].method == "DELETE"


def test_text_answer_is_printed_as_is(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["projects/1/raw"], FakeGitLab(), capsys) == (0, "plain text\n", "")


def test_paginate_prints_one_array_of_every_page(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeGitLab()
    code, out, err = run(["items", "--paginate", "-X", "GET", "-f", "per_page=2"], fake, capsys)
    assert (code, err) == (0, "")
    assert json.loads(out) == [{"id": p * 10 + i} for p in range(1, PAGES + 1) for i in range(2)]
    assert {r.url.params["per_page"] for r in fake.requests} == {"2"}


def test_api_error_is_one_line_on_stderr_with_exit_1(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["projects/404"], FakeGitLab(), capsys) == (1, "", "labdeck api: 404 Project Not Found\n")


def test_network_error_is_one_line(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    code = run_api_command(["-X", "POST", "projects"], transport=httpx.MockTransport(refuse))
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.startswith("labdeck api: ") and err.count("\n") == 1 and "Traceback" not in err
    # the error names where labdeck tried to go (method and URL), never the token
    assert "POST https://gitlab.test/api/v4/projects: ConnectError: connection refused" in err


@pytest.mark.parametrize(("argv", "problem"), [
    (["projects", "-f", "novalue"], "invalid field 'novalue'"),
    (["projects", "-f", "=x"], "invalid field"),
    (["projects", "-F", "body=@/nonexistent/file"], "cannot read /nonexistent/file"),
    (["projects", "--paginate", "-X", "POST"], "--paginate works with GET only"),
    (["projects", "--paginate", "-H", "X-A: b"], "without -H"),
    (["projects", "--demo", "--instance", "x"], "cannot be used together"),
    (["projects", "-H", "no-colon"], "invalid header"),
    (["projects", "--bogus"], "unrecognized arguments"),
    ([], "required"),
])
def test_usage_errors_exit_2(env: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                             problem: str) -> None:
    code, out, err = run(argv, FakeGitLab(), capsys)
    assert (code, out) == (2, "")
    assert err.startswith("labdeck api: ") and problem in err and err.count("\n") == 1


def test_config_errors_exit_2(env: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("GITLAB_URL")
    code, _, err = run(["projects"], FakeGitLab(), capsys)
    assert code == 2 and "no instance configured" in err and err.count("\n") == 1


def test_instance_from_config_with_sudo_and_read_only(env: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    config = env / "config.toml"
    config.write_text('[instances.ro]\nurl = "https://gitlab.test"\ntoken_env = "RO_TOKEN"\nauth = "oauth"\n'
                      'read_only = true\n', encoding="utf-8")
    monkeypatch.setenv("RO_TOKEN", SECRET)
    fake = FakeGitLab()
    code, _, _ = run(["--config", str(config), "--instance", "ro", "--sudo", "alice", "projects/1"], fake,
                     capsys)
    assert code == 0
    assert fake.requests[0].headers["Authorization"] == f"Bearer {SECRET}"
    assert fake.requests[0].headers["Sudo"] == "alice"
    code, _, err = run(["--config", str(config), "-X", "DELETE", "projects/1/issues/1"], fake, capsys)
    assert code == 2 and "read-only" in err and len(fake.requests) == 1


def test_help_returns_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_api_command(["--help"]) == 0
    assert "-F" in capsys.readouterr().out


def test_parse_fields_and_split_path() -> None:
    assert parse_fields(["a=1", "b="], ["c=-4", "d=1.5", "e=false", "f=007"]) == \
        {"a": "1", "b": "", "c": -4, "d": "1.5", "e": False, "f": "007"}
    assert split_path("api/v4/projects?x=1&x=2&y[]=3") == ("/projects", {"x": ["1", "2"], "y": ["3"]})
    assert split_path("https://h/api/v4/items?page=2") == ("https://h/api/v4/items", {"page": "2"})
    assert split_path("groups/acme/variables/") == ("/groups/acme/variables", {})  # a trailing slash dropped


@pytest.mark.parametrize("pretty", [True, False])
def test_json_output_escapes_every_control(pretty: bool) -> None:
    text = encode({"k": "\x1b[31m\x7f\x85ok"}, pretty=pretty).decode()
    assert json.loads(text) == {"k": "\x1b[31m\x7f\x85ok"}
    assert all(not (0 <= ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F) for c in text if c != "\n")


def demo(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    code = run_api_command(["--demo", *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else None, err


def test_demo_uses_the_embedded_sandbox_as_root(capsys: pytest.CaptureFixture[str]) -> None:
    code, user, err = demo(["user"], capsys)
    assert (code, err) == (0, "")
    assert user["username"] == "root" and user["is_admin"] is True


def test_demo_paginate_gathers_every_page(capsys: pytest.CaptureFixture[str]) -> None:
    code, small, _ = demo(["--paginate", "projects", "-f", "per_page=7", "-f", "order_by=id"], capsys)
    assert code == 0
    _, large, _ = demo(["--paginate", "projects", "-F", "per_page=100", "-f", "order_by=id"], capsys)
    assert len(small) > 7
    assert [p["id"] for p in small] == [p["id"] for p in large]


def test_demo_post_with_fields(capsys: pytest.CaptureFixture[str]) -> None:
    code, group, err = demo(["groups", "-f", "name=From CLI", "-f", "path=from-cli"], capsys)
    assert (code, err) == (0, "")
    assert (group["name"], group["full_path"]) == ("From CLI", "from-cli")


def test_demo_error_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = demo(["projects/999999"], capsys)
    assert (code, out) == (1, None)
    assert err == "labdeck api: 404 Project Not Found\n"  # the status once


@pytest.mark.parametrize("method", ["FOO", "get2", "P0ST"])
def test_unknown_method_is_a_usage_error(method: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = demo(["-X", method, "version"], capsys)
    assert code == 2 and "invalid method" in err


def test_fields_without_x_switch_to_post_as_gh_does(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = demo(["-X", "GET", "groups/acme%2Fplatform/projects", "-f", "simple=true"], capsys)
    assert code == 0 and out  # -X GET: fields are query parameters
    code, _, err = demo(["groups/acme%2Fplatform/projects", "-f", "simple=true"], capsys)
    assert code == 1 and err.startswith("labdeck api: 405")  # no -X: POST, which this path refuses


def _old_rendering(value: Any) -> str:
    """What `labdeck api` printed before output was streamed: the whole result, indented, stdlib-encoded."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("tty", [False, True])
def test_paginate_output_equals_the_old_output_and_follows_the_terminal(
        env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tty: bool) -> None:
    if tty:
        monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, err = run(["items", "--paginate", "-f", "per_page=2"], FakeGitLab(), capsys)
    assert (code, err) == (0, "")
    expected = [{"id": page * 10 + i} for page in range(1, PAGES + 1) for i in range(2)]
    assert json.loads(out) == expected
    if tty:  # indented exactly as before (the whole array as one document)
        assert out == _old_rendering(expected)
    else:  # compact: one line
        assert out == json.dumps(expected, separators=(",", ":")) + "\n"


def test_single_response_is_indented_on_a_terminal(env: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, _ = run(["projects/1"], FakeGitLab(), capsys)
    assert code == 0 and out.startswith("{\n  \"id\": 1,")
    assert json.loads(out)["name"] == "demo\x1b]52;c;x\x07\u009b"
    assert "\x1b" not in out and "\x07" not in out and "\u009b" not in out  # escaped, not raw


def test_paginate_writes_pages_in_order_as_they_arrive(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pages answered out of order still come out in page order; each is written once every page before
    it has been (page 1 is on stdout before the last page is even requested)."""
    seen_out: list[str] = []
    fake = FakeGitLab()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("page") == str(PAGES):
            seen_out.append(capsys.readouterr().out)
        return fake(request)

    code = run_api_command(["items", "--paginate", "-f", "per_page=2"],
                           transport=httpx.MockTransport(handler))
    out = capsys.readouterr().out
    assert code == 0
    whole = seen_out[0] + out
    assert json.loads(whole) == [{"id": page * 10 + i} for page in range(1, PAGES + 1) for i in range(2)]
    assert seen_out[0].startswith('[{"id":10},{"id":11}')  # page 1 written before the last was asked for


@pytest.mark.parametrize("pretty", [True, False])
@pytest.mark.parametrize("pages", [[], [[]], [[1]], [[{"a": [1, {"b": None}]}, "x"], [], [2.5, True]],
                                   [[{"k": "\x7f\u0085é"}], [{}]]])
def test_array_writer_equals_encoding_the_whole_list(pretty: bool, pages: list[list[Any]]) -> None:
    import io

    from labdeck.cli.json_out import ArrayWriter

    sink = io.BytesIO()
    writer = ArrayWriter(sink, pretty=pretty)
    for items in pages:
        writer.add(items)
    writer.close()
    whole = [item for items in pages for item in items]
    assert sink.getvalue() == encode(whole, pretty=pretty) + b"\n"
    if pretty:
        assert json.loads(sink.getvalue()) == whole
        assert sink.getvalue().decode() == _escaped_like_before(_old_rendering(whole))


def _escaped_like_before(text: str) -> str:  # the old renderer escaped DEL and C1 like this
    import re

    return re.sub("[\x7f\x80-\x9f]", lambda m: f"\\u{ord(m.group()):04x}", text)


@pytest.mark.parametrize("pretty", [True, False])
def test_json_output_escapes_bidi_and_zero_width_characters(pretty: bool) -> None:
    value = {"username": "alice\u202enimda\u200b\u2066\ufeff", "title": "“quoted” – … ok"}
    text = encode(value, pretty=pretty).decode()
    assert json.loads(text) == value  # the same data
    assert not any(c in text for c in "\u202e\u200b\u2066\ufeff") and "\\u202e" in text
    assert "“quoted” – …" in text  # ordinary punctuation stays as it is


def test_output_into_a_reader_that_leaves_ends_quietly(tmp_path: Path) -> None:
    """`labdeck api ... | head`: the reader closes the pipe after a few bytes; labdeck stops with gh's
    status (141, SIGPIPE's) and writes nothing on stderr: no BrokenPipeError, no traceback."""
    import os
    import subprocess

    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src, "LABDECK_CONFIG": str(tmp_path / "absent.toml")}
    # every project of the demo, ten times over: far more than a pipe's buffer, so a write must fail
    code = ("import sys; from labdeck.cli.main import main\n"
            "raise SystemExit(main(['api', '--demo', '--paginate', 'projects', '-F', 'per_page=100']))")
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=env) as child:
        assert child.stdout is not None and child.stderr is not None
        assert child.stdout.read(10)  # the reader takes a little, then leaves (as `head -c 10` does)
        child.stdout.close()
        err = child.stderr.read().decode()
        status = child.wait(timeout=60)
    assert err == ""
    assert status == 141


@pytest.mark.parametrize("pretty", [True, False])
def test_json_output_escapes_every_format_character(pretty: bool) -> None:
    """Issue 32 item 9: U+2063, U+061C, the tag characters, the Hangul fillers, ... (every Cf and
    Default_Ignorable code point `domain.text.sanitize` shows) are escaped too, as valid JSON (an astral one
    as a surrogate pair): `bug` and `bug` + U+2063 no longer print the same."""
    hidden = ["\u2063", "\u061c", "\u00ad", "\u3164", "\u115f", "\uffa0", "\ufe0f", "\U000e0001",
              "\U000e0062", "\U000e0fff", "\u17b4", "\u180e", "\U0001d173", "\u0600", "\U000110bd"]
    value = {"labels": ["bug", *(f"bug{h}" for h in hidden)], "ok": "日本 café \U0001f600"}
    text = encode(value, pretty=pretty).decode()
    assert json.loads(text) == value  # the same data
    assert not any(h in text for h in hidden) and '"bug\\u2063"' in text and "\\udb40\\udc62" in text
    assert "日本 café \U0001f600" in text  # visible text stays as it is


def test_a_typed_field_too_long_for_an_integer_is_sent_as_text(env: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 32 item 9: `-F n=` with 5,000 digits ended in "unexpected error: ValueError" (`int` refuses
    more than 4,300 digits); numbers are read by `domain.digits`, and what is not one is a string."""
    fake = FakeGitLab()
    code, out, err = run(["projects/1/issues", "-F", "weight=" + "9" * 5000, "-F", "milestone_id=7",
                          "-F", "x=²"], fake, capsys)
    assert (code, err) == (0, "")
    assert json.loads(out)["received"] == {"weight": "9" * 5000, "milestone_id": 7, "x": "²"}
