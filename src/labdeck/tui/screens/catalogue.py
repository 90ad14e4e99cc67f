"""Every screen and widget class of labdeck that declares bindings: for keymap checks and the id test."""

from __future__ import annotations

from typing import Any


def screen_classes() -> list[type[Any]]:
    from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen
    from labdeck.tui.screens.first_run import FirstRunScreen
    from labdeck.tui.screens.help import HelpScreen
    from labdeck.tui.screens.home import HomeScreen
    from labdeck.tui.screens.jobs import JobResultsScreen, JobsScreen
    from labdeck.tui.screens.jump import JumpScreen
    from labdeck.tui.screens.projects import ProjectsScreen
    from labdeck.tui.screens.request_log import RequestLogScreen
    from labdeck.tui.screens.users import OperationMenu, UsersScreen
    from labdeck.tui.widgets.resource_table import ResourceTable

    return [HomeScreen, JumpScreen, HelpScreen, JobsScreen, JobResultsScreen, RequestLogScreen,
            ProjectsScreen, ConfirmScreen, TypeToConfirmScreen, FirstRunScreen, ResourceTable,
            UsersScreen, OperationMenu, *_deployment_classes(), *_project_view_classes(),
            *_admin_classes()]


def _admin_classes() -> list[type[Any]]:
    from labdeck.tui.screens.group_forms import FormScreen
    from labdeck.tui.screens.groups import GroupsScreen
    from labdeck.tui.screens.instance_variables import InstanceVariablesScreen

    return [InstanceVariablesScreen, GroupsScreen, FormScreen]


def _deployment_classes() -> list[type[Any]]:
    from labdeck.tui.screens.deployment_dialogs import (
        CreateDeploymentDialog,
        DeploymentDetailScreen,
        StatusDialog,
    )
    from labdeck.tui.screens.deployments import DeploymentsScreen
    from labdeck.tui.screens.protected_environments import AddRuleDialog, ProtectedEnvironmentsScreen

    return [DeploymentsScreen, StatusDialog, CreateDeploymentDialog, DeploymentDetailScreen,
            ProtectedEnvironmentsScreen, AddRuleDialog]


def _project_view_classes() -> list[type[Any]]:
    from labdeck.tui.screens.project_dialogs import ForkDialog, PathPrompt, SubmitDialog
    from labdeck.tui.screens.project_error_tracking import ErrorTrackingTab
    from labdeck.tui.screens.project_forks import ForksTab
    from labdeck.tui.screens.project_members import MembersTab
    from labdeck.tui.screens.project_pages import PagesTab
    from labdeck.tui.screens.project_tags import TagsTab
    from labdeck.tui.screens.project_view import ProjectViewScreen
    from labdeck.tui.screens.project_wiki import WikiEditorScreen, WikiTab

    return [ProjectViewScreen, WikiTab, WikiEditorScreen, TagsTab, PagesTab, ErrorTrackingTab, ForksTab,
            SubmitDialog, ForkDialog, PathPrompt, MembersTab]
