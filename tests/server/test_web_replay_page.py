"""The replay page's move list in a real browser (headless Chromium), against a real node.

A click on a move shows the board just after it (checked against the
server's own replay of that move), the shown move is marked, the arrow keys
still step, and the post-race analysis's marks stand beside the moves they
concern once the analysis exists.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, Page, expect

from client.session import ClientSession
from protocol.cards import card_text
from protocol.messages import (
    CreateRace,
    GetReplay,
    JoinRace,
    Moved,
    RaceAnalysed,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Replay,
    Resign,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from protocol.results import Winnability
from protocol.views import View
from server.engine import find_variant
from server.engine.solver import solve
from tests.server.browser import Watcher, launched
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST
from tests.server.pages import (
    PHONE,
    assert_clean,
    bot_race,
    page_url,
    running,
    system_chromium,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with launched(system_chromium()) as opened:
        yield opened


@pytest.fixture
async def node(make_node: NodeFactory) -> AsyncIterator[str]:
    async with make_node(timeouts=FAST) as url:
        yield url


async def shown_tops(page: Page) -> dict[str, str]:
    """The replay board's top face-up card of each pile, as printed ("" for none)."""
    tops: dict[str, str] = await page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.board .pile')].map((p) => {
            const faces = p.querySelectorAll('.card:not(.back):not(.empty)');
            return [p.dataset.pile, faces.length ? faces[faces.length - 1].textContent : ''];
        }))"""
    )
    return tops


def tops_of(view: View, piles: list[str]) -> dict[str, str]:
    """What :func:`shown_tops` should read for ``view``."""
    return {pile: card_text(view.cards(pile)[-1]) if view.cards(pile) else "" for pile in piles}


async def fits(page: Page, width: int) -> bool:
    scroll: int = await page.evaluate("() => document.documentElement.scrollWidth")
    return scroll <= width


async def test_clicking_a_move_shows_the_board_just_after_it(node: str, browser: Browser) -> None:
    """Each of the racer's moves is listed; a click shows the server's position after it."""
    async with running(await bot_race(node, speed=0, moves=10, pace=0)) as race:
        results = await race.results()
        bob = race.bot.player
        assert bob is not None
        log = results.logs[bob]
        replay = await race.host.request(GetReplay(race=race.race, player=bob), Replay)
        watcher = await Watcher.open(browser)
        page = watcher.page
        await page.goto(page_url(node, f"/replay/{race.race}/{bob}"))
        items = page.locator(".move-list li[data-step]")
        await expect(items).to_have_count(len(log) + 1)  # the deal, then every move
        await expect(page.locator(".move-list .notation")).to_have_text(["the deal", *log])
        piles = list(await shown_tops(page))
        step = len(log) // 2
        await page.locator(f'.move-list li[data-step="{step}"] button').click()
        where = page.locator(".where")
        await expect(where).to_have_text(f"Move {step} of {len(log)}: {log[step - 1]}")
        await expect(page.locator(".move-list [aria-current=step]")).to_have_attribute(
            "data-step", str(step)
        )
        assert await shown_tops(page) == tops_of(replay.views[step], piles)
        await page.keyboard.press("ArrowRight")  # the keys still step, and the mark follows
        await expect(page.locator(".move-list li.current")).to_have_attribute(
            "data-step", str(step + 1)
        )
        assert await shown_tops(page) == tops_of(replay.views[step + 1], piles)
        # The list is one stop for Tab: focus follows the shown move.
        await expect(page.locator(f'.move-list button[data-step="{step + 1}"]')).to_be_focused()
        await expect(page.locator('.move-list button[tabindex="0"]')).to_have_count(1)
        await page.keyboard.press("End")
        last = page.locator(f'.move-list li[data-step="{len(log)}"]')
        await expect(last).to_have_class(re.compile(r"\bcurrent\b"))
        await expect(last).to_be_in_viewport()
        # A card move reads in words beside its notation ("7♦ to the foundation").
        words = await page.locator(".move-list .words").all_inner_texts()
        assert any(re.search(r"[♣♦♥♠] (to|discarded)", w) for w in words), words
        await watcher.screenshot("replay-moves", *PHONE)
        assert await fits(page, PHONE[0])
        assert_clean(watcher)


async def _play(racer: ClientSession, race: str, moves: list[str]) -> None:
    for seq, move in enumerate(moves):
        await racer.request(SubmitMove(race=race, seq=seq, move=move), Moved)


async def test_the_analysis_marks_the_losing_move_and_a_win_within_par(
    analysing_node: str, browser: Browser
) -> None:
    """Ann deals four times and resigns (the deal is lost by then); Bea plays the solver's
    line: Ann's losing move gets "?", Bea's last move "!", and the par line shows."""
    node = analysing_node
    ann = await ClientSession.connect(node, "Ann")
    bea = await ClientSession.connect(node, "Bea")
    try:
        created = await ann.request(
            CreateRace(
                variant="quadrille", max_players=2, time_limit=600, deal=1,
                spectate=SpectatePolicy.LIVE,
            ),
            RaceInfo,
        )  # fmt: skip
        race = created.race.id
        await bea.request(JoinRace(race=race), RaceInfo)
        await ann.request(StartRace(race=race), RaceInfo)
        await ann.next(RaceStarted, timeout=TIMEOUT)
        await bea.next(RaceStarted, timeout=TIMEOUT)
        game = find_variant("quadrille")
        line = solve(game, game.deal(1), seconds=TIMEOUT, clock=time.monotonic).line
        assert line, "quadrille deal 1 is winnable"
        # Ann: deals only, four of them (from deal 1 the fourth loses the deal).
        state, deals = game.deal(1), []
        for _ in range(4):
            move = next(m for m in game.legal_moves(state) if m.text() in ("deal", "redeal"))
            deals.append(move.text())
            state = game.apply(state, move)
        await _play(ann, race, deals)
        await ann.request(Resign(race=race), RaceInfo)
        await _play(bea, race, list(line))
        await ann.next(RaceFinished, timeout=TIMEOUT)
        analysed = await ann.next(RaceAnalysed, timeout=4 * TIMEOUT)
        analysis = analysed.analysis
        mine, hers = analysis.of(ann.player), analysis.of(bea.player)
        assert mine is not None and mine.verdict is Winnability.LOST and mine.move is not None
        assert hers is not None and hers.verdict is Winnability.WON and analysis.par is not None

        watcher = await Watcher.open(browser)
        page = watcher.page
        await page.goto(page_url(node, f"/replay/{race}/{ann.player}"))
        lost = page.locator(f'.move-list li[data-step="{mine.move}"] .mark')
        await expect(lost).to_have_text("?")
        await expect(lost).to_have_attribute("title", re.compile("no longer winnable"))
        await expect(page.locator(".move-list .mark:not(:empty)")).to_have_count(1)
        await page.get_by_role("link", name="Bea").click()
        await page.wait_for_url(re.compile(f"/replay/{race}/{bea.player}$"))
        last = page.locator(f'.move-list li[data-step="{len(line)}"] .mark')
        await expect(last).to_have_text("!" if len(line) <= analysis.par else "✓")
        if analysis.par < len(line):
            await expect(page.locator(".move-list .par-line")).to_have_text(f"par {analysis.par}")
        assert_clean(watcher)
    finally:
        await ann.close()
        await bea.close()
