"""Root of the test folders. Its presence puts `tests/` on `sys.path` (pytest's default `prepend` import
mode), so every folder can import the helper modules kept here (`faulty_sandbox`)."""

import pytest


@pytest.fixture(autouse=True)
def _private_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test writes what labdeck caches (the registry tag-detail cache) to a folder of its own,
    never to the user's cache folder."""
    monkeypatch.setenv("LABDECK_CACHE_DIR", str(tmp_path_factory.mktemp("labdeck-cache")))
