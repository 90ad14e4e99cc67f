"""Badge URL rules shared by the sandbox and the TUI (GitLab's `Badge` model and `doc/api/group_badges.md`):

- the placeholders a link or image URL may hold, each replaced by a fact of the project the badge is
  rendered for (for a group badge: the group's first project by creation date; with no project the URL
  is left as it is);
- a link or image URL must be http or https (`validates :link_url, :image_url, url: { protocols: %w(http
  https) }`): anything else is refused before sending, and by the sandbox with GitLab's message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final
from urllib.parse import urlsplit

# Every placeholder GitLab knows, in the order its documentation lists them.
PLACEHOLDERS: Final = ("project_path", "project_title", "project_name", "project_id", "project_namespace",
                       "group_name", "gitlab_server", "gitlab_pages_domain", "default_branch", "commit_sha",
                       "latest_tag")
ALLOWED_SCHEMES: Final = ("http", "https")
SCHEME_ERROR: Final = "is blocked: Only allowed schemes are http, https"
_PLACEHOLDER = re.compile(r"%\{(" + "|".join(PLACEHOLDERS) + r")\}")


def placeholder_list() -> str:
    """`%{project_path}, %{project_title}, ...` for labels and help."""
    return ", ".join(f"%{{{name}}}" for name in PLACEHOLDERS)


def url_error(url: str) -> str | None:
    """GitLab's message when `url` is not an http(s) URL with a host, else None."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return SCHEME_ERROR
    if parts.scheme.lower() not in ALLOWED_SCHEMES or not parts.netloc:
        return SCHEME_ERROR
    return None


def badge_errors(link_url: str | None, image_url: str | None) -> dict[str, list[str]]:
    """Field errors of a badge's URLs (only those given), shaped like GitLab's validation body."""
    errors: dict[str, list[str]] = {}
    for name, url in (("link_url", link_url), ("image_url", image_url)):
        if url is not None:
            problem = url_error(url)
            if problem:
                errors[name] = [problem]
    return errors


def render_url(url: str, values: Mapping[str, str | None]) -> str:
    """`url` with each known placeholder replaced by its value (one whose value is None, such as
    `latest_tag` of a project without tags, becomes empty, as GitLab's replacer does; text that is not a
    known placeholder stays as it is)."""
    return _PLACEHOLDER.sub(lambda match: values.get(match.group(1)) or "", url)
