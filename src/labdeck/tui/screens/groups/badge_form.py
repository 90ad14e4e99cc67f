"""The badge form of the groups view: a `FormScreen` that previews the badge's URLs as the server renders
them (placeholders resolved from the group's first project), as they are typed. Its rules are
`domain.badges`' (http(s) only), checked before anything is sent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import Input, Static

from labdeck.api.badges import BadgeUrlError
from labdeck.api.errors import LabdeckError
from labdeck.domain.badges import badge_errors, placeholder_list
from labdeck.tui.kit.forms import Field, FormScreen, Validator, Values, required

Renderer = Callable[[str, str], Awaitable[tuple[str, str]]]


class BadgeFormScreen(FormScreen):
    """The badge form, with the URLs as the server renders them (placeholders resolved from the group's
    first project by creation date, left as typed when it has none), refreshed `delay` seconds after the
    last keystroke."""

    def __init__(self, title: str, fields: Sequence[Field], validate: Validator, *,
                 render: Renderer | None, delay: float = 0.3) -> None:
        super().__init__(title, fields, validate)
        self.render_urls = render
        self.delay = delay
        self._timer: Any = None
        self.previews = 0

    def compose_extra(self) -> ComposeResult:
        if self.render_urls is not None:
            yield Static(Text("Rendered URLs show here as you type", style="dim"), id="badge-preview",
                         classes="group-form-label")

    def on_mount(self) -> None:
        super().on_mount()
        self.schedule_preview()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id in ("field-link_url", "field-image_url"):
            self.schedule_preview()

    def schedule_preview(self) -> None:
        if self.render_urls is None:
            return
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(self.delay, self.update_preview)

    def update_preview(self) -> None:
        values = self.values()
        self.preview(str(values.get("link_url", "")), str(values.get("image_url", "")))

    @work(exclusive=True, group="badge-preview")
    async def preview(self, link: str, image: str) -> None:
        render = self.render_urls
        if render is None or not (link or image):
            return
        shown = Text()
        problems = badge_errors(link or None, image or None)
        try:
            if problems:  # not worth a request: GitLab refuses anything but http(s)
                raise BadgeUrlError(problems)
            rendered_link, rendered_image = await render(link or image, image or link)
        except (LabdeckError, BadgeUrlError) as error:
            shown.append(f"No preview: {error}", style="yellow")
        else:
            for label, typed, rendered in (("link", link, rendered_link), ("image", image, rendered_image)):
                if typed:
                    shown.append(f"{label:>6} → ", style="dim")
                    shown.append(rendered + "\n")
        self.previews += 1
        self.query_one("#badge-preview", Static).update(shown)


def badge_form(name: str = "", link_url: str = "", image_url: str = "", *, editing: bool = False,
               render: Renderer | None = None) -> FormScreen:
    """The badge form; with `render`, it previews the rendered URLs as they are typed."""
    fields = [Field("name", "Name (optional)", name),
              Field("link_url", f"Link URL, http(s); placeholders: {placeholder_list()}", link_url,
                    "https://…"),
              Field("image_url", "Image URL, http(s)", image_url, "https://…/badge.svg")]

    def validate(values: Values) -> dict[str, str]:
        errors = required(values, "link_url", "image_url")
        for key, messages in badge_errors(str(values.get("link_url") or "") or None,
                                          str(values.get("image_url") or "") or None).items():
            errors.setdefault(key, "must be http or https (" + "; ".join(messages) + ")")
        return errors

    return BadgeFormScreen("Edit badge" if editing else "New badge", fields, validate, render=render)
