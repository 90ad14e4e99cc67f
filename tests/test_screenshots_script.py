"""The docs' screenshot script (scripts/screenshots.py) runs: one shot, from the demo app, as an SVG."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("labdeck_screenshots", ROOT / "scripts" / "screenshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_area_has_a_shot() -> None:
    from labdeck.tui.areas import AREAS

    names = {shot.name for shot in _script().SHOTS}
    assert set(AREAS) <= names


def test_the_script_takes_the_home_shot(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert _script().main(["--only", "home", "--out", str(tmp_path), "--size", "100x30"]) == 0
    svg = (tmp_path / "home.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg")
    for word in ("Groups", "Issues", "Registry"):  # the home lists the areas
        assert word in svg
    assert "home.svg" in capsys.readouterr().out
