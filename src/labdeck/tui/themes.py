"""Themes as files: every TOML in the package's `themes/` folder and in `<config dir>/themes/` is a Textual
`Theme` (name, primary, secondary, accent, foreground, background, surface, panel, success, warning, error,
dark, variables). A broken file is skipped with a warning, never a crash.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from textual.theme import Theme

DEFAULT_THEME = "labdeck-dark"
_COLOUR_FIELDS = ("primary", "secondary", "accent", "foreground", "background", "surface", "panel",
                  "success", "warning", "error", "boost")
_OTHER_FIELDS = ("name", "dark", "variables", "luminosity_spread", "text_alpha")


class ThemeFileError(ValueError):
    """A theme file that cannot be used; the message names the file and the problem."""


@dataclass
class ThemeSet:
    themes: list[Theme] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [theme.name for theme in self.themes]


def package_theme_dir() -> Path:
    """The shipped themes: `labdeck/themes` in an installed wheel, else the repository's top-level `themes/`
    (an editable install runs from the checkout, where the themes are not inside the package)."""
    here = Path(__file__).resolve()
    installed = here.parent.parent / "themes"
    return installed if installed.is_dir() else here.parents[3] / "themes"


def user_theme_dir(config_file: Path | None) -> Path | None:
    """`<config dir>/themes` next to the config file, or None when there is no config path."""
    return None if config_file is None else Path(config_file).parent / "themes"


def load_theme_file(path: Path) -> Theme:
    """Read one theme TOML; raises ThemeFileError with the file name and what is wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ThemeFileError(f"{path}: {error}") from None
    unknown = sorted(set(data) - set(_COLOUR_FIELDS) - set(_OTHER_FIELDS))
    if unknown:
        raise ThemeFileError(f"{path}: unknown field(s) {', '.join(unknown)}")
    name = data.get("name") or path.stem
    if not isinstance(name, str):
        raise ThemeFileError(f"{path}: name must be a string")
    if "primary" not in data:
        raise ThemeFileError(f"{path}: primary is required")
    for key in _COLOUR_FIELDS:
        if key in data and not isinstance(data[key], str):
            raise ThemeFileError(f"{path}: {key} must be a colour string")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ThemeFileError(f"{path}: variables must be a table of strings")
    if not isinstance(data.get("dark", True), bool):
        raise ThemeFileError(f"{path}: dark must be true or false")
    kwargs = {key: data[key] for key in (*_COLOUR_FIELDS, "dark", "luminosity_spread", "text_alpha")
              if key in data}
    try:
        theme = Theme(name=name, variables=dict(variables), **kwargs)
        theme.to_color_system()  # validates every colour now, not at first paint
    except Exception as error:
        raise ThemeFileError(f"{path}: {error}") from None
    return theme


def discover_themes(*folders: Path | None) -> ThemeSet:
    """Load every `*.toml` of the folders in order; a later file with the same name replaces an earlier."""
    result = ThemeSet()
    by_name: dict[str, Theme] = {}
    for folder in folders:
        if folder is None or not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = load_theme_file(path)
            except ThemeFileError as error:
                result.warnings.append(str(error))
                continue
            by_name[theme.name] = theme
    result.themes = list(by_name.values())
    return result
