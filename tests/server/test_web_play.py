"""Racing in the page, in a real browser (headless Chromium) against a real node.

A person opens /play, picks a name (a guest) or an account, and races a
bot the page runs, by pointer and by keys. The page holds no rules: the
highlights come from the server's legal moves, a refused move shows the
server's own reason, and a second tab of the same browser that opens the
race takes the seat, which the first is told. Screenshots at 1280×800 and
390×844 go to ``var/test-artifacts/``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, BrowserContext, Page, expect

from tests.server.browser import Watcher, chromium_path, launched
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST

WAIT_MS = TIMEOUT * 1000
PHONE = (390, 844)
LAPTOP = (1280, 800)

expect.set_options(timeout=WAIT_MS)


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    executable = chromium_path()
    if executable is None:
        pytest.fail("no Chromium found: `make browser`, or set BALLROOM_CHROMIUM")
    async with launched(executable) as opened:
        yield opened


@pytest.fixture
async def context(browser: Browser) -> AsyncIterator[BrowserContext]:
    """One browser profile: its tabs share the kept session, as a person's tabs do."""
    opened = await browser.new_context()
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
async def node(make_node: NodeFactory) -> AsyncIterator[str]:
    async with make_node(timeouts=FAST) as url:
        yield url


def page_url(node: str, path: str = "/") -> str:
    return node.replace("ws://", "http://").rstrip("/") + path


def assert_clean(watcher: Watcher) -> None:
    """No console error, no uncaught exception, no CSP violation (Chromium logs those as errors)."""
    assert not watcher.errors, watcher.errors


async def as_guest(watcher: Watcher, node: str, name: str) -> Page:
    page = watcher.page
    await page.goto(page_url(node, "/play"))
    await page.get_by_label("Name").fill(name)
    await page.get_by_role("button", name="Play as guest").click()
    await expect(page.locator(".who strong")).to_have_text(name)
    return page


async def practice(page: Page, level: str = "greedy") -> str:
    """Starts a practice race against the page's bot; the race id."""
    await page.get_by_label("Bot").select_option(level)
    await page.get_by_role("button", name="Practice vs bot").click()
    await page.wait_for_url(re.compile("/play/[^/]+$"))
    await page.locator(".board.mine .pile.source").first.wait_for()
    return page.url.rsplit("/", 1)[1]


async def moves_made(page: Page) -> int:
    text = await page.inner_text(".board.mine .progress-text")
    found = re.search(r"(\d+) moves", text)
    assert found, text
    return int(found[1])


async def test_a_guest_races_a_bot_by_click_and_hears_a_refusal(
    node: str, context: BrowserContext
) -> None:
    """Guest, practice vs the greedy bot: a legal move by two clicks (targets highlighted,
    pending until answered), then an illegal drop refused with the server's own words."""
    watcher = await Watcher.open_in(context, *LAPTOP)
    page = await as_guest(watcher, node, "Ann")
    await watcher.screenshot("play-home", *LAPTOP)
    await practice(page)
    mine = page.locator(".board.mine")
    await page.locator(".racers-progress li").first.wait_for()  # the bot is racing too

    # Pick piles a legal move starts from until one lights up destinations (the
    # server's), and drop the card on one; no card move yet: the stock deals.
    before = await moves_made(page)
    while not await play_a_card(page):
        await mine.locator(".pile.role-stock").click()
        await expect(mine.locator(".progress-text")).to_contain_text(f"{before + 1} moves")
        before += 1
    await expect(page.locator(".notice")).to_contain_text("✓")
    assert await moves_made(page) == before + 1

    # An illegal drop (a card onto the stock) is sent; the server's reason is shown.
    picked = mine.locator(".pile.source:not(.role-stock)").first
    await picked.click()
    await mine.locator(".pile.picked").wait_for()
    await mine.locator(".pile.role-stock").click()
    refusal = next(m for m in await _wait_for_error(watcher) if m.get("code") == "illegal_move")
    await expect(page.locator(".notice")).to_contain_text("✗")
    assert refusal["message"] in await page.inner_text(".notice")
    assert await moves_made(page) == before + 1  # nothing moved
    for width, height in (LAPTOP, PHONE):
        await watcher.screenshot("play-race", width, height)
    assert_clean(watcher)


