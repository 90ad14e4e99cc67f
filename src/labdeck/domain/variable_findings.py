"""What the access review finds in CI/CD variables (issue 36), from keys and flags alone (never a value):

- `secret_not_masked`, `secret_not_protected`: a key whose name looks secret whose value is not masked (a
  job log shows it) or not protected (a job on any branch gets it);
- `flags_differ`: one key defined at several levels that reach the same jobs (the instance, a group and
  the groups and projects below it) with different flags (protected, masked, hidden, raw): which flags a
  job gets depends on where it runs;
- `pattern_tie`: two patterns of one key and owner that both apply to an environment (GitLab does not say
  which wins, `variable_precedence.pattern_ties`).

A key looks secret when one of its words (split on `_`, any case) is one of `SECRET_WORDS` (or a word
ending in `TOKEN`, `PASSWORD` or `SECRET`: `APITOKEN`, `DBPASSWORD`), unless its last word says it
names something about a secret rather than the secret (`TOKEN_URL`, `SSH_KEY_PATH`, `AWS_ACCESS_KEY_ID`:
`QUALIFIERS`), or it is a public key (`PUBLIC` among its words). The lists are the review's decision: the
words of GitLab's own secret variables (`CI_JOB_TOKEN`, `CI_REGISTRY_PASSWORD`, `CI_DEPLOY_PASSWORD`) and
of the usual providers (`AWS_SECRET_ACCESS_KEY`, `NPM_TOKEN`, `DOCKER_AUTH_CONFIG`), and nothing broader,
so a finding is worth reading.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from labdeck.domain.variable_precedence import Definition, pattern_ties, scope_matches, winners

Finding = Literal["secret_not_masked", "secret_not_protected", "flags_differ", "pattern_tie"]
FINDINGS: Final[tuple[Finding, ...]] = ("secret_not_masked", "secret_not_protected", "flags_differ",
                                        "pattern_tie")
FINDING_WORDS: Final[dict[str, str]] = {
    "secret_not_masked": "looks secret, not masked",
    "secret_not_protected": "looks secret, not protected",
    "flags_differ": "defined at several levels with different flags",
    "pattern_tie": "two patterns apply to one environment",
}
SECRET_WORDS: Final = frozenset({
    "TOKEN", "TOKENS", "PASSWORD", "PASSWORDS", "PASSWD", "PASS", "PASSPHRASE", "PWD", "SECRET", "SECRETS",
    "KEY", "KEYS", "APIKEY", "ACCESSKEY", "CREDENTIAL", "CREDENTIALS", "CREDS", "AUTH", "JWT", "COOKIE",
    "SIGNATURE", "KEYSTORE", "DSN"})
SECRET_ENDINGS: Final = ("TOKEN", "PASSWORD", "SECRET")
QUALIFIERS: Final = frozenset({
    "ID", "URL", "URI", "HOST", "PORT", "PATH", "DIR", "NAME", "USER", "USERNAME", "TYPE", "FORMAT",
    "LENGTH", "SIZE", "TTL", "EXPIRY", "EXPIRES", "EXPIRATION", "HEADER", "FINGERPRINT", "ALGORITHM",
    "VERSION", "ENABLED", "REQUIRED", "COUNT"})


def key_words(key: str) -> list[str]:
    """A key's words, upper case: `Deploy_token` -> `DEPLOY`, `TOKEN`."""
    return [word for word in key.upper().split("_") if word]


def looks_secret(key: str) -> bool:
    """Whether a variable named `key` looks like it holds a secret (see the module's rule)."""
    words = key_words(key)
    if not words or words[-1] in QUALIFIERS or "PUBLIC" in words:
        return False
    return any(word in SECRET_WORDS or word.endswith(SECRET_ENDINGS) for word in words)


def related(one: Definition, other: Definition) -> bool:
    """Whether two definitions reach the same jobs: the instance reaches every one; a group its own
    subgroups' and projects'; a project only its own."""
    if one.level == "instance" or other.level == "instance":
        return True
    if one.path == other.path:
        return one.level == other.level
    low, high = (one, other) if len(one.path) > len(other.path) else (other, one)
    return high.level == "group" and low.path.startswith(high.path + "/")


def findings(definitions: Sequence[Definition]) -> dict[Definition, tuple[Finding, ...]]:
    """Each definition's findings (a definition without any is left out), for definitions of any keys."""
    found: dict[Definition, list[Finding]] = {}
    by_key: dict[str, list[Definition]] = {}
    for definition in definitions:
        by_key.setdefault(definition.key, []).append(definition)
        if looks_secret(definition.key):
            marks = found.setdefault(definition, [])
            if not (definition.masked or definition.hidden):
                marks.append("secret_not_masked")
            if not definition.protected:
                marks.append("secret_not_protected")
    for same in by_key.values():
        for i, one in enumerate(same):
            for other in same[i + 1:]:
                if one.flags != other.flags and (one.level, one.path) != (other.level, other.path) \
                        and related(one, other):
                    for each in (one, other):
                        marks = found.setdefault(each, [])
                        if "flags_differ" not in marks:
                            marks.append("flags_differ")
    for tied in pattern_ties(definitions):
        found.setdefault(tied, []).append("pattern_tie")
    return {definition: tuple(sorted(set(marks), key=FINDINGS.index))
            for definition, marks in found.items() if marks}


@dataclass(frozen=True)
class VariableRow:
    """One definition in the review: whether some job gets it (`variable_precedence.winners`) and what was
    found in it."""

    definition: Definition
    wins: bool
    findings: tuple[Finding, ...] = ()


def reviewed(definitions: Sequence[Definition], projects: Iterable[str]) -> list[VariableRow]:
    """Every definition with its `wins` and `findings`, in the order given; `projects`: the full paths of
    the projects whose jobs the review asks about (the scope's)."""
    won = winners(definitions, projects)
    found = findings(definitions)
    return [VariableRow(d, d in won, found.get(d, ())) for d in definitions]


@dataclass(frozen=True)
class VariableFilter:
    """The review's filters (None or empty: no filter): `findings_only`, a key (any case, `*` patterns
    allowed), a level (`instance`, `group`, `project`), a place (the path or below it), `losing`: only the
    definitions no job gets."""

    findings_only: bool = False
    key: str | None = None
    level: str | None = None
    path: str | None = None
    losing: bool = False

    def matches(self, row: VariableRow) -> bool:
        d = row.definition
        if self.findings_only and not row.findings:
            return False
        if self.losing and row.wins:
            return False
        if self.key and not scope_matches(self.key.upper(), d.key.upper()):
            return False
        if self.level and d.level != self.level:
            return False
        return not self.path or d.path == self.path or d.path.startswith(self.path + "/")
