"""Every screen and widget class of labdeck that declares bindings: for keymap checks and the id test."""

from __future__ import annotations

from typing import Any


def screen_classes() -> list[type[Any]]:
    from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen
    from labdeck.tui.screens.projects.projects import ProjectsScreen
    from labdeck.tui.screens.shell.export import ExportDialog
    from labdeck.tui.screens.shell.first_run import FirstRunScreen
    from labdeck.tui.screens.shell.help import HelpScreen
    from labdeck.tui.screens.shell.home import HomeScreen
    from labdeck.tui.screens.shell.jobs import JobResultsScreen, JobsScreen
    from labdeck.tui.screens.shell.journal import JournalScreen
    from labdeck.tui.screens.shell.jump import JumpScreen
    from labdeck.tui.screens.shell.overview import OverviewScreen
    from labdeck.tui.screens.shell.request_log import RequestLogScreen
    from labdeck.tui.screens.users.users import OperationMenu, UsersScreen
    from labdeck.tui.widgets.resource_table import ResourceTable

    return [HomeScreen, JumpScreen, HelpScreen, JobsScreen, JobResultsScreen, RequestLogScreen, JournalScreen,
            OverviewScreen, ExportDialog,
            ProjectsScreen, ConfirmScreen, TypeToConfirmScreen, FirstRunScreen, ResourceTable,
            UsersScreen, OperationMenu, *_deployment_classes(), *_project_view_classes(),
            *_admin_classes()]


def _admin_classes() -> list[type[Any]]:
    from labdeck.tui.screens.admin.instance_variables import InstanceVariablesScreen
    from labdeck.tui.screens.groups.forms import FormScreen
    from labdeck.tui.screens.groups.groups import GroupsScreen

    return [InstanceVariablesScreen, GroupsScreen, FormScreen]


def _deployment_classes() -> list[type[Any]]:
    from labdeck.tui.screens.deployments.deployments import DeploymentsScreen
    from labdeck.tui.screens.deployments.dialogs import (
        CreateDeploymentDialog,
        DeploymentDetailScreen,
        StatusDialog,
    )
    from labdeck.tui.screens.deployments.protected_environments import (
        AddRuleDialog,
        ProtectedEnvironmentsScreen,
    )

    return [DeploymentsScreen, StatusDialog, CreateDeploymentDialog, DeploymentDetailScreen,
            ProtectedEnvironmentsScreen, AddRuleDialog]


def _project_view_classes() -> list[type[Any]]:
    from labdeck.tui.screens.projects.dialogs import ForkDialog, PathPrompt, SubmitDialog
    from labdeck.tui.screens.projects.error_tracking import ErrorTrackingTab
    from labdeck.tui.screens.projects.forks import ForksTab
    from labdeck.tui.screens.projects.members import MembersTab
    from labdeck.tui.screens.projects.pages import PagesTab
    from labdeck.tui.screens.projects.tags import TagsTab
    from labdeck.tui.screens.projects.view import ProjectViewScreen
    from labdeck.tui.screens.projects.wiki import WikiEditorScreen, WikiTab

    return [ProjectViewScreen, WikiTab, WikiEditorScreen, TagsTab, PagesTab, ErrorTrackingTab, ForksTab,
            SubmitDialog, ForkDialog, PathPrompt, MembersTab]
