"""`ListPane`: an owner's pane that is one list (a `TabSpec` of `groups/tabs.py`: its columns, row key,
detail and empty text), with an optional help line above it and the feature its data needs (where the
instance lacks it the list says why in place of its rows and nothing is sent; a refusal the feature
explains says so too). A read-only list is declared, not written: `LISTING = bindings.GROUP_ITERATIONS`
(and `PARAMS`) reads the owner's list through the binding (`Services.read`, cached, `r` past the cache),
and the feature is the one the binding's endpoint holds; a pane that reads otherwise overrides `read`
(and says its `FEATURE`). The pane follows its owner (`show_owner`: the former owner's
rows are dropped, the new one's read), `r` reads it past the cache (`reload`), and each read dates the
screen's data. `:groups`' Projects, Subgroups, Labels, Badges, Iterations and Export and import tabs are
panes of this kind (`screens/groups/panes/`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from labdeck.api.bindings import Listing
from labdeck.api.errors import ApiError
from labdeck.domain.features import Feature
from labdeck.tui.capabilities import feature_reason, refused, unavailable
from labdeck.tui.context import context_of
from labdeck.tui.screens.owner import Owner
from labdeck.tui.screens.panes.owned import OwnerPane
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_view import ResourceView

if TYPE_CHECKING:
    from labdeck.api.services import Services
    from labdeck.tui.screens.groups.tabs import TabSpec

# the keys every list pane of a tabbed screen offers after its own (`FOOTER_ORDER`)
EVERY_LIST_FOOTER = ("select", "next_tab", "previous_tab", "toggle_tree", *LIST_KEYS)


class ListPane(OwnerPane, Widget):
    """One owner's list; a subclass names its `read` (and, when it has them, its keys)."""

    LISTING: ClassVar[Listing[Any] | None] = None  # the list it shows, read for the owner (`api/bindings.py`)
    PARAMS: ClassVar[Mapping[str, Any]] = {}  # the query `LISTING` is read with
    FEATURE: ClassVar[Feature | None] = None  # what its data needs, when `LISTING`'s endpoint does not say
    HELP: ClassVar[str] = ""  # a line above the list
    FOOTER_ORDER: ClassVar[tuple[str, ...]] = EVERY_LIST_FOOTER
    DEFAULT_CSS = """
    ListPane { height: 1fr; }
    ListPane .list-pane-help { height: auto; padding: 0 1; }
    """

    def __init__(self, owner: Owner, spec: TabSpec, *, id: str | None = None,
                 view_id: str | None = None) -> None:
        super().__init__(id=id)
        self.owner = owner
        self.spec = spec
        self.view_id = view_id or f"{id or 'list'}-view"

    def compose(self) -> ComposeResult:
        if self.HELP:
            yield Static(Text(self.HELP, style="dim"), classes="list-pane-help")
        yield ResourceView(self.spec.columns, row_key=self.spec.row_key, detail=self.spec.detail,
                           empty_text=self.spec.empty, id=self.view_id)

    @property
    def view(self) -> ResourceView:
        return self.query_one(f"#{self.view_id}", ResourceView)

    @property
    def services(self) -> Services | None:
        session = context_of(self).session
        return session.services if session is not None else None

    @property
    def ref(self) -> int | str:
        """The owner's id (a pane of this kind is made for an owner that has one)."""
        assert self.owner.ref is not None, "a list pane's owner has an id"
        return self.owner.ref

    def forbidden_hint(self) -> str:
        return self.owner.forbidden_hint

    @property
    def feature(self) -> Feature | None:
        """The feature the pane's data needs: `FEATURE`, else the one its listing's endpoint holds."""
        listing = self.LISTING
        return self.FEATURE or (listing.endpoint.feature if listing is not None else None)

    async def read(self, services: Services, refresh: bool) -> list[Any]:
        """The owner's rows (through the client's cache unless `refresh`): `LISTING`'s, by default."""
        if self.LISTING is None:
            raise NotImplementedError(f"{type(self).__name__} declares no LISTING and no read")
        return await services.read(self.LISTING, self.ref, params=self.PARAMS or None, refresh=refresh)

    def forget(self) -> None:
        """Drop what the pane keeps about its owner (another owner is shown next)."""

    def on_mount(self) -> None:
        self.load()

    def reload(self) -> None:
        self.load(refresh=True)

    def show_owner(self, owner: Owner) -> None:
        self.owner = owner
        self.forget()
        self.view.table.set_rows([])  # never the former owner's rows under this one's name
        self.load()

    @work(exclusive=True, group="list-pane")
    async def load(self, refresh: bool = False) -> None:
        services, owner, table, feature = self.services, self.owner, self.view.table, self.feature
        if services is None:
            return
        ctx = context_of(self)
        table.empty_text = self.spec.empty  # undo a former reason
        missing = feature_reason(ctx, feature) if feature else None
        if feature and missing:  # say why in place of the list, and send nothing
            table.empty_text = unavailable(ctx, feature, missing)
            table.set_rows([])
            return
        table.loading_more = True
        try:
            rows = await self.read(services, refresh)
        except ApiError as error:
            explained = refused(ctx, feature, error) if feature else None
            if explained is None:
                raise
            table.empty_text = explained
            rows = []
        finally:
            table.loading_more = False
        if owner != self.owner:  # another owner was chosen meanwhile: its own load shows it
            return
        table.set_rows(rows)
        self.mark_data_loaded()
