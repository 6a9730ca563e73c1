"""A real browser for the watching page's tests: the system's Chromium under Playwright.

Playwright drives the Chromium that the operating system's package installed
(``make browser`` installs it when missing), found on PATH or named by
``BALLROOM_CHROMIUM``; Playwright's own browser download is never used.
Every websocket frame the page receives is recorded, as the secrecy tests
record a client's frames.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from playwright.async_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    WebSocket,
    async_playwright,
)

__all__ = ["ARTIFACTS", "Watcher", "chromium_path", "launched"]

#: Screenshots land here (git ignores /var/).
ARTIFACTS = Path(
    os.environ.get(
        "BALLROOM_ARTIFACTS", Path(__file__).resolve().parents[2] / "var" / "test-artifacts"
    )
)

_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium_path() -> str | None:
    """The system's Chromium, or None when there is none."""
    named = os.environ.get("BALLROOM_CHROMIUM")
    if named:
        return named
    return next((found for name in _NAMES if (found := shutil.which(name))), None)


@contextlib.asynccontextmanager
async def launched(executable: str, *options: str) -> AsyncIterator[Browser]:
    """A headless Chromium for one test, with these command-line options."""
    # Chromium's sandbox needs user namespaces, which root in a container lacks.
    args = [*options, "--no-sandbox"] if os.geteuid() == 0 else list(options)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, args=args)
        try:
            yield browser
        finally:
            await browser.close()


@dataclass
class Watcher:
    """One page, with every websocket frame it received and every error it logged."""

    page: Page
    frames: list[bytes] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @classmethod
    async def open(cls, browser: Browser, width: int = 1440, height: int = 900) -> Watcher:
        return cls._watch(await browser.new_page(viewport={"width": width, "height": height}))

    @classmethod
    async def open_in(cls, context: BrowserContext, width: int, height: int) -> Watcher:
        """A tab of ``context``: tabs of one context share storage, as one person's tabs do."""
        page = await context.new_page()
        await page.set_viewport_size({"width": width, "height": height})
        return cls._watch(page)

    @classmethod
    def _watch(cls, page: Page) -> Watcher:
        watcher = cls(page)
        page.on("websocket", watcher._record)
        page.on("pageerror", lambda error: watcher.errors.append(str(error)))
        page.on("console", watcher._console)
        return watcher

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def _record(self, socket: WebSocket) -> None:
        def keep(payload: bytes | str) -> None:
            self.frames.append(payload if isinstance(payload, bytes) else payload.encode())

        socket.on("framereceived", keep)

    def messages(self) -> list[dict[str, Any]]:
        """The frames received so far, decoded."""
        return [msgpack.unpackb(frame, raw=False) for frame in self.frames]

    async def screenshot(self, name: str, width: int, height: int) -> Path:
        """The page at this size, saved under :data:`ARTIFACTS`."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        await self.page.set_viewport_size({"width": width, "height": height})
        path = ARTIFACTS / f"{name}-{width}x{height}.png"
        await self.page.screenshot(path=str(path), full_page=True)
        return path
