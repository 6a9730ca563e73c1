"""/tv in a real browser (headless Chromium), against a real node and protocol racers.

The page waits calmly while no race runs, shows the race the server features
(a race of two before a lone game), and when that race ends shows its
results, then switches to the other race on the same page: no navigation,
no reload, no console error, no CSP violation, at a laptop's and a phone's
size. Screenshots go to ``var/test-artifacts/``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

import pytest
from playwright.async_api import Browser, Page, expect

from client.session import ClientSession
from protocol.messages import (
    CreateRace,
    JoinRace,
    Moved,
    Progress,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Resign,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from protocol.moves import Move
from protocol.policy import GreedyPolicy
from tests.server.browser import Watcher, launched
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST
from tests.server.pages import assert_clean, page_url, system_chromium
from tests.server.secrecy import carries_seed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WAIT_MS = TIMEOUT * 1000
LAPTOP = (1280, 800)
PHONE = (390, 844)

expect.set_options(timeout=WAIT_MS)


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with launched(system_chromium()) as opened:
        yield opened


@pytest.fixture
async def node(make_node: NodeFactory) -> AsyncIterator[str]:
    async with make_node(timeouts=FAST) as url:
        yield url


@dataclass
class LiveRace:
    """A running race watched live, its racers moving greedily at a person's pace."""

    race: str
    racers: list[ClientSession]
    movers: list[asyncio.Task[None]] = field(default_factory=list)

    async def end(self) -> RaceFinished:
        """Every racer resigns; the race's results, as its host got them."""
        await self._stop_moving()
        for racer in self.racers:
            await racer.request(Resign(race=self.race), RaceInfo)
        return await self.racers[0].next(RaceFinished, timeout=TIMEOUT)

    async def close(self) -> None:
        await self._stop_moving()
        for racer in self.racers:
            with contextlib.suppress(Exception):
                await racer.close()

    async def _stop_moving(self) -> None:
        for task in self.movers:
            task.cancel()
        await asyncio.gather(*self.movers, return_exceptions=True)
        self.movers = []


async def _moves(racer: ClientSession, race: str, started: RaceStarted, pace: float) -> None:
    """Greedy moves, one per ``pace`` seconds, while there are any."""
    policy = GreedyPolicy(started.layout)
    view, legal, made = started.view, started.legal, 0
    while legal:
        move = policy.choose(view, [Move.parse(text) for text in legal])
        reply = await racer.request(SubmitMove(race=race, seq=made, move=move.text()), Moved)
        view, legal, made = reply.view, reply.legal, made + 1
        await asyncio.sleep(pace)  # a person's pace, so the page has moves to follow


async def live_race(url: str, names: Sequence[str], pace: float, *, delay: int = 0) -> LiveRace:
    """A race of ``names`` (the first hosts), started, every racer moving; watched live, or
    ``delay`` seconds behind."""
    racers = [await ClientSession.connect(url, name) for name in names]
    created = await racers[0].request(
        CreateRace(
            variant="royal-cotillion",
            max_players=len(names),
            time_limit=600,
            spectate=SpectatePolicy.DELAYED if delay else SpectatePolicy.LIVE,
            delay=delay,
        ),
        RaceInfo,
    )
    race = str(created.race.id)
    for racer in racers[1:]:
        await racer.request(JoinRace(race=race), RaceInfo)
    await racers[0].request(StartRace(race=race), RaceInfo)
    live = LiveRace(race, racers)
    for racer in racers:
        started = await racer.next(RaceStarted, timeout=TIMEOUT)
        live.movers.append(asyncio.create_task(_moves(racer, race, started, pace)))
    return live


@contextlib.asynccontextmanager
async def closing(*races: LiveRace) -> AsyncIterator[None]:
    try:
        yield
    finally:
        for race in races:
            await race.close()


#: Notes each seed the page's results show and whether the bar said the race was over.
NOTE_RESULTS = """() => {
  window.tvSeeds = new Set();
  window.tvOver = false;
  new MutationObserver(() => {
    for (const seed of document.querySelectorAll(".results .seed"))
      window.tvSeeds.add(seed.textContent);
    if (document.querySelector(".tv-status")?.textContent.includes("Race over"))
      window.tvOver = true;
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}"""


