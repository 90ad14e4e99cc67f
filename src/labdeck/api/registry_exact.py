"""Deleting exactly the registry tags a preview listed, then reading the repository back.

A cleanup preview shows names; what is deleted must be those names and no others, whatever was pushed or
how much time passed between the preview and the apply. So the preview's rules are never sent: up to
`BULK_EXACT_MAX` names go in one bulk request whose pattern can match only them
(`domain.registry_cleanup.exact_rules`), more (or a bulk delete refused for the hour) go one request per
tag. Afterwards the repository is read back and compared with what the preview saw: names still there and
names gone that were not asked for are reported by the caller as the job's failed items.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from labdeck.api.errors import LabdeckError
from labdeck.api.registry import BulkDeleteLocked, Ref, RegistryService
from labdeck.domain.registry_cleanup import Difference, difference, exact_rules

BULK = "one bulk request"
EACH = "one request per tag"

Remaining = Callable[[], Awaitable[set[str]]]
WaitGone = Callable[[Remaining], Awaitable[object]]  # polls `remaining` until it is empty (or gives up)
ItemDone = Callable[[str, bool, str], None]


@dataclass
class ExactOutcome:
    """How the names were deleted, per-name refusals (one request per tag), and the read-back."""

    how: str
    refused: dict[str, str] = field(default_factory=dict)
    found: Difference = field(default_factory=lambda: Difference((), ()))


async def delete_exactly(service: RegistryService, project: Ref, repository_id: int, names: Sequence[str],
                         *, seen: Sequence[str] | set[str], wait_gone: WaitGone,
                         on_item: ItemDone | None = None) -> ExactOutcome:
    """Delete exactly `names` of the repository (the preview listed them among the `seen` names)."""
    targets = list(dict.fromkeys(names))
    rules = exact_rules(targets)
    outcome = ExactOutcome(BULK if rules is not None else EACH)

    async def remaining() -> set[str]:
        return set(targets) & {tag.name for tag in await service.tags(project, repository_id)}

    if rules is not None and service.lock_remaining(repository_id) is None:
        try:
            await service.bulk_delete(project, repository_id, rules)
        except BulkDeleteLocked:
            outcome.how = EACH
        else:
            try:
                await wait_gone(remaining)
            except (LabdeckError, TimeoutError):
                pass  # what is left is reported by the read-back below
    else:
        outcome.how = EACH
    if outcome.how == EACH:
        await _each(service, project, repository_id, targets, outcome, on_item)
    now = {tag.name for tag in await service.tags(project, repository_id)}
    outcome.found = difference(seen, targets, now)
    return outcome


async def _each(service: RegistryService, project: Ref, repository_id: int, names: list[str],
                outcome: ExactOutcome, on_item: ItemDone | None) -> None:
    """One DELETE per tag, as many in flight as the client allows; a refusal is that tag's result."""
    gate = asyncio.Semaphore(max(service.client.settings.concurrency, 1))

    async def one(name: str) -> None:
        async with gate:
            try:
                await service.delete_tag(project, repository_id, name)
            except LabdeckError as error:
                outcome.refused[name] = str(error)
                if on_item is not None:
                    on_item(name, False, str(error))
                return
        if on_item is not None:
            on_item(name, True, "deleted")

    await asyncio.gather(*(one(name) for name in names))
