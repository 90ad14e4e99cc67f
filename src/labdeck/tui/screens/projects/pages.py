"""The project view's Pages tab, a list pane of the kit: the project's Pages domains (read through their
binding) with their certificate's expiry, expired ones in red and those expiring within 30 days in yellow;
`n` adds a domain (PEM files for certificate and key), `c` replaces a domain's certificate, `x` removes it,
`delete` deletes the domain (each asks first where it destroys something).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from rich.text import Text
from textual import work
from textual.content import Content

from labdeck.api import bindings
from labdeck.api.errors import NotFound
from labdeck.api.models.project_resources import PagesDomain
from labdeck.api.models.projects import Project
from labdeck.tui.clock import now_of
from labdeck.tui.kit.actions import Action, Shown, shown
from labdeck.tui.kit.owner import project_owner
from labdeck.tui.kit.panes import ListPane
from labdeck.tui.kit.tabs import TabSpec
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.projects.dialogs import DomainDialog, DomainRequest
from labdeck.tui.widgets.footer import LIST_KEYS, TAB_KEYS
from labdeck.tui.widgets.table_model import Column
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form

Now = Callable[[], datetime]
EXPIRY_STYLES = {"expired": "bold red", "soon": "yellow", "valid": "green", "none": "dim", "unknown": "dim"}


def expiry_text(domain: PagesDomain, now: datetime) -> Text:
    """`expired 35d ago`, `in 10d`, `2027-12-27`, `no certificate`, styled by urgency."""
    state = domain.expiry_state(now)
    not_after = domain.not_after
    if state == "none":
        label = "no certificate"
    elif not_after is None:
        label = "expired" if state == "expired" else "unknown"
    elif state == "expired":
        label = f"expired {(now - not_after).days}d ago"
    elif state == "soon":
        label = f"in {(not_after - now).days}d ({not_after:%Y-%m-%d})"
    else:
        label = f"{not_after:%Y-%m-%d}"
    return Text(label, style=EXPIRY_STYLES[state])


def domain_detail(domain: PagesDomain) -> Text:
    detail = Text(domain.domain, style="bold")
    if domain.verified is not None:  # GitLab sends these; an old or odd server may not
        detail.append("\nverified: ", style="dim")
        detail.append("yes" if domain.verified else "no, publish the TXT record below",
                      style="" if domain.verified else "yellow")
        if domain.enabled_until is not None:
            detail.append(f"\nenabled until: {domain.enabled_until:%Y-%m-%d %H:%M}", style="dim")
        if domain.verification_code:
            detail.append("\nverification code: ", style="dim")
            detail.append(domain.verification_code)
    if domain.certificate and domain.certificate.certificate_text:
        detail.append("\n\n")
        detail.append(domain.certificate.certificate_text)
    return detail


def _expiry_key(domain: PagesDomain) -> float:
    not_after = domain.not_after
    return not_after.timestamp() if not_after else float("inf")


def domain_columns(now: Now) -> list[Column]:
    """The columns of a Pages domain list (the expiry is told against `now()`)."""
    return [
        Column("domain", "Domain", min_width=24, text=lambda d: Text(d.domain), data=lambda d: d.domain),
        Column("expiry", "Certificate expiry", width=24, sort_key=_expiry_key,
               text=lambda d: expiry_text(d, now()), data=lambda d: d.not_after),
        Column("auto_ssl", "Auto SSL", width=8, text=lambda d: Text("yes" if d.auto_ssl_enabled else ""),
               data=lambda d: bool(d.auto_ssl_enabled)),
        Column("subject", "Subject", min_width=16,
               text=lambda d: Text(d.certificate.subject or "" if d.certificate else "", style="dim"),
               data=lambda d: d.certificate.subject if d.certificate else None),
        Column("url", "URL", min_width=16, text=lambda d: Text(d.url or ""), data=lambda d: d.url),
    ]


class PagesTab(ListPane):
    LISTING = bindings.PROJECT_PAGES_DOMAINS
    ENTER_OPENS_DETAIL = True
    # the footer while this tab has focus, most useful first (`widgets.footer`)
    ACTIONS = (
        Shown("select"),
        Action("n", "new_domain", "New domain", id="project_pages.new", mutating=True, footer=True),
        Action("c", "certificate", "Certificate", id="project_pages.certificate",
               mutating=True, row=True, footer=True),
        Action("x", "remove_certificate", "Remove certificate", id="project_pages.remove_certificate",
               mutating=True, row=True, footer=True),
        Action("delete", "delete_domain", "Delete domain", id="project_pages.delete",
               mutating=True, row=True, footer=True),
        *shown(TAB_KEYS),
        Shown("fork"),
        *shown(LIST_KEYS),
    )

    def __init__(self, project: Project, *, now: Now | None = None, id: str | None = None) -> None:
        clock = now_of(self, now)
        spec = TabSpec(domain_columns(clock), lambda d: d.domain, domain_detail, "No Pages domains")
        super().__init__(project_owner(project), spec, id=id, view_id="pages-view")
        self.project = project
        self.now = clock

    def _saved(self, verb: str) -> Callable[[Any], None]:
        def done(domain: Any) -> None:
            if isinstance(domain, PagesDomain):
                self.notify(f"{verb} {domain.domain}", markup=False)
                self.reload()
        return done

    def action_new_domain(self) -> None:
        project_id = self.project.id

        async def save(request: DomainRequest) -> PagesDomain:
            return await self.ctx.services.pages.create(
                project_id, request.name, auto_ssl_enabled=request.auto_ssl, certificate=request.certificate,
                key=request.key, as_files=True)

        self._open_domain_form(DomainDialog(), save, "Added", None)

    def action_certificate(self) -> None:
        domain, project_id = self.table.cursor_row, self.project.id
        if not isinstance(domain, PagesDomain):
            return

        async def save(request: DomainRequest) -> PagesDomain:
            return await self.ctx.services.pages.update(
                project_id, request.name, auto_ssl_enabled=request.auto_ssl, certificate=request.certificate,
                key=request.key, as_files=True)

        self._open_domain_form(DomainDialog(domain=domain.domain, auto_ssl=domain.auto_ssl_enabled), save,
                               "Updated", domain)

    def _open_domain_form(self, dialog: DomainDialog, save: Callable[[DomainRequest], Any],
                          verb: str, domain: PagesDomain | None) -> None:
        """After a lost answer the domain is read again: there, with that automatic-certificate setting and,
        when one was sent, that certificate?"""
        project_id = self.project.id

        async def saved(request: DomainRequest) -> bool:
            try:
                found = await self.ctx.services.pages.domain(project_id, request.name)
            except NotFound:
                return False
            pem = found.certificate.certificate if found.certificate is not None else None
            return found.auto_ssl_enabled == request.auto_ssl and (
                request.certificate is None or (pem or "").strip() == request.certificate.strip())

        open_write_form(self, dialog, save, verify=saved, row=domain, done=self._saved(verb),
                        refresh=lambda: self.reload() if is_live(self) else None)

    def _confirm(self, title: str, template: str, domain: PagesDomain, act: Callable[[str], Any]) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                act(domain.domain)

        self.app.push_screen(ConfirmScreen(title, Content.from_markup(template, domain=domain.domain,
                                                                      project=self.owner.where),
                                           confirm_label=title.split()[0]), answered)

    def action_remove_certificate(self) -> None:
        domain = self.table.cursor_row
        if isinstance(domain, PagesDomain) and domain.certificate is not None:
            self._confirm("Remove certificate", "Remove the certificate of [b]$domain[/b] of "
                          "[b]$project[/b]? It is then served over plain HTTP.", domain,
                          self.remove_certificate)

    def action_delete_domain(self) -> None:
        domain = self.table.cursor_row
        if isinstance(domain, PagesDomain):
            self._confirm("Delete domain", "Delete the Pages domain [b]$domain[/b] of [b]$project[/b]?",
                          domain, self.delete_domain)

    @work(group="project-pages-change")
    async def remove_certificate(self, name: str) -> None:
        removed = await self.ctx.services.pages.remove_certificate(self.project.id, name)
        self._saved("Removed the certificate of")(removed)

    @work(group="project-pages-change")
    async def delete_domain(self, name: str) -> None:
        await self.ctx.services.pages.delete(self.project.id, name)
        self.notify(f"Deleted {name}", markup=False)
        self.reload()