async def no_sideways_scroll(page: Page) -> None:
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert page.viewport_size is not None and width <= page.viewport_size["width"], width


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["1280x800", "390x844"])
async def test_tv_follows_the_featured_race_then_the_next_without_reloading(
    node: str, browser: Browser, size: tuple[int, int]
) -> None:
    """Idle at first; then the race of two over the lone game; its results; then the lone
    game, on the same page (same address, no load, no navigation), with no error."""
    watcher = await Watcher.open(browser, *size)
    page = watcher.page
    loads: list[str] = []
    navigations: list[str] = []
    page.on("load", lambda p: loads.append(p.url))
    page.on("framenavigated", lambda frame: navigations.append(frame.url))
    await page.goto(page_url(node, "/tv?hold=2"))  # results 2 s, not 6
    await expect(page.locator(".tv-idle")).to_have_text("No race under way — waiting")
    await no_sideways_scroll(page)
    address = page.url
    # A mark on the window: a reload would take it away.
    await page.evaluate("window.tvMark = 'kept'")
    pair = await live_race(node, ["Ann", "Bob"], pace=0.3)
    solo = await live_race(node, ["Cy"], pace=0.5)
    async with closing(pair, solo):
        shown = page.locator(f'.tv-race[data-race="{pair.race}"]')
        await shown.locator(".board").nth(1).wait_for(timeout=WAIT_MS)
        assert await page.locator(".board").count() == 2
        before = await page.inner_text(".boards")
        await page.wait_for_function(
            "old => document.querySelector('.boards').innerText !== old",
            arg=before,
            timeout=WAIT_MS,
        )  # it follows the moves
        await no_sideways_scroll(page)
        await watcher.screenshot("tv-live", *size)
        # The results show only for the hold's 2 s: the page notes what it drew meanwhile.
        await page.evaluate(NOTE_RESULTS)
        seen = len(watcher.frames)
        results = await pair.end()
        assert not [f for f in watcher.frames[:seen] if carries_seed(f, results.seed)]
        await page.locator(f'.tv-race[data-race="{solo.race}"] .board').wait_for(timeout=WAIT_MS)
        assert not await shown.count()
        assert await page.evaluate("[...window.tvSeeds]") == [str(results.seed)]
        assert await page.evaluate("window.tvOver")
        assert await page.locator(".board").count() == 1
        await no_sideways_scroll(page)
        await watcher.screenshot("tv-next", *size)
    assert page.url == address
    assert await page.evaluate("window.tvMark") == "kept"
    assert len(loads) == 1 and navigations == [address], (loads, navigations)
    assert_clean(watcher)


async def test_the_lobby_links_to_tv(node: str, browser: Browser) -> None:
    """The lobby's top bar has a TV link, and following it opens /tv in the page."""
    watcher = await Watcher.open(browser, *LAPTOP)
    page = watcher.page
    await page.goto(page_url(node))
    await page.get_by_role("link", name="TV").click()
    await expect(page.locator(".tv-idle")).to_be_visible()
    assert page.url.endswith("/tv")
    assert_clean(watcher)


async def test_a_delayed_featured_race_shows_nothing_before_its_delay(
    node: str, browser: Browser
) -> None:
    """Featuring a race shows no more of it than its policy: 30 s behind, the page says so
    and gets no board while the racers move."""
    watcher = await Watcher.open(browser, *LAPTOP)
    page = watcher.page
    delayed = await live_race(node, ["Ann", "Bob"], pace=0.1, delay=30)
    async with closing(delayed):
        await page.goto(page_url(node, "/tv"))
        shown = page.locator(f'.tv-race[data-race="{delayed.race}"]')
        await expect(shown.locator(".policy-note")).to_have_text(
            "Moves are shown 30 s after they are made."
        )
        await delayed.racers[0].next(Progress, lambda p: p.progress.moves >= 10, timeout=TIMEOUT)
        await expect(shown.locator(".waiting")).to_have_text("No boards yet.")
        assert not await page.locator(".board").count()
        assert not [m for m in watcher.messages() if m["t"] == "board"]
        spectating = [m for m in watcher.messages() if m["t"] == "spectating"]
        assert spectating and all(m["boards"] == {} for m in spectating)
    assert_clean(watcher)
