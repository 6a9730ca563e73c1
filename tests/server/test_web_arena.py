"""An arena on the web page, in Chromium: its clock and standings, the entrant's Pause and
Come back, and the entrant taken to a race once back (docs/tournaments.md, *Arena*)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import BrowserContext, Page, expect

from client.session import ClientSession
from protocol.messages import (
    ManageTournament,
    TournamentAction,
    TournamentInfo,
)
from tests.server.browser import Watcher, launched
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST, host_tournament, resigner
from tests.server.pages import WAIT_MS, assert_clean, page_url, system_chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LAPTOP = (1280, 800)

expect.set_options(timeout=WAIT_MS)


@pytest.fixture
async def context() -> AsyncIterator[BrowserContext]:
    async with launched(system_chromium()) as browser:
        opened = await browser.new_context()
        try:
            yield opened
        finally:
            await opened.close()


@pytest.fixture
async def node(make_node: NodeFactory) -> AsyncIterator[str]:
    async with make_node(timeouts=FAST) as url:
        yield url


async def as_guest(watcher: Watcher, node: str, name: str) -> Page:
    """The play page, signed in as guest ``name``."""
    page = watcher.page
    await page.goto(page_url(node, "/play"))
    await page.get_by_label("Name", exact=True).fill(name)
    await page.get_by_role("button", name="Play as guest").click()
    await expect(page.locator(".who strong")).to_have_text(name)
    return page


async def test_an_arena_entrant_pauses_and_comes_back_on_the_web_page(
    node: str, context: BrowserContext
) -> None:
    """Tess enters an arena and pauses: the page shows the clock, the standings' races and
    streak columns, and no race comes; Come back, and she is taken to a race."""
    host, doc = await host_tournament(
        node, format="arena", variants=["gavotte"], duration=120, cutoff=5
    )
    bob, joined = await ClientSession.connect(node, "Bob"), asyncio.Event()
    task = asyncio.create_task(resigner(bob, doc.code, joined))
    try:
        watcher = await Watcher.open_in(context, *LAPTOP)
        page = await as_guest(watcher, node, "Tess")
        await page.get_by_label("Tournament code").fill(doc.code)
        await page.get_by_role("button", name="Enter tournament").click()
        await page.wait_for_url(re.compile(f"/play/tournament/{doc.code}$"))
        await expect(page.locator(".arena-clock")).to_contain_text("Arena of 2:00")
        await page.get_by_role("button", name="Pause").click()
        await expect(page.locator(".arena-controls")).to_contain_text("You are paused")
        await asyncio.wait_for(joined.wait(), TIMEOUT)
        await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
        )
        await expect(page.locator(".arena-clock")).to_contain_text("left")
        await expect(page.locator("table.standings thead")).to_contain_text("streak")
        await expect(page.locator("table.standings .streak").filter(has_text="⏸")).to_have_count(1)
        assert "/play/tournament/" in page.url  # paused: no race
        await page.get_by_role("button", name="Come back").click()
        await page.wait_for_url(re.compile(r"/play/(?!tournament)[^/]+$"))
        await page.locator(".board.mine .pile").first.wait_for()
        assert_clean(watcher)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await bob.close()
        await host.close()