async def play_a_card(page: Page) -> bool:
    """Clicks a source pile, then a highlighted destination; False when no card can move."""
    mine = page.locator(".board.mine")
    sources = await mine.locator(".pile.source:not(.role-stock)").all()
    for pile in [await p.get_attribute("data-pile") for p in sources]:
        await mine.locator(f'.pile[data-pile="{pile}"]').click()
        targets = mine.locator(".pile.target")
        if await targets.count():
            await expect(mine.locator(".pile.source")).to_have_count(0)  # picked: none offered
            await targets.first.click()
            return True
        await page.keyboard.press("Escape")
    return False


async def _wait_for_error(watcher: Watcher) -> list[dict[str, object]]:
    await watcher.page.wait_for_function(
        "() => document.querySelector('.notice').innerText.startsWith('✗')"
    )
    return [m for m in watcher.messages() if m.get("t") == "error"]


async def test_keys_deal_and_finish(node: str, context: BrowserContext) -> None:
    """The keyboard alone: n shows a legal move, Enter plays it, f plays cards home."""
    watcher = await Watcher.open_in(context, *PHONE)
    page = await as_guest(watcher, node, "Kay")
    await practice(page, "random")
    before = await moves_made(page)
    await page.keyboard.press("n")
    await expect(page.locator(".notice")).to_contain_text("Enter plays it")
    await page.keyboard.press("Enter")
    await expect(page.locator(".notice")).to_contain_text("✓")
    assert await moves_made(page) == before + 1
    assert_clean(watcher)


async def test_a_second_tab_takes_the_seat_and_the_first_is_told(
    node: str, context: BrowserContext
) -> None:
    """Two tabs of one browser are one player: the second opening the race takes the seat,
    the first says so and stops offering moves, and can take it back."""
    first = await Watcher.open_in(context, *LAPTOP)
    page = await as_guest(first, node, "Tab")
    race = await practice(page)
    second = await Watcher.open_in(context, *PHONE)
    await second.page.goto(page_url(node, f"/play/{race}"))
    await second.page.locator(".board.mine .pile.source").first.wait_for()
    await expect(page.locator(".notice")).to_contain_text("continues in another tab")
    assert not await page.locator(".board.mine .pile.source").count()
    await first.screenshot("play-seat-taken", *LAPTOP)
    await page.get_by_role("button", name="Take the seat back here").click()
    await page.locator(".board.mine .pile.source").first.wait_for()
    await expect(second.page.locator(".notice")).to_contain_text("continues in another tab")
    assert_clean(first)
    assert_clean(second)


async def test_register_log_out_and_log_in(node: str, context: BrowserContext) -> None:
    """An account from the page: register, log out (the token dies), log in again."""
    watcher = await Watcher.open_in(context, *PHONE)
    page = watcher.page
    await page.goto(page_url(node, "/play"))
    await page.get_by_label("Name").fill("Regina")
    await page.get_by_label("Password").fill("correct horse")
    await page.get_by_role("button", name="Register").click()
    await expect(page.locator(".who")).to_contain_text("Regina (account)")
    token = await page.evaluate("JSON.parse(localStorage.getItem('ballroom.session')).token")
    assert token.startswith("u")
    await page.get_by_role("button", name="Log out").click()
    await expect(page.locator(".who")).to_contain_text("Pick a name")
    assert await page.evaluate("localStorage.getItem('ballroom.session')") is None
    await page.get_by_label("Name").fill("regina")
    await page.get_by_label("Password").fill("wrong password")
    await page.get_by_role("button", name="Log in").click()
    await expect(page.locator(".notice")).to_contain_text("✗")
    await page.get_by_label("Password").fill("correct horse")
    await page.get_by_role("button", name="Log in").click()
    await expect(page.locator(".who")).to_contain_text("Regina (account)")
    await watcher.screenshot("play-account", *PHONE)
    assert_clean(watcher)
