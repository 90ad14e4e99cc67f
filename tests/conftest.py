"""Root of the test folders. Its presence puts `tests/` on `sys.path` (pytest's default `prepend` import
mode), so every folder can import the helper modules kept here (`faulty_sandbox`, `mypy_run`).

The secrets registry (`labdeck.domain.redaction`) is process-wide: every test starts with it empty, so a
token one test registered never changes what another test sees. labdeck's state file (`$LABDECK_STATE`) is a
fresh file of each test's own, never the user's; so is the cache folder (`$LABDECK_CACHE_DIR`).

Hypothesis runs without its timing checks (no per-example deadline, no "too slow" health check): on a
shared machine at a load of 4 a draw can take seconds, and how fast the machine is proves nothing about
the property under test.

Pilot's idle wait (`textual._wait.wait_for_idle`, behind every `pilot.press` and `pilot.pause()`) sleeps in
steps of 20 ms and returns once a step used under 5 % of its time on the CPU. The tests take 5 ms steps with
the same 5 % rule: an idle app is seen as idle four times sooner, a working one is still waited for. Its two
names are checked against the Textual release in `tests/tui/test_textual_internals.py`.

Apps made in the tests do not animate (`textual.constants.TEXTUAL_ANIMATIONS`, which `App.__init__` reads;
the environment variable of the same name is read when Textual is imported, before this file): a scroll, a
tab's underline or a toast takes its final value at once, so a test waits for no animation and no frame is
drawn in between (about a third of the time of a Pilot test on a busy machine). What is drawn at the end is
the same; labdeck itself, the end-to-end tests' included, animates as configured.

The Pilot tests' apps lay out every frame but draw only when a test looks, and share parsed CSS
(`pilot_speed.py`); a test about drawing itself is marked `drawn`; `pilot_speed.draw_whole` draws a
screen as the terminal would (the tests of every screen and dialog of the catalogues). A tiny sandbox on
a stopped clock starts from a copy of one seeded store (`seeded_stores.py`). What is alive once the suite
is collected (modules, test items: a few hundred thousand objects) is frozen (`gc.freeze`), so a full
collection walks only what the tests make; it made a third of the sandbox tests' time.

`--shift-clock DAYS` runs every test with the calendar moved (`clock_shift.py`)."""

from __future__ import annotations

import gc
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
import textual._wait
import textual.constants
from hypothesis import HealthCheck, settings

from clock_shift import shift_clock
from labdeck.domain.redaction import forget_secrets
from mypy_run import MypyRun, mypy_once, shared_folder
from pilot_speed import every_frame_drawn
from pilot_speed import install as install_pilot_speed
from seeded_stores import install as install_seeded_stores
from warm_bytecode import warm

textual._wait.SLEEP_GRANULARITY = 0.005
textual._wait.SLEEP_IDLE = textual._wait.SLEEP_GRANULARITY / 20
textual.constants.TEXTUAL_ANIMATIONS = "none"

install_pilot_speed()
install_seeded_stores()

settings.register_profile("labdeck", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("labdeck")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--shift-clock", type=int, default=0, metavar="DAYS",
                     help="run with the calendar moved DAYS days (tests/clock_shift.py)")


def pytest_configure(config: pytest.Config) -> None:
    warm(config)  # the controller of an xdist run compiles once for its workers (`warm_bytecode.py`)
    days = config.getoption("--shift-clock")
    if days:  # every process of the run, xdist's workers included (they are given the option)
        config.add_cleanup(shift_clock(days))


@pytest.fixture(autouse=True)
def _frames_drawn_if_marked(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.get_closest_marker("drawn") is None:
        yield
        return
    with every_frame_drawn():
        yield


@pytest.fixture(autouse=True)
def _fresh_secrets_registry() -> Iterator[None]:
    forget_secrets()
    yield
    forget_secrets()


@pytest.fixture(scope="session")
def _private_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A new empty folder for each test that asks (`next()`), under one folder of the process: pytest's
    `mktemp` lists every folder made before it to number a new one, twice a test for the two below."""
    root = tmp_path_factory.mktemp("private")
    return (_made(root / str(number)) for number in itertools.count())


def _made(folder: Path) -> Path:
    folder.mkdir()
    return folder


@pytest.fixture(autouse=True)
def _private_state_file(_private_folders: Iterator[Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    path = next(_private_folders) / "state.json"
    monkeypatch.setenv("LABDECK_STATE", str(path))
    return path


@pytest.fixture(autouse=True)
def _private_cache_dir(_private_folders: Iterator[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """What labdeck caches (the registry tag-detail cache) goes to a folder of each test's own."""
    monkeypatch.setenv("LABDECK_CACHE_DIR", str(next(_private_folders)))


@pytest.fixture(scope="session")
def mypy_run(tmp_path_factory: pytest.TempPathFactory) -> MypyRun:
    """The suite's one mypy run over the project and `tests/mypy_snippets/` (`mypy_run.py`)."""
    return mypy_once(shared_folder(tmp_path_factory.getbasetemp()))


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.collect()
    gc.freeze()

