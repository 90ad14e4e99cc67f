"""The built package, not the checkout: a wheel of labdeck ships the top-level `themes/` as `labdeck/themes`
and every `.tcss`, and an installed copy finds its themes inside itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(p.name for p in (ROOT / "themes").glob("*.toml"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(out), str(ROOT)], check=True, capture_output=True, timeout=300)
    return next(out.glob("labdeck-*.whl"))


def test_the_wheel_holds_the_themes_and_the_styles(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert SHIPPED, "the repository's themes/ folder is empty"
    assert {f"labdeck/themes/{name}" for name in SHIPPED} <= names
    styles = {n for n in names if n.endswith(".tcss")}
    expected = {str(p.relative_to(ROOT / "src")) for p in (ROOT / "src" / "labdeck").rglob("*.tcss")}
    assert expected and expected <= styles
    assert not any(n.startswith(("themes/", "tests/", "src/")) for n in names)


def test_an_installed_copy_offers_its_own_themes(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                    str(wheel)], check=True, capture_output=True, timeout=300)
    code = (
        "import json, labdeck\n"
        "from labdeck.tui.themes import discover_themes, package_theme_dir\n"
        "found = discover_themes(package_theme_dir())\n"
        "print(json.dumps({'module': labdeck.__file__, 'folder': str(package_theme_dir()),\n"
        "                  'themes': found.names, 'warnings': found.warnings}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          check=True, cwd=tmp_path)
    seen = json.loads(done.stdout)
    assert seen["module"].startswith(str(target))
    assert seen["folder"].startswith(str(target))
    assert len(seen["themes"]) == len(SHIPPED) and seen["warnings"] == []
    assert "labdeck-dark" in seen["themes"]
