"""How the rows of the Labels and Badges tabs of `:groups` are added, edited and deleted: each an editor of
the kit (`kit/edited.TabEditor`: its noun, its add and edit forms, the confirmation of a delete, the write,
and the re-read that says whether a write whose answer was lost was applied), named by its pane
(`EditedPane.EDITOR`), whose actions read only these facts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.content import Content

from labdeck.api.groups import GroupRef
from labdeck.api.models.badges import Badge
from labdeck.api.models.labels import GroupLabel
from labdeck.tui.kit.edited import TabEditor
from labdeck.tui.kit.forms import FormScreen, Values
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.groups.applied import badge_holds, labels_hold
from labdeck.tui.screens.groups.badge_form import Renderer, badge_form
from labdeck.tui.screens.groups.forms import label_form

if TYPE_CHECKING:
    from labdeck.api.services import Services


# -- labels ---------------------------------------------------------------------------------------------
def _plain_delete(noun: str) -> Callable[[Any, str], ConfirmScreen]:
    def confirm(row: Any, where: str) -> ConfirmScreen:
        name = row.name if isinstance(row, GroupLabel) else (row.name or f"{noun} {row.id}")
        return ConfirmScreen(f"Delete {noun}", Content.from_markup(
            "Delete [b]$name[/b] of [b]$group[/b]?", name=name, group=where), confirm_label="Delete")
    return confirm


async def _label_change(services: Services, ref: GroupRef, what: str, row: Any, values: Values) -> int:
    labels = services.labels
    if what == "delete":
        await labels.delete_label(ref, row.id)
    elif what == "add":
        await labels.create_label(ref, values["name"], values["color"], values.get("description") or None)
    else:
        new_name = values["name"] if values["name"] != row.name else None
        await labels.update_label(ref, row.id, new_name=new_name, color=values["color"],
                                  description=values.get("description", ""))
    return 1


async def _labels_applied(services: Services, ref: GroupRef, row: Any, values: Values) -> bool:
    return labels_hold(await services.labels.list_labels(ref, refresh=True), values)


LABELS = TabEditor(
    "label", add_form=lambda services, ref: label_form(),
    edit_form=lambda services, ref, row: label_form(row) if isinstance(row, GroupLabel) else None,
    confirm_delete=_plain_delete("label"), change=_label_change, applied=_labels_applied)


# -- badges ---------------------------------------------------------------------------------------------
async def _badge_change(services: Services, ref: GroupRef, what: str, row: Any, values: Values) -> int:
    badges = services.badges
    if what == "delete":
        await badges.delete_badge(ref, row.id)
    elif what == "add":
        await badges.create_badge(ref, values["link_url"], values["image_url"],
                                  name=values.get("name") or None)
    else:
        await badges.update_badge(ref, row.id, link_url=values["link_url"], image_url=values["image_url"],
                                  name=values.get("name") or None)
    return 1


async def _badges_applied(services: Services, ref: GroupRef, row: Any, values: Values) -> bool:
    if row is not None:
        return badge_holds(await services.badges.get_badge(ref, row.id), values)
    return any(badge_holds(b, values) for b in await services.badges.list_badges(ref, refresh=True))


def badge_renderer(services: Services, ref: GroupRef) -> Renderer:
    """Render typed badge URLs with the server's `render` (the group's first project)."""
    async def render(link: str, image: str) -> tuple[str, str]:
        rendered = await services.badges.render(ref, link, image)
        return rendered.rendered_link_url or link, rendered.rendered_image_url or image

    return render


def _badge_edit_form(services: Services, ref: GroupRef, row: Any) -> FormScreen | None:
    if not isinstance(row, Badge):
        return None
    return badge_form(row.name or "", row.link_url or "", row.image_url or "", editing=True,
                      render=badge_renderer(services, ref))


BADGES = TabEditor(
    "badge", add_form=lambda services, ref: badge_form(render=badge_renderer(services, ref)),
    edit_form=_badge_edit_form,
    confirm_delete=_plain_delete("badge"), change=_badge_change, applied=_badges_applied)
