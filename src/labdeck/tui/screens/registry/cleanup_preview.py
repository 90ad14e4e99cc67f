"""What the cleanup panel shows of a plan: one row per tag with its decision and why (`PlannedTag`), the
cells and detail of those rows, the summary line (counts per reason, space freed) and the histogram of tag
ages with the cut-off. Pure rendering of `domain.registry_cleanup` plans: it sends nothing and holds no
state."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text

from labdeck.api.models.registry import RegistryTagDetail
from labdeck.api.registry import format_age, format_size
from labdeck.domain.cleanup_reasons import DELETE_REGEX, reason_words
from labdeck.domain.registry_cleanup import CleanupPlan, CleanupRules, Reason
from labdeck.domain.registry_sizes import size_text
from labdeck.tui.screens.registry.registry import tag_detail
from labdeck.tui.widgets.table_model import Column

BUCKETS = 26
HEIGHT = 5
_BLOCKS = " ▁▂▃▄▅▆▇█"


class PlannedTag:
    """One row of the preview: the tag and what the rules decide for it (`why` is the reason in words)."""

    __slots__ = ("index", "reason", "tag", "why")

    def __init__(self, index: int, tag: RegistryTagDetail, reason: Reason, why: str) -> None:
        self.index = index
        self.tag = tag
        self.reason = reason
        self.why = why

    @property
    def name(self) -> str:
        return self.tag.name

    @property
    def deleted(self) -> bool:
        return self.reason is Reason.MATCHED


def _created(row: PlannedTag) -> float:
    created = row.tag.created_at
    return created.timestamp() if created is not None else float("inf")


def static_cells(tags: list[RegistryTagDetail], now: datetime) -> list[tuple[str, str, str]]:
    """Name, age and size of every tag, computed once per tag set (a rebuild only adds the decision)."""
    return [(tag.name, format_age(tag.created_at, now), format_size(tag.total_size)) for tag in tags]


def planned_detail(row: PlannedTag) -> Text:
    """What `enter` opens on a preview row: the decision and why, then the tag's details."""
    head = Text("delete" if row.deleted else "keep", style="bold red" if row.deleted else "bold green")
    head.append(f" · {row.why}\n\n")
    return head.append_text(tag_detail(row.tag))


def plan_columns(fixed: list[tuple[str, str, str]]) -> list[Column]:
    """Plain-string cells (styled by the columns), so 20,000 rows rebuild fast; name, age and size come
    from `fixed` (`static_cells`, by the row's index). Tag names are made safe by the model layer and
    `ResourceTable` never parses cells as markup."""
    return [
        Column("decision", "", width=6, style_fn=lambda r: "bold red" if r.deleted else "green",
               text=lambda r: "delete" if r.deleted else "keep",
               data=lambda r: "delete" if r.deleted else "keep"),
        Column("name", "Tag", min_width=16, text=lambda r: fixed[r.index][0], data=lambda r: r.tag.name),
        Column("age", "Age", width=5, align="right", sort_key=lambda r: -_created(r),
               text=lambda r: fixed[r.index][1], data=lambda r: r.tag.created_at),  # when it was created
        Column("size", "Size", width=9, align="right", sort_key=lambda r: r.tag.total_size or 0,
               text=lambda r: fixed[r.index][2], data=lambda r: r.tag.total_size),  # bytes
        Column("reason", "Why", style_fn=lambda r: None if r.deleted else "dim", text=lambda r: r.why,
               data=lambda r: r.why),
    ]


def summary_text(plan: CleanupPlan, *, reading_layers: bool = False) -> Text:
    """`24 to delete · 8 kept (latest 1, keep pattern 4, ...) · frees 1.2 GB`: literal text (`reading_layers`:
    the figure is an upper bound until the manifests' layers come, and says so)."""
    text = Text()
    text.append(f"{plan.deleted_count:,} to delete", style="bold red" if plan.deleted_count else "bold")
    text.append(f" · {plan.kept_count:,} kept", style="bold green")
    kept = [(reason, count) for reason, count in plan.counts.items()
            if reason is not Reason.MATCHED and count]
    if kept:
        parts = [f"{reason_label(reason, plan.keep_n)} {count:,}" for reason, count in kept]
        text.append(f" ({', '.join(parts)})", style="dim")
    text.append(f" · frees {size_text(plan.freed)}")
    text.append(" (blobs no kept tag uses; reading the layers…)" if reading_layers and not plan.freed.exact
                else " (blobs no kept tag uses)", style="dim")
    if plan.cutoff is not None:
        text.append(f" · cut-off {plan.cutoff:%Y-%m-%d %H:%M} UTC")
    return text


def reason_label(reason: Reason, keep_n: int | None) -> str:
    """The short name of a reason, for the counts (`among the 5 newest 3`)."""
    return f"among the {keep_n} newest" if reason is Reason.KEEP_N else str(reason)


def why_text(reason: Reason, rules: CleanupRules) -> str:
    """Which rule decided a tag, in the one wording of previews (`domain.cleanup_reasons`)."""
    return reason_words(reason, keep_n=rules.keep_n, older_than=rules.older_than, regex=DELETE_REGEX)


def timestamps(plan: CleanupPlan) -> list[float | None]:
    """Creation times of the plan's tags as epoch seconds (None when unknown); reusable across plans."""
    return [tag.created_at.timestamp() if tag.created_at is not None else None for tag in plan.tags]


def age_histogram(plan: CleanupPlan, now: datetime, *, times: list[float | None] | None = None,
                  buckets: int = BUCKETS, height: int = HEIGHT) -> Text:
    """Tag ages (newest left) as columns of blocks, red where tags would be deleted, with the cut-off.
    `times` (from `timestamps()`) saves converting 20,000 datetimes on every keystroke."""
    now_ts = now.timestamp()
    ages: list[tuple[float, bool]] = []
    undated = 0
    matched = Reason.MATCHED
    for created, reason in zip(times if times is not None else timestamps(plan), plan.reasons, strict=True):
        if created is None:
            undated += 1
        else:
            ages.append((max(now_ts - created, 0.0), reason is matched))
    cutoff_age = now_ts - plan.cutoff.timestamp() if plan.cutoff is not None else None
    span = max([age for age, _ in ages] + [cutoff_age or 0.0, 86400.0])
    width = span / buckets
    totals, deleted = [0] * buckets, [0] * buckets
    for age, gone in ages:
        index = min(int(age / width), buckets - 1)
        totals[index] += 1
        deleted[index] += gone
    top = max([*totals, 1])
    text = Text()
    for row in range(height - 1, -1, -1):
        for total, dead in zip(totals, deleted, strict=True):
            level, dead_level = total * height * 8 / top, dead * height * 8 / top
            fill = int(min(max(level - row * 8, 0), 8) + 0.5) if total else 0
            colour = "red" if dead_level > row * 8 + fill / 2 else "green"
            text.append(_BLOCKS[fill] * 2, style=colour)
        text.append("\n")
    axis = ["─"] * (buckets * 2)
    marker = None
    if cutoff_age is not None:
        marker = min(int(cutoff_age / width), buckets - 1) * 2
        axis[marker] = "┼"
    text.append("".join(axis) + "\n", style="dim")
    left = "new"
    right = f"{format_age(datetime.fromtimestamp(now_ts - span, now.tzinfo), now)} old"
    text.append(left + right.rjust(buckets * 2 - len(left)), style="dim")
    if marker is not None:
        text.append(f"\n{' ' * marker}▲ cut-off", style="yellow")
    if undated:
        text.append(f"\n{undated:,} tag(s) without a creation time (counted as newest)", style="dim")
    return text
