"""`DetailScreen`: what `enter` opens on a list whose rows have nothing bigger to open (an issue, a tag, a
member, a variable): the row's detail, full screen and scrollable. `escape`, `enter` or `q` close it. The
renderable comes from the list's detail function (rich objects: server text is never markup)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class DetailScreen(ModalScreen[None]):
    """One row's detail over the list; the list is where it was when this closes."""

    SENDS_NO_WRITE = "shows a row's detail; sends nothing"

    DEFAULT_CSS = """
    DetailScreen { align: center middle; background: $background 60%; }
    DetailScreen > VerticalScroll {
        width: 100; max-width: 100%; height: auto; max-height: 100%;
        border: thick $accent 60%; background: $surface; padding: 0 1;
    }
    DetailScreen #detail-screen-title { text-style: bold; padding-bottom: 1; }
    DetailScreen #detail-screen-hint { color: $text-muted; padding-top: 1; }
    """
    BINDINGS = [
        Binding("escape,enter,q", "close", "Close", id="detail_screen.close"),
    ]

    def __init__(self, title: str, body: RenderableType) -> None:
        super().__init__()
        self.detail_title = title
        self.body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="detail-screen-scroll"):
            yield Static(Text(self.detail_title), id="detail-screen-title")
            yield Static(self.body, id="detail-screen-body")
            yield Static("escape: close · ↑↓ pgup pgdn: scroll", id="detail-screen-hint")

    def on_mount(self) -> None:
        self.query_one("#detail-screen-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
