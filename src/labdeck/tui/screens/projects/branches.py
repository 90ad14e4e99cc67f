"""The project view's Branches tab: the repository's branches (GitLab's order, by name), read-only, declared
as a list pane of the kit over their binding; loading, `r`, read-only mode and the CI job token's reach are
the kit's."""

from __future__ import annotations

from rich.text import Text

from labdeck.api import bindings
from labdeck.api.models.project_resources import Branch
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.panes import ListPane
from labdeck.tui.kit.tabs import TabSpec, day, detail_text, yes
from labdeck.tui.widgets.table_model import Column


def _flags(branch: Branch) -> Text:
    words = [word for word, on in (("default", branch.default), ("protected", branch.protected),
                                   ("merged", branch.merged)) if on]
    return Text(" ".join(words), style="yellow" if branch.protected else "dim")


BRANCH_COLUMNS = [
    Column("name", "Branch", min_width=20, priority=10, text=lambda b: Text(b.name), data=lambda b: b.name),
    Column("flags", "State", width=26, text=_flags, data=lambda b: _flags(b).plain),
    Column("commit", "Commit", width=9, text=lambda b: Text(b.commit.short_id or "" if b.commit else ""),
           data=lambda b: b.commit.id if b.commit else None),
    Column("title", "Commit title", min_width=16,
           text=lambda b: Text(b.commit.title or "" if b.commit else ""),
           data=lambda b: b.commit.title if b.commit else None),
    Column("date", "Date", width=10, text=lambda b: Text(day(b.commit.committed_date) if b.commit else ""),
           data=lambda b: b.commit.committed_date if b.commit else None),
    Column("push", "You push", width=8, text=lambda b: yes(b.can_push), data=lambda b: b.can_push),
]


def branch_detail(branch: Branch) -> Text:
    commit = branch.commit
    return detail_text(branch.name, [
        ("commit", commit.id if commit else None), ("title", commit.title if commit else None),
        ("author", commit.author_name if commit else None), ("default", branch.default),
        ("protected", branch.protected), ("merged", branch.merged), ("you can push", branch.can_push),
        ("devs can push", branch.developers_can_push), ("devs can merge", branch.developers_can_merge),
        ("web", branch.web_url)])


class BranchesPane(ListPane):
    LISTING = bindings.PROJECT_BRANCHES
    READ_WHEN_SHOWN = True
    ENTER_OPENS_DETAIL = True

    def __init__(self, owner: Owner, *, id: str | None = None) -> None:
        super().__init__(owner, TabSpec(BRANCH_COLUMNS, lambda b: b.name, branch_detail, "No branches"),
                         id=id)
