"""The status bar at the bottom of every screen: instance (with its GitLab edition and version), user (admin
badge, or a job-token badge), rate-limit remaining, running jobs and the age of the data shown. Server text
(the username) goes in as template variables, never as markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.widgets import Static

from labdeck.tui.context import context_of


@dataclass(frozen=True)
class StatusInfo:
    instance: str = ""
    instance_label: str = ""  # "GitLab 16.11.0 CE", empty while unknown
    job_token: bool = False
    read_only: bool = False
    username: str | None = None
    is_admin: bool = False
    rate_remaining: int | None = None
    rate_limit: int | None = None
    running_jobs: int = 0
    data_age: float | None = None


def format_age(seconds: float) -> str:
    if seconds < 60:
        return f"{int(seconds)} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min"
    return f"{int(seconds // 3600)} h"


def render_status(info: StatusInfo, width: int | None = None) -> Content:
    """One line of status as Content (safe for any username). With `width`, the least needed parts (the
    edition and version, then the rate limit, then an idle "tasks 0") give way until the line fits, so the
    age of the data ("data 1 s old") is never cut off at 80 columns."""
    parts: list[tuple[int, Content]] = [  # (how needed: the lowest give way first, 9 never, the part)
        (9, Content.from_markup("[b]$instance[/b]", instance=info.instance or "no instance"))]
    if info.instance_label:
        parts.append((1, Content(info.instance_label)))
    if info.read_only:
        parts.append((9, Content.from_markup("[$warning]read-only[/]")))
    if info.username is not None:
        user = Content.from_markup("$user", user=info.username)
        if info.is_admin:
            user = user + Content.from_markup(" [reverse $accent] admin [/]")
        if info.job_token:
            user = user + Content.from_markup(" [reverse $warning] job token [/]")
        parts.append((9, user))
    if info.rate_remaining is not None:
        limit = f"/{info.rate_limit}" if info.rate_limit else ""
        parts.append((2, Content(f"rate {info.rate_remaining}{limit}")))
    parts.append((3, Content(f"tasks {info.running_jobs}")) if info.running_jobs == 0
                 else (9, Content.from_markup("[b $accent]$n running[/]", n=f"tasks {info.running_jobs}")))
    if info.data_age is not None:
        parts.append((8, Content(f"data {format_age(info.data_age)} old")))
    separator = Content(" · ")
    line = separator.join(part for _, part in parts)
    for need in (1, 2, 3):
        if width is None or line.cell_length <= width:
            break
        parts = [(n, part) for n, part in parts if n != need]
        line = separator.join(part for _, part in parts)
    return line


class StatusBar(Static):
    """Refreshes itself once a second from `app.status_info()` (and at once when asked)."""

    DEFAULT_CSS = """
    StatusBar {
        dock: bottom;
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $foreground;
    }
    """

    def on_mount(self) -> None:
        self.refresh_status()
        self.set_interval(1.0, self.refresh_status)

    def on_resize(self) -> None:
        self.refresh_status()

    def refresh_status(self) -> None:
        shell = context_of(self).shell
        info = shell.status_info(self.screen) if shell is not None else StatusInfo()
        self.update(render_status(info, self.content_region.width or None))
