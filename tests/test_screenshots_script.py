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


def test_a_shot_never_shows_the_users_own_journal(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The shots run in a state folder of their own: a change in the user's journal (here, one whose target
    is a name no demo has) never reaches a picture (a committed screenshot once showed a stranger's)."""
    import json
    from dataclasses import asdict

    from labdeck.api.journal import JournalEntry
    from labdeck.tui.launch import demo_settings
    from labdeck.tui.session import journal_file

    mine = tmp_path / "mine"
    monkeypatch.setenv("LABDECK_STATE", str(mine / "state.json"))
    journal = journal_file(demo_settings("http://sandbox.test"), mine)  # the journal the shots' app opens
    journal.parent.mkdir(parents=True)
    entry = JournalEntry(id="1", at=1_800_000_000.0, operation="create label", kind="other",
                         target="my-private-marker", method="POST", path="groups/26/labels", result="done",
                         ok=True)
    journal.write_text(json.dumps(asdict(entry)) + "\n")
    out = tmp_path / "shots"
    assert _script().main(["--only", "journal", "--out", str(out), "--size", "100x30"]) == 0
    assert "my-private-marker" not in (out / "journal.svg").read_text(encoding="utf-8")
    assert str(mine / "state.json") == __import__("os").environ["LABDECK_STATE"]  # given back as it was
