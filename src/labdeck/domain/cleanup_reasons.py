"""Why a cleanup keeps or deletes a tag, in words, and a cleanup policy and its outcome in words: one wording
for the bulk cleanup preview (`registry_cleanup.Reason`) and the cleanup policy's simulation
(`cleanup_policy.PolicyReason`), on screen and in the CLI, so each tag says which rule decided it.

A disabled policy deletes nothing: its simulation says what a run would delete if it were enabled, in words
that cannot be read as the next run (`outcome_words`, `verdict_word`). No Python value (None, True, a repr's
quotes) reaches the operator: `policy_words` says the values as GitLab's settings page names them.
"""

from __future__ import annotations

from typing import Final

from labdeck.domain.cleanup_policy import Policy, PolicyReason
from labdeck.domain.registry_cleanup import Reason

DELETE_REGEX: Final = "delete regex"  # the bulk delete's `name_regex_delete`
REMOVE_REGEX: Final = "remove regex"  # the policy's `name_regex` ("Remove tags matching")

_BULK: Final = {Reason.LATEST: PolicyReason.LATEST, Reason.NOT_MATCHED: PolicyReason.NOT_MATCHED,
                Reason.KEEP_PATTERN: PolicyReason.KEEP_PATTERN, Reason.KEEP_N: PolicyReason.KEEP_N,
                Reason.TOO_NEW: PolicyReason.TOO_NEW, Reason.MATCHED: PolicyReason.DELETE}


def reason_words(reason: Reason | PolicyReason, *, keep_n: int | None, older_than: str | None,
                 regex: str = REMOVE_REGEX) -> str:
    """Which rule decided a tag: `latest: never deleted`, `does not match the remove regex`, `matches the keep
    regex`, `kept by keep_n: among the 5 newest`, `newer than older_than (30d)`, `no creation date: older_than
    cannot apply`, `protected by a tag protection rule`; for a deleted tag the rules it fell to: `older than
    30d and past keep_n (5)` (or one of them, or `matches the delete regex` when neither is set). `regex`
    names the pattern that selects tags (`DELETE_REGEX` for a bulk delete)."""
    found = _BULK[reason] if isinstance(reason, Reason) else reason
    if found is PolicyReason.LATEST:
        return "latest: never deleted"
    if found is PolicyReason.NOT_MATCHED:
        return f"does not match the {regex}"
    if found is PolicyReason.KEEP_PATTERN:
        return "matches the keep regex"
    if found is PolicyReason.KEEP_N:
        return f"kept by keep_n: among the {keep_n} newest"
    if found is PolicyReason.TOO_NEW:
        return f"newer than older_than ({older_than})"
    if found is PolicyReason.NO_DATE:
        return "no creation date: older_than cannot apply"
    if found is PolicyReason.PROTECTED:
        return "protected by a tag protection rule"
    rules = ([f"older than {older_than}"] if older_than is not None else []) + \
        ([f"past keep_n ({keep_n})"] if keep_n is not None else [])
    return " and ".join(rules) if rules else f"matches the {regex}"


def runs(policy: Policy | None) -> bool:
    """Whether the policy's runs delete anything at all (it exists and is enabled)."""
    return policy is not None and policy.enabled


def verdict_word(deleted: bool, policy: Policy | None) -> str:
    """A tag's verdict under the policy: `delete`, `keep`, or `would delete` when no run deletes it (the
    policy is disabled or there is none)."""
    if not deleted:
        return "keep"
    return "delete" if runs(policy) else "would delete"


def outcome_words(policy: Policy | None, deleted: int, frees: str) -> str:
    """What the policy's next run does: `next run deletes 21 tags, frees 1.2 GB`; for a disabled policy or
    none, `policy disabled: nothing is deleted. If it were enabled, a run would delete 21 tags (frees
    1.2 GB)`. `frees` is the figure already in words (`registry_sizes.size_text`)."""
    tags = f"{deleted:,} tag" + ("" if deleted == 1 else "s")
    if runs(policy):
        return f"next run deletes {tags}, frees {frees}"
    state = "no policy" if policy is None else "policy disabled"
    return (f"{state}: nothing is deleted. If it were enabled, a run would delete {tags} "
            f"(frees {frees})")


def policy_words(policy: Policy | None) -> str:
    """The policy's values in words: `policy enabled: runs every 1d; keeps the 5 newest; deletes only tags
    older than 30d; remove regex .*; keep regex v.+|stable` (`none` where a value is not set)."""
    if policy is None:
        return "policy: none"
    keep = "keeps no fixed number" if policy.keep_n is None else f"keeps the {policy.keep_n} newest"
    older = "any age" if policy.older_than is None else f"deletes only tags older than {policy.older_than}"
    return (f"policy {'enabled' if policy.enabled else 'disabled'}: runs every {policy.cadence or 'none'}; "
            f"{keep}; {older}; remove regex: {policy.name_regex or 'none'}; "
            f"keep regex: {policy.name_regex_keep or 'none'}")
