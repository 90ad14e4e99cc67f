"""Opening links and copying references from the TUI, under the design's link policy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.content import Content

from labdeck.domain.links import is_openable, opens_without_asking

if TYPE_CHECKING:
    from labdeck.tui.app import LabdeckApp


def web_url_of(item: Any) -> str | None:
    """The browser URL of a row (any model with `web_url`, or `_links.self` style dicts)."""
    url = getattr(item, "web_url", None)
    if url is None and isinstance(item, dict):
        url = item.get("web_url")
    return url if isinstance(url, str) and url else None


def reference_of(item: Any) -> str | None:
    """A short reference to copy when there is no URL: `group/project#12`, a path, a username, a name."""
    refs = getattr(item, "references", None)
    full = getattr(refs, "full", None) if refs is not None else None
    if isinstance(refs, dict):
        full = refs.get("full")
    for candidate in (full, getattr(item, "path_with_namespace", None), getattr(item, "full_path", None),
                      getattr(item, "location", None), getattr(item, "username", None),
                      getattr(item, "name", None)):
        if isinstance(candidate, str) and candidate:
            return candidate
    return None


def open_link(app: LabdeckApp, url: str) -> None:
    """Open `url` in the browser: at once on the instance's own host, after a confirmation elsewhere."""
    if not is_openable(url):
        app.notify(Content.assemble("Not opening a link of this kind: ", url), severity="warning")
        return
    session = app.session
    instance_url = session.settings.base_url if session else ""
    if opens_without_asking(url, instance_url):
        app.open_url(url)
        return
    from labdeck.tui.screens.confirm import ConfirmScreen

    def answered(confirmed: bool | None) -> None:
        if confirmed:
            app.open_url(url)

    app.push_screen(ConfirmScreen("Open an outside link?", Content.assemble(
        "This link leaves the instance:\n", (url, "bold")), confirm_label="Open", danger=False), answered)


def copy_text(app: LabdeckApp, text: str, what: str) -> None:
    """Copy to the terminal clipboard (OSC 52) and say what was copied."""
    app.copy_to_clipboard(text)
    app.notify(Content.assemble(f"Copied {what}: ", text), timeout=3)
