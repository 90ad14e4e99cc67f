"""Root of the test folders. Its presence puts `tests/` on `sys.path` (pytest's default `prepend` import
mode), so every folder can import the helper modules kept here (`faulty_sandbox`). Every test gets a state
folder of its own (the undo journals), never the user's."""

import pytest


@pytest.fixture(autouse=True)
def _private_state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABDECK_STATE_DIR", str(tmp_path_factory.mktemp("state")))
