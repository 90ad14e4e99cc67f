"""The kit's panes: a widget that shows one owner's resources (a project, a group or the instance:
`kit/owner.Owner`), with the kit's policy (`kit/pane_policy.PanePolicy`) and, for the panes that read
their data, the kit's one way of loading it.

- `OwnerPane`: shows one owner's resources and can be shown another owner's (`show_owner`: `:groups` makes
  its panes once, then shows each group chosen in the tree in them).
- `LoadedPane`: reads its data in one worker (`load`) and shows it (`show_data`). Where the instance lacks
  the feature the data needs (`FEATURE`, else the one its binding's endpoint holds) or a CI job token
  cannot reach its endpoint (the catalogue's `job_token`), the pane says why in place of the data and sends
  nothing; a refusal the feature explains says so too (`explain`: a pane may say more in place of its
  data; anything else goes to the app's one failure path). `r` reads past the cache (`reload`), a read dates
  the screen's data, a read for a former owner is dropped, and `READ_WHEN_SHOWN` waits until the pane is
  first shown (a long history is not read with every tab of a view).
- `ListPane`: a `LoadedPane` that is one list (a `TabSpec`: columns, row key, detail, empty text), with an
  optional help line. A read-only list is declared, not written: `LISTING = bindings.PROJECT_BRANCHES` (and
  `PARAMS`, or `params()` for a query that changes) reads the owner's list through the binding
  (`Services.read`, cached, `r` past the cache); a pane that reads otherwise overrides `read`.

A pane reads the session's services through `ctx.services` (`NotConnected` when no instance is: the app
says so once, where workers fail). It may use the widgets, the context and the capabilities; it knows no
area.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from labdeck.api.bindings import Listing, One
from labdeck.api.errors import LabdeckError
from labdeck.domain.endpoints import Endpoint
from labdeck.domain.features import Feature
from labdeck.tui.capabilities import refused, unavailable
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.pane_policy import PanePolicy
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView

if TYPE_CHECKING:
    from labdeck.api.services import Services
    from labdeck.tui.kit.tabs import TabSpec

D = TypeVar("D")

# the keys every list pane of a tabbed screen offers after its own (`FOOTER_ORDER`)
EVERY_LIST_FOOTER = ("select", "next_tab", "previous_tab", "toggle_tree", *LIST_KEYS)


class OwnerPane(PanePolicy):
    """Mixed in before the pane's Textual base (`class MembersPane(OwnerPane, Widget)`)."""

    owner: Owner

    def show_owner(self, owner: Owner) -> None:
        """Show `owner`'s resources instead (its data is read; state about the former owner is dropped)."""
        raise NotImplementedError

    @property
    def ref(self) -> int | str:
        """The owner's id (a pane of this kind is made for an owner that has one: a group or a project)."""
        assert self.owner.ref is not None, "the pane's owner has an id"
        return self.owner.ref

    @property
    def values(self) -> tuple[int | str, ...]:
        """The owner's path segments for its endpoints: its id, none for the instance."""
        return () if self.owner.ref is None else (self.owner.ref,)


