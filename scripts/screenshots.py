"""Take an SVG screenshot of every area of `labdeck --demo`, for the docs.

    .venv/bin/python scripts/screenshots.py                 # every shot into docs/screenshots/
    .venv/bin/python scripts/screenshots.py --only home     # one shot
    .venv/bin/python scripts/screenshots.py --out /tmp/x --size 80x24

Each shot starts the app the way `--demo` does (the embedded sandbox at demo scale, signed in as root), but
in-process and with the sandbox's clock standing still, so that a shot changes only when the layout does. A
shot is the keys a person would type; run this again after a change of layout and commit the pictures. The
shots use a state and cache folder of their own, made fresh for the run: the user's undo journal, theme and
cache never reach a picture.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "docs" / "screenshots"


@dataclass(frozen=True)
class Shot:
    name: str
    title: str
    keys: tuple[str, ...]  # a key name (`enter`, `tab`) or `"text:..."` to type text
    real_time: bool = False  # the sandbox on the real clock (a view that compares with the time now)


def jump(area: str, *then: str) -> tuple[str, ...]:
    return (":", f"text:{area}", "enter", *then)


SHOTS: tuple[Shot, ...] = (
    Shot("home", "Home: every area, one key away, beside what needs attention", ()),
    Shot("overview", "The overview: what needs attention on the instance right now", jump("overview")),
    Shot("groups", "Groups: the tree and a group's tabs", jump("groups", "down", "enter")),
    Shot("projects", "Projects you can see", jump("projects")),
    Shot("project-view", "A project's view and its tabs", jump("projects", "enter")),
    Shot("issues", "Issues across the instance, with the query language", jump("issues")),
    Shot("registry", "Registry: repositories of a group", jump("registry", "text:acme", "enter")),
    Shot("registry-cleanup", "Registry cleanup: the exact preview before anything is deleted",
         jump("registry", "text:acme", "enter", "enter", "c", "text:.*", "tab", "text:^v[0-9]", "tab",
              "text:3")),
    Shot("registry-policy", "The cleanup policy: what GitLab's next run deletes, and why",
         jump("registry", "text:acme/platform/api-gateway", "enter", "p")),
    Shot("deployments", "Deployments of a project, newest first",
         jump("deployments", "text:acme/platform/api-gateway", "enter")),
    Shot("deployments-board", "What runs where across a group: the deployments board",
         jump("deployments", "text:fleet", "enter"), real_time=True),
    Shot("access", "The access review of a group: its tokens, expired, expiring, never expiring, unused",
         jump("access", "text:fleet", "enter", "right_square_bracket", "right_square_bracket")),
    Shot("users", "Users by moderation condition (administrators)", jump("users")),
    Shot("variables", "Instance CI/CD variables (administrators)", jump("variables")),
    Shot("pages", "Pages domains and their certificates (administrators)", jump("pages")),
    Shot("tasks", "The task centre: labdeck's own background tasks", jump("tasks")),
    Shot("log", "The request log", jump("log")),
    Shot("journal", "The undo journal: every change, and its undo", jump("journal")),
)


def demo_app(real_time: bool = False):  # type: ignore[no-untyped-def]
    """The app `--demo` builds, with the sandbox in-process and a clock that stands still (or the real
    clock: the deployments board measures ages from the time now)."""
    from labdeck.config.files import Config
    from labdeck.sandbox.app import create_app
    from labdeck.sandbox.clock import ManualClock
    from labdeck.sandbox.options import SandboxOptions
    from labdeck.tui.app import LabdeckApp
    from labdeck.tui.launch import demo_settings

    asgi = create_app(SandboxOptions(scale="demo"), clock=None if real_time else ManualClock())
    settings = demo_settings("http://sandbox.test")
    config = Config(path=Path("/nonexistent/labdeck-screenshots/config.toml"))
    return LabdeckApp(config, settings, transport_factory=lambda _settings: httpx.ASGITransport(asgi),
                      clock=lambda: 1000.0)


async def _settle(pilot) -> None:  # type: ignore[no-untyped-def]
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def take(shot: Shot, out: Path, size: tuple[int, int]) -> Path:
    """Run the demo app, type the shot's keys, save the screen as `<out>/<name>.svg`."""
    app = demo_app(shot.real_time)
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        for key in shot.keys:
            if key.startswith("text:"):
                await pilot.press(*key.removeprefix("text:"))
            else:
                await pilot.press(key)
            await _settle(pilot)
        return Path(app.save_screenshot(filename=f"{shot.name}.svg", path=str(out)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=[s.name for s in SHOTS],
                        help="one shot (repeatable)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--size", default="120x36", help="columns x rows (default 120x36)")
    args = parser.parse_args(argv)
    columns, rows = (int(n) for n in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    kept = {name: os.environ.get(name) for name in ("LABDECK_STATE", "LABDECK_CACHE_DIR")}
    with tempfile.TemporaryDirectory(prefix="labdeck-shots-") as private:
        os.environ["LABDECK_STATE"] = str(Path(private) / "state" / "state.json")
        os.environ["LABDECK_CACHE_DIR"] = str(Path(private) / "cache")
        try:
            for shot in SHOTS:
                if args.only and shot.name not in args.only:
                    continue
                path = asyncio.run(take(shot, args.out, (columns, rows)))
                print(f"{shot.name}: {path}")
        finally:
            for name, value in kept.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return 0


if __name__ == "__main__":
    sys.exit(main())
