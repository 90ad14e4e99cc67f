"""Command palette providers (`ctrl+p`): jump targets, themes, instances, saved views, and the actions of
the current screen. Each provider lists `(title, help, callback)` entries and matches them fuzzily.

The palette parses a `str` prompt or help as markup, and names here come from the config and theme files
(a saved view's query can hold `[`): so every prompt and help is passed as literal `Content`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher

from labdeck.tui.areas import AreaRequest, shown_areas

if TYPE_CHECKING:
    from labdeck.tui.app import LabdeckApp

Entry = tuple[str, str, Callable[[], Any]]


class _ListProvider(Provider):
    """A provider over a list of entries computed when the palette opens."""

    @property
    def labdeck(self) -> LabdeckApp:
        return self.app  # type: ignore[return-value]

    def entries(self) -> Iterable[Entry]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for title, help_text, callback in self.entries():
            yield DiscoveryHit(Content(title), callback, text=title, help=Content(help_text))  # type: ignore[arg-type]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self.entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, literal_highlight(matcher, title), callback, text=title,
                          help=Content(help_text))  # type: ignore[arg-type]


def literal_highlight(matcher: Matcher, title: str) -> Content:
    """`matcher.highlight(title)` without parsing `title` as markup."""
    content = Content(title)
    _score, offsets = matcher.fuzzy_search.match(matcher.query, title)
    for offset in offsets:
        if not title[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class JumpCommands(_ListProvider):
    """Every area, as `Go to <title>`."""

    def entries(self) -> Iterable[Entry]:
        for area in shown_areas(self.labdeck.is_admin, self.labdeck.area_allowed):
            note = "" if area.available else " (not available in this build)"
            yield (f"Go to {area.title}", f":{area.name} · {area.description}{note}",
                   partial(self.labdeck.open_area, area.name))


class ThemeCommands(_ListProvider):
    """Every registered theme; the choice is saved to the config."""

    def entries(self) -> Iterable[Entry]:
        app = self.labdeck
        for name in sorted(set(app.labdeck_themes)):  # labdeck's and the user's, not Textual's stock
            current = " (current)" if name == app.theme else ""
            yield (f"Theme: {name}", f"Switch to the {name} theme{current}",
                   partial(setattr, app, "theme", name))


class InstanceCommands(_ListProvider):
    """Every configured instance (switching rebuilds the client)."""

    def entries(self) -> Iterable[Entry]:
        app = self.labdeck
        for name, instance in app.config.instances.items():
            yield (f"Switch instance: {name}", instance.url, partial(app.switch_instance, name))


class SavedViewCommands(_ListProvider):
    """Saved issue views from the config's `[views]`."""

    def entries(self) -> Iterable[Entry]:
        app = self.labdeck
        for name, view in app.config.views.items():
            request = AreaRequest(query=view.query, scope=view.scope)
            yield (f"Saved view: {name}", f"{view.scope}: {view.query}",
                   partial(app.open_area, "issues", request))


class ScreenActionCommands(_ListProvider):
    """The actions the current screen offers (its bindings, read-only mode respected)."""

    def entries(self) -> Iterable[Entry]:
        screen = self.screen
        seen: set[str] = set()
        for key, (node, binding, enabled, _tooltip) in screen.active_bindings.items():
            if not enabled or not binding.description or binding.action in seen:
                continue
            if binding.action in {"command_palette", "jump", "back", "move_focus(1)", "move_focus(-1)"}:
                continue
            seen.add(binding.action)
            action = binding.action
            yield (f"{binding.description}", f"key {binding.key_display or key} · {binding.id or action}",
                   partial(self._run, node, action))

    def _run(self, node: Any, action: str) -> None:
        self.app.call_later(self.app.run_action, action, node)
