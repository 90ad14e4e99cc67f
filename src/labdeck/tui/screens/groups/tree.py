"""The group tree of `:groups`, read on demand: a level (the top-level groups, or one group's subgroups) shows
its first page as soon as it arrives, and, when the server has more, ends in a "more" line that reads the next
page on enter (`WindowedList`: keyset where GitLab grants it, else by page number). On gitlab.com a level can
hold many thousands of groups; the tree never reads one whole by itself. Nodes carry their `Group`; a "more"
line and a failure line carry none.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from labdeck.api.models.groups import Group
from labdeck.api.windowed import WindowedList
from labdeck.domain.text import sanitize

PAGE = 100  # groups per page of a level
FIND_PAGES = 50  # pages read at most to find a group named by path (`:groups acme/...`)


def failure_label(message: str) -> Text:
    """The tree line that stands where groups would be when their load failed (literal text)."""
    return Text(f"Could not load: {' '.join(sanitize(message).split())} — r to retry", style="red")


def group_label(group: Group) -> Text:
    return Text(group.name or group.full_path or str(group.id))


@dataclass
class MoreGroups:
    """What a "more" line reads: the next page of `window`, from row `start`."""

    window: WindowedList[Group]
    start: int


class GroupTree(Tree[Group | None]):
    """The group tree; nodes carry their `Group`, children load on first expansion, a page at a time."""

    def __init__(self) -> None:
        super().__init__(Text("Groups"), data=None, id="groups-tree")
        self.show_root = False
        self.loaded: set[int] = set()
        self.more: dict[int, MoreGroups] = {}  # the id of each "more" line -> what it reads

    def more_under(self, node: TreeNode[Group | None]) -> TreeNode[Group | None] | None:
        """The "more" line ending `node`'s children, if the level has more on the server."""
        last = node.children[-1] if node.children else None
        return last if last is not None and last.id in self.more else None

    async def add_page(self, node: TreeNode[Group | None], window: WindowedList[Group],
                       start: int = 0) -> list[Group]:
        """Read the page of `window` at row `start` and add its groups under `node` (in place of the "more"
        line that asked for it), then a "more" line while the server has more."""
        rows = await window.ensure(start, readahead=False)
        line = self.more_under(node)
        if line is not None:
            self.more.pop(line.id, None)
            line.remove()
        for group in rows:
            node.add(group_label(group), data=group, allow_expand=True)
        if window.cut and not rows:  # the level goes on past max_pages: said, never a silent end
            node.add_leaf(Text(f"… groups {window.count_text()} (raise max_pages to read on)",
                               style="dim italic"), data=None)
        if rows and not window.exhausted:
            shown = start + len(rows)
            more = node.add_leaf(Text(f"… more groups ({window.count_text(1, shown)}): enter reads the next "
                                      f"{window.per_page}", style="dim italic"), data=None)
            self.more[more.id] = MoreGroups(window, shown)
        return rows

    async def read_more(self, line: TreeNode[Group | None]) -> list[Group]:
        """The next page of the level that `line` (a "more" line) ends; [] for any other line."""
        more = self.more.get(line.id)
        if more is None or line.parent is None:
            return []
        return await self.add_page(line.parent, more.window, more.start)

    async def find_child(self, node: TreeNode[Group | None], full_path: str) -> TreeNode[Group | None] | None:
        """`node`'s child for the group `full_path`, reading further pages of its level (at most
        `FIND_PAGES`) while it is not among those shown."""
        wanted = full_path.lower()
        for _ in range(FIND_PAGES + 1):
            child = next((c for c in node.children if c.data and (c.data.full_path or "").lower() == wanted),
                         None)
            line = self.more_under(node)
            if child is not None or line is None:
                return child
            await self.read_more(line)
        return None

    def forget_all(self) -> None:
        """No group shown, none loaded, no "more" line."""
        self.clear()
        self.loaded.clear()
        self.more.clear()
