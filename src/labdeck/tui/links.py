"""Opening links and copying references from the TUI, under the design's link policy."""

from __future__ import annotations

import os
import sys
import webbrowser
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.content import Content

from labdeck.domain.links import LinkAction, link_verdict
from labdeck.domain.text import sanitize
from labdeck.tui.context import context_of
from labdeck.tui.textual_internals import notify_content

if TYPE_CHECKING:
    from textual.app import App



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


def open_link(app: App[Any], url: str) -> None:
    """Open `url` under the one link policy (`domain.links.link_verdict`), the only way labdeck opens a link:
    at once on the instance's own host, after a confirmation elsewhere, never for other schemes."""
    session = context_of(app).session
    verdict = link_verdict(url, session.settings.base_url if session else "")
    shown = sanitize(verdict.url)[:500]
    if verdict.action is LinkAction.REFUSE:
        notify_content(app, Content.assemble("Not opening this link (", verdict.reason, "): ", shown),
                       severity="warning")
        return
    if verdict.action is LinkAction.OPEN:
        browse(app, verdict.url)
        return
    from labdeck.tui.screens.confirm import ConfirmScreen

    def answered(confirmed: bool | None) -> None:
        if confirmed:
            browse(app, verdict.url)

    app.push_screen(ConfirmScreen("Open an outside link?", Content.assemble(
        sanitize(verdict.reason[:1].upper() + verdict.reason[1:]), ":\n", (shown, "bold")),
        confirm_label="Open", danger=False, changes=False), answered)


def has_display() -> bool:
    """Whether a graphical browser can open here: not on a Linux/BSD host without a display (SSH, a
    container), where `webbrowser` would start a console browser inside labdeck's own terminal."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_in_browser(url: str) -> bool:
    """Ask the system browser to open `url`; False when there is none (headless, SSH) or it refused."""
    if not has_display():
        return False
    try:
        return bool(webbrowser.open(url, new=2))
    except Exception:  # webbrowser.Error, a missing or broken browser command
        return False


def browse(app: App[Any], url: str, opener: Callable[[str], bool] | None = None) -> None:
    """Open `url` in a browser; with none available, show the URL and offer to copy it."""
    if app.is_web:
        app.open_url(url)
        return
    if (opener or open_in_browser)(url):
        return
    from labdeck.tui.screens.confirm import ConfirmScreen

    def answered(copy: bool | None) -> None:
        if copy:
            copy_text(app, url, "URL")

    app.push_screen(ConfirmScreen("No browser available", Content.assemble(
        "No browser can be opened here (SSH or no display). The link:\n", (url, "bold")),
        confirm_label="Copy URL", danger=False, changes=False), answered)


def copy_text(app: App[Any], text: str, what: str) -> None:
    """Copy to the terminal clipboard (OSC 52) and say what was copied."""
    app.copy_to_clipboard(text)
    notify_content(app, Content.assemble(f"Copied {what}: ", text), timeout=3)
