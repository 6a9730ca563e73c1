"""What a running app shows, and waiting for it, for the terminal-client tests.

Textual redraws after the app's data has changed, not at the same moment: a test
that reads the screen right after a message, a key press or a screen switch may
read the old drawing. So tests wait for what they expect to see (``on_screen``),
or for any other condition (``until``), for up to the test timeout.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

from tests.server.conftest import TIMEOUT


def screen_text(app: App[Any]) -> str:
    """What the terminal shows, as plain text (Textual's screenshot path, without the SVG)."""
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), record=True, color_system=None
    )
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


async def until(pilot: Pilot[Any], check: Callable[[], object], what: str) -> None:
    """Let the app run until ``check()`` holds; fail after the test timeout."""
    deadline = time.monotonic() + TIMEOUT
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        await pilot.pause(0.01)


async def on_screen(pilot: Pilot[Any], *texts: str) -> str:
    """Let the app run until every one of ``texts`` is on its screen; the screen's text then.

    Fails after the test timeout, naming what is missing and showing the screen.
    """
    deadline = time.monotonic() + TIMEOUT
    while True:
        shown = screen_text(pilot.app)
        missing = [text for text in texts if text not in shown]
        if not missing:
            return shown
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {missing} on the screen:\n{shown}")
        await pilot.pause(0.01)
