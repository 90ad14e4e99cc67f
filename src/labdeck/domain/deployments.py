"""Pure rules of deployments and protected environments, shared by the sandbox and the TUI forms.

- Deployment statuses and the transitions GitLab's deployment state machine allows through the API
  (`PUT /projects/:id/deployments/:deployment_id` with `status`): `running` only from `created`;
  `success`, `failed` and `canceled` from any other status. Creating requires an initial status
  (`running`, `success`, `failed` or `canceled`: `created` cannot be sent, only a CI job makes one), and
  so does updating; the listing filters on any status, `skipped` and `blocked` included.
- Protected environment deploy rules: each element of `deploy_access_levels` is exactly one of
  `user_id`, `group_id`, `access_level`; access levels are 30 (Developer), 40 (Maintainer), 60 (Admin).
- A deployment's commit SHA: 7 to 40 hexadecimal characters (an abbreviated or a full SHA-1), or 64 (a full
  SHA-256 of a repository in that object format); anything else is refused before it is sent.
- The listing's `updated_after`/`updated_before` bounds (`updated_within`: both include the instant).
- Summaries for the timeline: deployments per day, success rate, the last successful deployment.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from labdeck.domain.digits import integer_value

STATUSES: tuple[str, ...] = ("created", "running", "success", "failed", "canceled")
FINISHED: frozenset[str] = frozenset({"success", "failed", "canceled"})
# What the API accepts as `status` on create and update (GitLab's Grape `values`).
SETTABLE_STATUSES: tuple[str, ...] = ("running", "success", "failed", "canceled")
# What the listing accepts as a `status` filter (GitLab's `Deployment.statuses.keys`): every status a
# deployment can have, `skipped` and `blocked` (waiting for an approval) included.
LISTABLE_STATUSES: tuple[str, ...] = (*STATUSES, "skipped", "blocked")
INITIAL_STATUS = "created"
# The state machine event behind each settable status (GitLab's `update_status!`).
EVENTS: dict[str, str] = {"running": "run", "success": "succeed", "failed": "drop", "canceled": "cancel"}

_SHA = re.compile(r"[0-9a-fA-F]{7,40}|[0-9a-fA-F]{64}")


def sha_problem(sha: str) -> str | None:
    """What is wrong with `sha` as a deployment's commit SHA, or None when it is one."""
    if _SHA.fullmatch(sha):
        return None
    return "the commit SHA must be 7 to 40 hexadecimal characters (0-9, a-f)"


ACCESS_LEVELS: dict[int, str] = {30: "Developers + Maintainers", 40: "Maintainers", 60: "Administrators"}
RULE_KEYS: tuple[str, ...] = ("access_level", "user_id", "group_id")


def allowed_transitions(current: str) -> tuple[str, ...]:
    """The statuses a deployment in `current` may be moved to, in display order (GitLab's state machine:
    `succeed`, `drop` and `cancel` from any other status, `blocked` and `skipped` included; `run` only from
    `created`); nothing from a status labdeck does not know."""
    if current not in LISTABLE_STATUSES:
        return ()
    out = []
    for status in SETTABLE_STATUSES:
        if status == current:
            continue
        if status == "running" and current != "created":
            continue
        out.append(status)
    return tuple(out)


def updated_within(updated_at: datetime | None, after: datetime | None = None,
                   before: datetime | None = None) -> bool:
    """Whether a deployment updated at `updated_at` passes the listing's `updated_after`/`updated_before`
    filters: both bounds include the instant (GitLab's `Deployment` includes `UpdatedAtFilterable`,
    `app/models/concerns/updated_at_filterable.rb`: `updated_at >= after`, `updated_at <= before`). One
    without an update time passes no bound."""
    if after is None and before is None:
        return True
    if updated_at is None:
        return False
    return (after is None or updated_at >= after) and (before is None or updated_at <= before)


def can_transition(current: str, new: str) -> bool:
    return new in allowed_transitions(current)


def transition_error(current: str, new: str) -> str | None:
    """None when allowed, else the state machine's message (`cannot transition via "run"`)."""
    if can_transition(current, new):
        return None
    event = EVENTS.get(new)
    return f'cannot transition via "{event}"' if event else "is invalid"


class RuleError(ValueError):
    """A deploy access rule that breaks the exactly-one or valid-level rule (message says which)."""


