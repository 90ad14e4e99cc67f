"""The shape rule of redaction removes GitLab's real token shapes and leaves ordinary words alone
(`glenn-smith` and `global-config_export.tar.gz` were turned into [redacted]); `redact_secret_like` also
removes credential-looking runs, for a token command's error output."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.redaction import REDACTED, TOKEN_PREFIXES, redact, redact_secret_like

OAUTH = "5f0c3a9e8b7d6c1f2e4a9b8c7d6e5f40312a9b8c7d6e5f4a3b2c1d0e9f8a7b6c"


@pytest.mark.parametrize("word", [
    "glenn-smith", "global-config_export.tar.gz", "gloria-estefan", "glide-path", "glue-code_v2",
    "glossary-terms.md", "glad-you-asked", "glob-patterns", "gltf-viewer", "glsl-shader",
])
def test_ordinary_words_are_not_redacted(word: str) -> None:
    assert redact(f"user {word} pushed") == f"user {word} pushed"
    assert redact_secret_like(f"user {word} pushed") == f"user {word} pushed"


@pytest.mark.parametrize("prefix", [*TOKEN_PREFIXES])
def test_every_gitlab_token_prefix_is_redacted(prefix: str) -> None:
    token = f"{prefix}-Ab3_dE5-fG7hJ9kL1mN2"
    assert token not in redact(f"x {token} y") and REDACTED in redact(f"x {token} y")


@pytest.mark.parametrize("token", [
    "glpat-sandbox-root", "gldt-abcdEFGH1234", "glrt-t1_abcdEFGH1234", "glrtr-abcdEFGH1234",
    "glcbt-64_abcdEFGH1234", "glptt-abcdEFGH1234", "glft-abcdEFGH1234", "glimt-abcdEFGH1234",
    "glagent-abcdEFGH1234", "gloas-abcdEFGH1234", "glsoat-abcdEFGH1234", "glffct-abcdEFGH1234",
    "glwt-abcdEFGH1234", "GR1348941abcdEFGH1234",
])
def test_real_token_shapes_stay_redacted(token: str) -> None:
    assert token not in redact(f"token leaked: {token}.")


def test_a_session_cookie_is_redacted() -> None:
    assert "s3cr3t" not in redact("Cookie: _gitlab_session=s3cr3tvalue; other=1")


@given(st.from_regex(r"gl[a-z]{1,8}(-[a-z]{1,10}){1,3}(\.[a-z]{2,3})?", fullmatch=True))
def test_lower_case_hyphenated_words_survive_unless_a_real_prefix(word: str) -> None:
    if word.split("-")[0] in TOKEN_PREFIXES and len(word.split("-", 1)[1]) >= 4:
        return
    assert redact(word) == word and redact_secret_like(word) == word


@pytest.mark.parametrize("text", [
    f"+ T={OAUTH}", f"curl -u oauth2:{OAUTH}", f"echo {OAUTH}-x", "legacy aB3dE5fG7hJ9kL1mN2pQ here",
])
def test_credential_looking_runs_are_redacted_for_token_commands(text: str) -> None:
    out = redact_secret_like(text)
    assert REDACTED in out and OAUTH not in out and "aB3dE5fG7hJ9kL1mN2pQ" not in out
