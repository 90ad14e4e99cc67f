"""List exports and downloads are private files that never leak a secret (issue 22 item 5): created 0600,
never through a symbolic link (a dangling one is refused at once: it used to make the export spin forever),
no CI variable value (revealed or not), no e-mail in clear, and CSV cells that a spreadsheet would run as a
formula neutralised (OWASP). Crash reports are new 0600 files in a 0700 folder."""

from __future__ import annotations

import csv
import json
import os
import stat
import threading
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from labdeck.api.models.moderation import ModeratedUser
from labdeck.api.models.variables import CiVariable
from labdeck.api.private_files import UnsafeFile
from labdeck.tui.downloads import SaveError, save_file
from labdeck.tui.errors import add_to_crash_log, write_crash_log
from labdeck.tui.kit.variables import variable_key, variable_tab
from labdeck.tui.list_export import check_target, create_exclusive, write_rows
from labdeck.tui.screens.users.users import user_columns
from labdeck.tui.widgets.table_columns import column_cells
from labdeck.tui.widgets.table_model import Column


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def table(columns: list[Column], cells: Any) -> Any:
    """What the export reads of a ResourceTable: its columns and the cells of a row."""
    return SimpleNamespace(columns=columns, model=SimpleNamespace(cells_of=lambda row: tuple(cells(row))))


async def export(path: Path, columns: list[Column], cells: Any, rows: list[Any]) -> Path:
    return await write_rows(path, table(columns, cells), rows, lambda _n: None)


def test_a_dangling_symlink_at_the_export_target_is_refused_at_once(tmp_path: Path) -> None:
    link = tmp_path / "projects.csv"
    link.symlink_to(tmp_path / "elsewhere.csv")
    outcome: list[BaseException | tuple[Path, Any]] = []

    def attempt() -> None:
        try:
            outcome.append(create_exclusive(link))
        except BaseException as error:
            outcome.append(error)

    worker = threading.Thread(target=attempt, daemon=True)  # a daemon: a spinning one cannot hang pytest
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "the export spins on a dangling symlink"
    assert isinstance(outcome[0], UnsafeFile) and "symbolic link" in str(outcome[0])
    assert not (tmp_path / "elsewhere.csv").exists()
    assert "symbolic link" in str(check_target(str(link)))  # the dialog says so before it closes


async def test_an_export_is_0600_and_never_overwrites(tmp_path: Path) -> None:
    columns = [Column("name", "Name")]
    first = await export(tmp_path / "list.csv", columns, lambda row: (row,), ["a"])
    second = await export(tmp_path / "list.csv", columns, lambda row: (row,), ["b"])
    assert (first.name, second.name) == ("list.csv", "list (1).csv")
    assert mode(first) == 0o600 and mode(second) == 0o600


@pytest.mark.parametrize("suffix", [".csv", ".json"])
async def test_no_variable_value_reaches_an_export_even_revealed(tmp_path: Path, suffix: str) -> None:
    variables = [CiVariable(key="DEPLOY_KEY", value="s3cr3t-revealed", masked=True, protected=True,
                            environment_scope="production", variable_type="env_var"),
                 CiVariable(key="PLAIN", value="plain-value", masked=False, environment_scope="*")]
    spec = variable_tab({variable_key(v) for v in variables})  # every masked value revealed on screen
    assert "s3cr3t-revealed" in "".join(str(c) for c in spec.cells(variables[0]))
    path = await export(tmp_path / f"vars{suffix}", spec.columns, spec.cells, variables)
    text = path.read_text(encoding="utf-8")
    assert "s3cr3t-revealed" not in text and "plain-value" not in text
    if suffix == ".csv":
        head = next(csv.reader(text.splitlines()))
        assert head == ["key", "type", "scope", "protected", "masked", "hidden", "id", "web_url"]
    else:
        assert json.loads(text)[0]["key"] == "DEPLOY_KEY" and "value" not in json.loads(text)[0]


async def test_no_email_reaches_an_export(tmp_path: Path) -> None:
    users = [ModeratedUser(id=7, username="alice", name="Alice", state="active", email="alice@example.com")]
    columns = user_columns(date(2026, 1, 1))
    path = await export(tmp_path / "users.csv", columns, column_cells(columns), users)
    text = path.read_text(encoding="utf-8")
    assert "alice@example.com" not in text and "Email" not in text
    assert "alice" in text


async def test_csv_cells_that_would_run_as_formulas_are_neutralised(tmp_path: Path) -> None:
    hostile = ["=HYPERLINK(\"http://evil\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "safe", "a=b"]
    path = await export(tmp_path / "t.csv", [Column("title", "Title")], lambda row: (row,), hostile)
    with path.open(encoding="utf-8", newline="") as handle:
        cells = [row[0] for row in list(csv.reader(handle))[1:]]
    assert cells == ["'=HYPERLINK(\"http://evil\")", "'+1+1", "'-2+3", "'@SUM(A1)", "'\tx", "'\rx", "safe",
                     "a=b"]


async def test_a_download_never_goes_through_a_dangling_symlink(tmp_path: Path) -> None:
    link = tmp_path / "acme_export.tar.gz"
    victim = tmp_path / "victim" / "bashrc"
    victim.parent.mkdir()
    link.symlink_to(victim)
    with pytest.raises(SaveError, match="symbolic link"):
        await save_file(link, b"archive")
    assert not victim.exists()
    victim.write_text("untouched", encoding="utf-8")  # a live link: the same
    with pytest.raises(SaveError, match="symbolic link"):
        await save_file(link, b"archive")
    assert victim.read_text(encoding="utf-8") == "untouched"
    written = await save_file(tmp_path / "other.tar.gz", b"archive")
    assert mode(written) == 0o600 and written.read_bytes() == b"archive"


def test_a_crash_report_is_a_new_0600_file_in_a_0700_folder(tmp_path: Path) -> None:
    folder = tmp_path / "log"
    folder.mkdir(mode=0o755)
    try:
        raise RuntimeError("boom")
    except RuntimeError as error:
        first = write_crash_log(error, directory=folder)
        second = write_crash_log(error, directory=folder)
    assert first != second  # never over an earlier report
    assert mode(first) == 0o600 and mode(folder) == 0o700


def test_a_later_error_is_never_appended_through_a_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("untouched", encoding="utf-8")
    link = tmp_path / "labdeck" / "crash.log"
    link.parent.mkdir()
    link.symlink_to(victim)
    with pytest.raises(UnsafeFile):
        add_to_crash_log(link, RuntimeError("later"))
    assert victim.read_text(encoding="utf-8") == "untouched"
