"""Members, whatever their owner (a group or a project): the list's columns and detail (`member_tab`: direct
or billable members), the add and change form (`member_form`, with the levels the owner can give:
`level_choices`; users named by id or username, `parse_user_refs`), and whether a form's write is on the
server after a lost answer (`members_hold`). The pane that shows them is `kit/members_pane.py`; the owner's
service methods are `kit/owner.Owner`'s.

It may use the form and spec kit (`kit/forms.py`, `kit/tabs.py`) and `domain` rules; it sends nothing.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from datetime import date
from typing import Any

from rich.text import Text

from labdeck.api.models.members import BillableMember, Member
from labdeck.domain.access_levels import MEMBER_LEVELS, PROJECT_MEMBER_LEVELS, AccessLevel
from labdeck.domain.digits import is_digits, parse_digits, wide_digit_problem
from labdeck.domain.replacements import replaced_text
from labdeck.tui.kit.forms import Field, FormScreen, Replaces, Values, date_error
from labdeck.tui.kit.tabs import TabSpec, day, detail_text
from labdeck.tui.widgets.table_model import Column

_USERNAME = re.compile(r"^@?[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def member_tab(overrides: Collection[int] = ()) -> TabSpec:
    """Members (`Member`) or, in billable mode, billable members (`BillableMember`: the access column says
    "billable" and the expiry column shows the last activity)."""
    def level(member: Member | BillableMember) -> Text:
        if isinstance(member, BillableMember):
            return Text("billable", style="cyan")
        text = Text(member.level_label)
        if member.id in overrides:
            text.append(" (override)", style="magenta")
        return text

    def expires(member: Member | BillableMember) -> Text:
        billable = isinstance(member, BillableMember)
        return Text(day(member.last_activity_on if billable else member.expires_at))  # type: ignore[union-attr]

    def detail(member: Member | BillableMember) -> Text:
        if isinstance(member, BillableMember):
            return detail_text(member.username or "", [
                ("name", member.name), ("user id", member.id), ("membership", member.membership_type),
                ("last activity", day(member.last_activity_on)), ("removable", member.removable),
                ("email", member.email), ("web", member.web_url)])
        return detail_text(member.username or "", [
            ("name", member.name), ("user id", member.id),
            ("access", f"{member.level_label} ({member.access_level})"), ("expires", day(member.expires_at)),
            ("member since", day(member.created_at)), ("state", member.state),
            ("override", "on" if member.id in overrides else None), ("web", member.web_url)])

    def expiry(member: Member | BillableMember) -> Any:
        return member.last_activity_on if isinstance(member, BillableMember) else member.expires_at

    columns = [Column("username", "Username", min_width=16, text=lambda m: Text(m.username or str(m.id)),
                      data=lambda m: m.username),
               Column("name", "Name", min_width=16, text=lambda m: Text(m.name or ""), data=lambda m: m.name),
               Column("level", "Access", width=24, sort_key=lambda m: getattr(m, "access_level", 0) or 0,
                      text=level, data=lambda m: getattr(m, "access_level", None),  # GitLab's number
                      extra_data=(("override", lambda m: m.id in overrides),)),
               Column("expires", "Expires", width=10, text=expires, data=expiry),
               Column("state", "State", width=10,
                      text=lambda m: Text(m.state or "", style="" if m.state == "active" else "yellow"),
                      data=lambda m: m.state)]
    return TabSpec(columns, lambda m: m.id, detail, "No members")


def parse_user_refs(text: str) -> list[int | str] | None:
    """`"3, alice, @bob"` -> [3, "alice", "bob"] (ids and usernames); None when a part is neither."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(is_digits(p) or _USERNAME.match(p) for p in parts):
        return None
    return [number if (number := parse_digits(p)) is not None else p.removeprefix("@") for p in parts]


def level_choices(kind: str) -> tuple[tuple[str, int], ...]:
    levels = MEMBER_LEVELS if kind == "groups" else PROJECT_MEMBER_LEVELS
    return tuple((level_text(int(level)), int(level)) for level in levels if int(level) > 0)


def level_text(level: object) -> str:
    """`Developer (30)`: a role as the member form names it."""
    try:
        return f"{AccessLevel(int(str(level))).label} ({int(str(level))})"
    except ValueError:
        return str(level)


def member_replaces(*, editing: bool, level: int, expires: str, members: Sequence[Member]) -> Replaces:
    """What the member form would write over. Changing a member: its role and expiry. Adding: members of
    the list named among several users, whose role GitLab sets to the one chosen (`lib/api/members.rb`,
    `POST :id/members`: a `user_id` with commas goes to `Members::CreateService`, whose creator finds the
    existing member and updates it; one user who is a member already is refused with 409, nothing
    replaced)."""
    by_name = {(m.username or "").casefold(): m for m in members} | {str(m.id): m for m in members}

    def said(values: Values) -> str:
        new_level, new_expiry = level_text(values.get("access_level")), str(values.get("expires_at") or "")
        if editing:
            before = [level_text(level), *([f"the expiry {expires}"] if expires else [])]
            after = [new_level, *([f"the expiry {new_expiry}"] if new_expiry else [])]
            return replaced_text([before], after)
        refs = parse_user_refs(str(values.get("user_ids") or "")) or []
        found = [by_name[str(ref).casefold()] for ref in refs if str(ref).casefold() in by_name]
        if len(refs) < 2 or not found:
            return ""
        named = [(m.username or str(m.id), m) for m in found]
        return replaced_text([[f"{name} as {level_text(m.access_level)}"] for name, m in named],
                             [f"{name} as {new_level}" for name, _m in named])

    return said


def member_form(kind: str, today: date, *, user_ids: str = "", level: int = 30, expires: str = "",
                editing: bool = False, members: Sequence[Member] = ()) -> FormScreen:
    fields = [Field("user_ids", "User id or username (several separated by commas)", user_ids, "12, alice",
                    disabled=editing, names="user"),
              Field("access_level", "Access level", level, choices=level_choices(kind)),
              Field("expires_at", "Expires on (optional)", expires, "YYYY-MM-DD")]

    def validate(values: Values) -> dict[str, str]:
        errors = {}
        typed = str(values.get("user_ids", ""))
        if not editing and parse_user_refs(typed) is None:
            errors["user_ids"] = (wide_digit_problem(typed)
                                  or "one or more user ids or usernames, separated by commas")
        problem = date_error(str(values.get("expires_at", "")), today)
        if problem:
            errors["expires_at"] = problem
        return errors

    title = "Change member" if editing else "Add members"
    replaces = member_replaces(editing=editing, level=level, expires=expires, members=members)
    return FormScreen(title, fields, validate, submit_label="Save" if editing else "Add", replaces=replaces)


def _iso_day(value: date | str | None) -> str:
    if value is None:
        return ""
    return value.isoformat() if isinstance(value, date) else str(value)


def members_hold(members: Iterable[Member], user_ids: Iterable[int], values: Values) -> bool:
    """Every user of `user_ids` is a member at the form's level, with its expiry."""
    by_id = {member.id: member for member in members}
    level, expires = int(values["access_level"]), str(values.get("expires_at") or "")
    wanted = list(user_ids)
    return bool(wanted) and all(
        uid in by_id and by_id[uid].access_level == level and _iso_day(by_id[uid].expires_at) == expires
        for uid in wanted)