class LoadedPane(OwnerPane, Widget, Generic[D]):
    """A pane whose data the kit reads (see the module docstring); a subclass says what it reads (`read`,
    or its binding) and how it shows it (`show_data`, `show_reason`, `show_loading`)."""

    RESOURCE: ClassVar[One[Any] | None] = None  # the one resource it shows, read for the owner
    FEATURE: ClassVar[Feature | None] = None  # what its data needs, when its binding's endpoint does not say
    READ_WHEN_SHOWN: ClassVar[bool] = False  # read when first shown, not when mounted

    _read_once = False

    @property
    def endpoint(self) -> Endpoint | None:
        """The endpoint its data is read from (its binding's), for the feature and job-token checks."""
        return self.RESOURCE.endpoint if self.RESOURCE is not None else None

    @property
    def feature(self) -> Feature | None:
        """The feature the pane's data needs: `FEATURE`, else the one its endpoint holds."""
        endpoint = self.endpoint
        return self.FEATURE or (endpoint.feature if endpoint is not None else None)

    def missing(self) -> str | None:
        """Why the data cannot be read here (said in its place; nothing is sent), or None."""
        policy, feature, endpoint = self.ctx.policy, self.feature, self.endpoint
        reason = policy.feature_reason(feature) if feature is not None else None
        if feature is not None and reason is not None:
            return unavailable(self.ctx, feature, reason)
        reach = policy.endpoint_reason(endpoint) if endpoint is not None else None
        return reach[:1].upper() + reach[1:] if reach else None

    async def read(self, services: Services, refresh: bool) -> D:
        """The owner's data (through the client's cache unless `refresh`): `RESOURCE`'s, by default."""
        if self.RESOURCE is None:
            raise NotImplementedError(f"{type(self).__name__} declares no binding and no read")
        data: D = await services.read(self.RESOURCE, *self.values)
        return data

    def show_data(self, data: D) -> None:
        """Show what `read` gave."""
        raise NotImplementedError

    def show_reason(self, text: str) -> None:
        """Say, in place of the data, why there is none (a feature the instance lacks, a refusal)."""
        raise NotImplementedError

    def show_loading(self, loading: bool) -> None:
        """A read starts (True) or ends (False)."""

    def explain(self, error: LabdeckError) -> str | None:
        """What to say in place of the data when a read fails, or None to let the app say it. By default,
        the refusal of a feature the pane needs (a premium route an instance refuses)."""
        feature = self.feature
        return refused(self.ctx, feature, error) if feature is not None else None

    def forget(self) -> None:
        """Drop what the pane keeps about its owner (another owner is shown next)."""

    def on_mount(self) -> None:
        if not self.READ_WHEN_SHOWN:
            self.load()

    def on_show(self) -> None:
        if self.READ_WHEN_SHOWN and not self._read_once:
            self.load()

    def reload(self) -> None:
        self.load(refresh=True)

    def show_owner(self, owner: Owner) -> None:
        self.owner = owner
        self.forget()
        self.load()

    @work(exclusive=True, group="pane-load")
    async def load(self, refresh: bool = False) -> None:
        """Read the owner's data (past the cache with `refresh`) and show it, or say why there is none."""
        self._read_once = True
        owner = self.owner
        missing = self.missing()
        if missing is not None:  # say why in place of the data, and send nothing
            self.show_reason(missing)
            return
        services = self.ctx.services
        self.show_loading(True)
        try:
            data = await self.read(services, refresh)
        except LabdeckError as error:
            explained = self.explain(error)
            if explained is None:
                raise  # the app's one failure path says it (a notification, the message in the list)
            self.show_reason(explained)
            return
        finally:
            self.show_loading(False)
        if owner != self.owner:  # another owner was chosen meanwhile: its own load shows it
            return
        self.show_data(data)
        self.mark_data_loaded()


class ListPane(LoadedPane[list[Any]]):
    """One owner's list; a subclass declares its `LISTING` (or its `read`) and, when it has them, its keys."""

    LISTING: ClassVar[Listing[Any] | None] = None  # the list it shows, read for the owner (`api/bindings.py`)
    PARAMS: ClassVar[Mapping[str, Any]] = {}  # the query `LISTING` is read with
    HELP: ClassVar[str] = ""  # a line above the list
    FOOTER_ORDER: ClassVar[tuple[str, ...]] = EVERY_LIST_FOOTER
    ENTER_OPENS_DETAIL: ClassVar[bool] = False  # enter shows the row's detail (when nothing opens a row)
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
        yield from self.compose_above()
        yield ResourceView(self.spec.columns, row_key=self.spec.row_key, detail=self.spec.detail,
                           empty_text=self.spec.empty, enter_opens_detail=self.ENTER_OPENS_DETAIL,
                           id=self.view_id)

    def compose_above(self) -> ComposeResult:
        """Widgets between the help line and the list (a search field, a status line)."""
        yield from ()

    @property
    def view(self) -> ResourceView:
        return self.query_one(f"#{self.view_id}", ResourceView)

    @property
    def table(self) -> ResourceTable:
        return self.view.table

    @property
    def endpoint(self) -> Endpoint | None:
        return self.LISTING.endpoint if self.LISTING is not None else super().endpoint

    def params(self) -> Mapping[str, Any]:
        """The query the list is read with now (`PARAMS`, unless the pane's own state adds to it)."""
        return self.PARAMS

    async def read(self, services: Services, refresh: bool) -> list[Any]:
        """The owner's rows (through the client's cache unless `refresh`): `LISTING`'s, by default."""
        if self.LISTING is None:
            raise NotImplementedError(f"{type(self).__name__} declares no LISTING and no read")
        return await services.read(self.LISTING, *self.values, params=self.params() or None, refresh=refresh)

    def show_owner(self, owner: Owner) -> None:
        self.table.set_rows([])  # never the former owner's rows under this one's name
        super().show_owner(owner)

    def show_loading(self, loading: bool) -> None:
        if loading:
            self.table.empty_text = self.spec.empty  # undo a former reason
        self.table.loading_more = loading

    def show_reason(self, text: str) -> None:
        self.table.empty_text = text
        self.table.set_rows([])

    def show_data(self, data: list[Any]) -> None:
        self.table.set_rows(data)