def rule_kind(user_id: int | None, group_id: int | None) -> str:
    """Which field a deploy access rule sets: `user`, `group`, or else `access_level`."""
    if user_id is not None:
        return "user"
    if group_id is not None:
        return "group"
    return "access_level"


@dataclass(frozen=True)
class DeployRule:
    """One element of `deploy_access_levels`: exactly one of the three fields is set."""

    access_level: int | None = None
    user_id: int | None = None
    group_id: int | None = None

    @property
    def kind(self) -> str:
        return rule_kind(self.user_id, self.group_id)

    def as_json(self) -> dict[str, int]:
        """The request form: only the one field that is set."""
        for key in RULE_KEYS:
            value = getattr(self, key)
            if value is not None:
                return {key: value}
        return {}


def _present(element: Mapping[str, Any], key: str) -> bool:
    return element.get(key) not in (None, "")


def rule_problems(element: Mapping[str, Any], index: int = 0) -> list[str]:
    """Grape-style problems of one `deploy_access_levels` element (empty when valid), named
    `deploy_access_levels[0][user_id]` the way the server names them."""
    names = [f"deploy_access_levels[{index}][{key}]" for key in RULE_KEYS]
    present = [key for key in RULE_KEYS if _present(element, key)]
    if not present:
        return [f"{', '.join(names)} are missing, exactly one parameter must be provided"]
    if len(present) > 1:
        chosen = [f"deploy_access_levels[{index}][{key}]" for key in present]
        return [f"{', '.join(chosen)} are mutually exclusive"]
    key = present[0]
    value = integer_value(element[key])
    if value is None:
        return [f"deploy_access_levels[{index}][{key}] is invalid"]
    if key == "access_level" and value not in ACCESS_LEVELS:
        return [f"deploy_access_levels[{index}][access_level] does not have a valid value"]
    return []


def parse_rule(element: Mapping[str, Any], index: int = 0) -> DeployRule:
    """A checked `DeployRule`; `RuleError` with the problem otherwise."""
    problems = rule_problems(element, index)
    if problems:
        raise RuleError(", ".join(problems))
    key = next(k for k in RULE_KEYS if _present(element, k))
    return DeployRule(**{key: integer_value(element[key])})


def level_description(level: int | None) -> str:
    return ACCESS_LEVELS.get(level or 0, str(level) if level is not None else "")


# --- timeline summaries -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class EnvironmentSummary:
    """Deployment figures of one environment over a window of days."""

    environment: str
    per_day: tuple[int, ...]
    total: int
    succeeded: int
    finished: int
    last_success: datetime | None
    last_success_ref: str | None

    @property
    def success_rate(self) -> float | None:
        """Successes over finished deployments (None when nothing finished)."""
        return self.succeeded / self.finished if self.finished else None


@dataclass(frozen=True)
class DeploymentFact:
    """What the summaries need of a deployment."""

    environment: str
    status: str
    created_at: datetime
    ref: str = ""


def per_day(times: Iterable[datetime], end: date, days: int) -> tuple[int, ...]:
    """Counts per calendar day for the `days` days ending with `end` (oldest first)."""
    start = end - timedelta(days=days - 1)
    counts: Counter[int] = Counter()
    for moment in times:
        offset = (moment.date() - start).days
        if 0 <= offset < days:
            counts[offset] += 1
    return tuple(counts.get(i, 0) for i in range(days))


def summarise(facts: Iterable[DeploymentFact], end: date, days: int = 90) -> list[EnvironmentSummary]:
    """One summary per environment (by name), counting the window's deployments; the last success is
    the newest ever seen."""
    by_env: dict[str, list[DeploymentFact]] = {}
    for fact in facts:
        by_env.setdefault(fact.environment, []).append(fact)
    start = end - timedelta(days=days - 1)
    out = []
    for name in sorted(by_env):
        items = by_env[name]
        window = [f for f in items if start <= f.created_at.date() <= end]
        successes = [f for f in items if f.status == "success"]
        last = max(successes, key=lambda f: f.created_at, default=None)
        out.append(EnvironmentSummary(
            environment=name, per_day=per_day((f.created_at for f in window), end, days),
            total=len(window), succeeded=sum(f.status == "success" for f in window),
            finished=sum(f.status in FINISHED for f in window),
            last_success=last.created_at if last else None, last_success_ref=last.ref if last else None))
    return out
