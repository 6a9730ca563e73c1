"""Watching a race in a real browser (headless Chromium): what a spectator sees of the race now.

The last move of each board in words beside its notation, its old and new
places marked and the card sliding in; who leads and by how much; each
racer's rating, clock and cards home; how many watch, live. Every page is
checked for console errors, CSP violations among them.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from client.session import ClientSession
from protocol.messages import (
    Account,
    CreateRace,
    GetProfile,
    JoinRace,
    Moved,
    Profile,
    RaceInfo,
    RaceStarted,
    Register,
    Resign,
    SpectatePolicy,
    StartRace,
    SubmitMove,
)
from protocol.moves import Move, MoveKind
from protocol.policy import GreedyPolicy
from protocol.views import View
from server.settings import Timeouts
from server.storage import keys
from server.storage.store import Store
from tests.server.browser import Watcher, launched
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST
from tests.server.pages import (
    PHONE,
    WAIT_MS,
    assert_clean,
    bot_race,
    page_url,
    running,
    system_chromium,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DESKTOP = (1280, 800)

#: A card as the page prints it: rank, then suit.
CARD = r"(?:10|[A2-9JQK])[♣♦♥♠]"


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with launched(system_chromium()) as opened:
        yield opened


@pytest.fixture
async def node(make_node: NodeFactory) -> AsyncIterator[str]:
    async with make_node(timeouts=FAST) as url:
        yield url


#: Records, in the page, whether a card ever slid in (``.arriving``) since it was called.
WATCH_ARRIVALS = """() => {
    window.arrivals = 0;
    new MutationObserver((changes) => {
        for (const change of changes)
            for (const node of change.addedNodes)
                if (node.querySelector?.('.card.arriving')) window.arrivals += 1;
    }).observe(document.querySelector('.boards'), { childList: true, subtree: true });
    // The class is added once the board is on the page: look for it after each frame too.
    const look = () => {
        if (document.querySelector('.card.arriving')) window.arrivals += 1;
        requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
}"""

#: Keeps, from the page's first moment, every CSP violation it reports (none may happen).
COUNT_VIOLATIONS = """window.violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
    window.violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});"""

#: Each board's last move as the page shows it: notation, words, marked places, marked card.
MARKED = """() => [...document.querySelectorAll('.board')].map((b) => ({
    title: b.querySelector('h3').textContent,
    notation: b.querySelector('.last-move .notation')?.textContent ?? null,
    words: b.querySelector('.last-move .move-words')?.textContent ?? null,
    from: [...b.querySelectorAll('.pile.moved-from')].map((p) => p.dataset.pile),
    to: [...b.querySelectorAll('.pile.moved-to')].map((p) => p.dataset.pile),
    card: b.querySelector('.pile.moved-to .card.moved')?.textContent ?? null,
}))"""


async def card_move_shown(page: Page) -> dict[str, Any]:
    """The first board whose last move shown moved a card to a pile of the layout."""
    found = await page.wait_for_function(
        f"() => ({MARKED})().find((b) => b.notation?.includes('>') && b.to.length) ?? null",
        timeout=2 * WAIT_MS,
    )
    shown: dict[str, Any] = await found.json_value()
    return shown


#: The moves on every board of the page together, read off their progress lines.
MOVES_SHOWN = """() => [...document.querySelectorAll('.board .progress-text')]
    .map((p) => Number((/(\\d+) moves/.exec(p.textContent) ?? [0, 0])[1]))
    .reduce((a, b) => a + b, 0)"""


async def test_a_move_is_marked_at_its_old_and_new_places_and_said_in_words(
    node: str, browser: Browser
) -> None:
    """A racer's move: its old place dashed, its new place ringed with the card that arrived,
    the card sliding in, and the move in words ("7♦ to the foundation") beside its notation,
    which is the move the page's own frames carried. No console error, no CSP violation."""
    async with running(await bot_race(node, speed=3, moves=200, pace=0.3)) as race:
        watcher = await Watcher.open(browser, *DESKTOP)
        page = watcher.page
        await page.add_init_script(COUNT_VIOLATIONS)
        await page.goto(page_url(node, f"/race/{race.race}"))
        await page.locator(".board").nth(1).wait_for(timeout=WAIT_MS)
        await page.evaluate(WATCH_ARRIVALS)
        shown = await card_move_shown(page)
        move = Move.parse(shown["notation"])
        assert move.kind is MoveKind.MOVE
        assert shown["from"] == [move.src] and shown["to"] == [move.dst], shown
        assert re.fullmatch(CARD, shown["card"] or ""), shown
        assert shown["words"].startswith(shown["card"]), shown  # "7♦ to …"
        assert " to " in shown["words"] or "discarded" in shown["words"], shown
        sent = {m["move"] for m in watcher.messages() if m["t"] == "board" and m.get("move")}
        assert shown["notation"] in sent
        await page.wait_for_function("() => window.arrivals > 0", timeout=WAIT_MS)
        assert await page.evaluate("window.violations") == []
        assert_clean(watcher)


async def test_no_card_slides_when_motion_is_unwelcome(node: str, browser: Browser) -> None:
    """With reduced motion asked for, moves are still marked, but no card slides in."""
    async with running(await bot_race(node, speed=3, moves=200, pace=0.2)) as race:
        watcher = await Watcher.open(browser, *DESKTOP)
        page = watcher.page
        await page.emulate_media(reduced_motion="reduce")
        await page.goto(page_url(node, f"/race/{race.race}"))
        await page.locator(".board").nth(1).wait_for(timeout=WAIT_MS)
        await page.evaluate(WATCH_ARRIVALS)
        await card_move_shown(page)
        moves = await page.evaluate(MOVES_SHOWN)
        await page.wait_for_function(f"n => ({MOVES_SHOWN})() >= n + 5", arg=moves)
        assert await page.evaluate("window.arrivals") == 0
        assert_clean(watcher)


async def _two_racers(
    url: str, *, accounts: bool = False
) -> tuple[ClientSession, ClientSession, str, RaceStarted, RaceStarted]:
    """A live race of two racers the test moves for: "Ann" (host) and "Bob", guests or
    (``accounts``) registered."""
    ann = await ClientSession.connect(url, "Ann")
    bob = await ClientSession.connect(url, "Bob")
    if accounts:
        for session, name in ((ann, "Ann"), (bob, "Bob")):
            await session.request(Register(name=name, password="a long enough password"), Account)
    created = await ann.request(
        CreateRace(
            variant="royal-cotillion", max_players=2, time_limit=600,
            spectate=SpectatePolicy.LIVE, deal=4711,
        ),
        RaceInfo,
    )  # fmt: skip
    race = created.race.id
    await bob.request(JoinRace(race=race), RaceInfo)
    await ann.request(StartRace(race=race), RaceInfo)
    ann_started = await ann.next(RaceStarted, timeout=TIMEOUT)
    bob_started = await bob.next(RaceStarted, timeout=TIMEOUT)
    return ann, bob, race, ann_started, bob_started


class Racer:
    """One racer the test moves for, greedily, knowing their view after each move."""

    def __init__(self, session: ClientSession, race: str, started: RaceStarted) -> None:
        self.session, self.race = session, race
        self.policy = GreedyPolicy(started.layout)
        self.view: View = started.view
        self.legal = [Move.parse(text) for text in started.legal]
        self.seq = 0

    async def move_until_home(self, home: int) -> None:
        """Greedy moves until ``home`` cards are home (or none is left)."""
        for _ in range(200):
            if self.view.progress.home >= home or not self.legal:
                return
            move = self.policy.choose(self.view, self.legal)
            reply = await self.session.request(
                SubmitMove(race=self.race, seq=self.seq, move=move.text()), Moved
            )
            self.view, self.seq = reply.view, self.seq + 1
            self.legal = [Move.parse(text) for text in reply.legal]


async def test_the_headline_names_the_leader_and_the_gap(node: str, browser: Browser) -> None:
    """Ann moves cards home while Bob waits: "Ann leads by N cards"; Bob catches up: level,
    or he leads. Each racer's line says guest, a running clock and the cards home."""
    ann_session, bob_session, race, ann_started, bob_started = await _two_racers(node)
    try:
        ann = Racer(ann_session, race, ann_started)
        bob = Racer(bob_session, race, bob_started)
        watcher = await Watcher.open(browser, *DESKTOP)
        page = watcher.page
        await page.goto(page_url(node, f"/race/{race}"))
        await page.locator(".board").nth(1).wait_for(timeout=WAIT_MS)
        lead = page.locator(".headline .lead")
        start = ann.view.progress.home
        await expect(lead).to_have_text("Ann and Bob are level on " + _cards(start))
        await ann.move_until_home(start + 3)
        gap = ann.view.progress.home - bob.view.progress.home
        assert gap >= 3
        await expect(lead).to_have_text(f"Ann leads by {_cards(gap)}")
        target = ann.view.progress.target
        ann_line = page.locator('.racer-line:has(.name:text-is("Ann"))')
        await expect(ann_line.locator(".home")).to_have_text(
            f"{ann.view.progress.home}/{target} home"
        )
        await expect(ann_line.locator(".rating")).to_have_text("guest")
        await expect(ann_line.locator(".racer-clock")).to_have_text(re.compile(r"^\d+:\d\d$"))
        await bob.move_until_home(ann.view.progress.home)
        home_ann, home_bob = ann.view.progress.home, bob.view.progress.home
        expected = (
            f"Bob leads by {_cards(home_bob - home_ann)}"
            if home_bob > home_ann
            else f"Ann and Bob are level on {_cards(home_ann)}"
        )
        await expect(lead).to_have_text(expected)
        assert_clean(watcher)
    finally:
        await ann_session.close()
        await bob_session.close()


async def test_an_accounts_line_shows_its_rating_in_the_races_variant(
    make_node: NodeFactory, store: Store, browser: Browser
) -> None:
    """Ann, rated in Royal Cotillion: her line shows that rating as her profile says it;
    Bob, an account rated nowhere: "unrated"."""
    async with make_node(timeouts=FAST) as url:
        ann, bob, race, _, _ = await _two_racers(url, accounts=True)
        try:
            names = await store.races.players(race)
            ann_id = next(player for player, name in names.items() if name == "Ann")
            for field, value in (("mu:royal-cotillion", 31.0), ("sigma:royal-cotillion", 2.0)):
                await store.redis.hset(keys.account_stats(ann_id), field, value)
            profile = await bob.request(GetProfile(player=ann_id), Profile)
            rating = profile.profile.ratings["royal-cotillion"]
            shown = f"{rating.rating}{'?' if rating.provisional else ''}"
            watcher = await Watcher.open(browser, *DESKTOP)
            page = watcher.page
            await page.goto(page_url(url, f"/race/{race}"))
            lines = page.locator(".racer-line")
            await expect(lines.filter(has_text="Ann").locator(".rating")).to_have_text(shown)
            await expect(lines.filter(has_text="Bob").locator(".rating")).to_have_text("unrated")
            assert_clean(watcher)
        finally:
            await ann.close()
            await bob.close()


def _cards(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


async def test_the_spectator_count_follows_the_pages_watching(node: str, browser: Browser) -> None:
    """One page: 1 watching; a second page opens: both say 2; it closes: 1 again."""
    async with running(await bot_race(node, speed=1, moves=200, pace=0.5)) as race:
        first = await Watcher.open(browser, *DESKTOP)
        await first.page.goto(page_url(node, f"/race/{race.race}"))
        count = first.page.locator(".headline .spectators")
        await expect(count).to_have_text("1 watching")
        second = await Watcher.open(browser, *DESKTOP)
        await second.page.goto(page_url(node, f"/race/{race.race}"))
        await expect(second.page.locator(".headline .spectators")).to_have_text("2 watching")
        await expect(count).to_have_text("2 watching")
        assert_clean(second)
        await second.page.close()
        await expect(count).to_have_text("1 watching")
        counts = [m["count"] for m in first.messages() if m["t"] == "spectators"]
        assert counts[:3] == [1, 2, 1], counts
        assert_clean(first)


async def test_a_delayed_race_headline_waits_for_its_boards(node: str, browser: Browser) -> None:
    """Delayed by 30 s while both racers move: no leader, no cards home and no clock on the
    page (nothing the policy holds back), only who races and how many watch."""
    async with running(
        await bot_race(node, spectate="delayed", delay=30, speed=5, moves=200, pace=0.1)
    ) as race:
        watcher = await Watcher.open(browser, *DESKTOP)
        page = watcher.page
        await page.goto(page_url(node, f"/race/{race.race}"))
        await expect(page.locator(".headline .spectators")).to_have_text("1 watching")
        await expect(page.locator(".racer-line")).to_have_count(2)
        assert await page.locator(".headline .lead").is_hidden()
        assert await page.locator(".racer-line .home").all_inner_texts() == ["", ""]
        assert await page.locator(".racer-line .racer-clock").all_inner_texts() == ["–", "–"]
        assert not [m for m in watcher.messages() if m["t"] == "board"]
        assert_clean(watcher)


async def test_a_watched_race_at_1280x800(node: str, browser: Browser) -> None:
    """The watching page mid-race, saved at 1280×800 (docs/img/web-watch.sh copies it) and
    at a phone's 390×844."""
    async with running(await bot_race(node, speed=0.7, moves=200, pace=1.5)) as race:
        watcher = await Watcher.open(browser, *DESKTOP)
        page = watcher.page
        await page.goto(page_url(node, f"/race/{race.race}"))
        await page.locator(".board").nth(1).wait_for(timeout=WAIT_MS)
        await expect(page.locator(".headline .lead")).to_have_text(re.compile("leads|level"))
        await card_move_shown(page)
        # Between two moves: the marks stay, the card has slid in.
        await page.wait_for_function("() => !document.querySelector('.card.arriving')")
        await watcher.screenshot("watch", *DESKTOP)
        await watcher.screenshot("watch", *PHONE)
        # On a phone the headline's lines wrap: nothing scrolls sideways.
        assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
        assert_clean(watcher)


#: headline.js and moved.js on made-up boards, in the page itself (its modules, its CSP).
CASES = """async () => {
    const { leadText, racerClock } = await import("/assets/js/headline.js");
    const { movedPiles } = await import("/assets/js/moved.js");
    const info = {
        players: ["a", "b", "c"], names: { a: "Ann", b: "Bob", c: "Cy" },
        started_at: 1000, time_limit: 600, spectate: "delayed", delay: 30,
    };
    const board = (home, more = {}) => ({ home, target: 104, ...more });
    const layout = { piles: [
        { id: "s", role: "stock" }, { id: "w", role: "waste" }, { id: "f1", role: "foundation" },
    ] };
    return {
        one: leadText(info, { a: board(5), b: board(4) }),
        level: leadText(info, { a: board(7), b: board(7), c: board(2) }),
        three: leadText(info, { a: board(7), b: board(7), c: board(7) }),
        alone: leadText({ ...info, players: ["a"] }, { a: board(9) }),
        none: leadText(info, {}),
        wins: leadText(info, {}, [
            { player: "b", place: 1, home: 104 }, { player: "a", place: 2, home: 90 },
        ]),
        // 1100 on the server's clock, 30 s behind: the boards shown are as of 1070.
        running: racerClock(info, board(3), undefined, undefined, 1100),
        finished: racerClock(info, board(104, { won: true }), 1050, undefined, 1100),
        unknown: racerClock(info, board(50, { resigned: true }), undefined, undefined, 1100),
        results: racerClock(info, board(3), undefined, { time: 125 }, 1100),
        capped: racerClock(info, board(3), undefined, undefined, 9999),
        early: racerClock(info, undefined, undefined, undefined, 1100),
        deal: movedPiles(layout,
            { piles: { w: [], f1: [0] }, hidden: { s: 3 } },
            { piles: { w: [7], f1: [0] }, hidden: { s: 2 } }, "deal"),
        card: movedPiles(layout, null, { piles: {} }, "w>f1"),
        discard: movedPiles(layout, null, { piles: {} }, "w>x"),
    };
}"""


async def test_the_headline_and_the_marks_on_made_up_boards(node: str, browser: Browser) -> None:
    """Ties of two and of three, one racer alone, the results; a clock as of the delayed
    boards, stopped at a finish, at the results' time, capped at the limit; a deal's piles
    read off the boards, a card move's off its text (a discard's new place is off the board)."""
    watcher = await Watcher.open(browser, *DESKTOP)
    await watcher.page.goto(page_url(node))
    said = await watcher.page.evaluate(CASES)
    assert said["one"] == "Ann leads by 1 card"
    assert said["level"] == "Ann and Bob are level on 7 cards"
    assert said["three"] == "3 racers are level on 7 cards"
    assert said["alone"] == "Ann: 9 of 104 cards home"
    assert said["none"] is None
    assert said["wins"] == "Bob wins by 14 cards"
    assert said["running"] == "1:10"
    assert said["finished"] == "0:50"
    assert said["unknown"] == "done"
    assert said["results"] == "2:05"
    assert said["capped"] == "10:00"
    assert said["early"] == "–"
    assert said["deal"] == {"from": ["s"], "to": ["w"]}
    assert said["card"] == {"from": ["w"], "to": ["f1"]}
    assert said["discard"] == {"from": ["w"], "to": []}
    assert_clean(watcher)


async def test_the_countdown_shows_no_deal(make_node: NodeFactory, browser: Browser) -> None:
    """Opened in a live race's countdown: the racers' lines, how many watch, and nothing of
    the deal (no board, no leader, no cards home) until the start; then the boards."""
    # Long enough for the page to load within it, on a slow machine too.
    async with make_node(timeouts=Timeouts(countdown=TIMEOUT / 2, sweep=0.1)) as url:
        ann = await ClientSession.connect(url, "Ann")
        try:
            created = await ann.request(
                CreateRace(
                    variant="royal-cotillion", max_players=1, time_limit=600,
                    spectate=SpectatePolicy.LIVE,
                ),
                RaceInfo,
            )  # fmt: skip
            race = created.race.id
            await ann.request(StartRace(race=race), RaceInfo)
            watcher = await Watcher.open(browser, *DESKTOP)
            page = watcher.page
            await page.goto(page_url(url, f"/race/{race}"))
            await expect(page.locator(".headline .spectators")).to_have_text("1 watching")
            await expect(page.locator(".status")).to_contain_text("countdown")
            assert await page.locator(".headline .lead").is_hidden()
            assert await page.locator(".racer-line .home").all_inner_texts() == [""]
            assert not await page.locator(".board").count()
            assert not [m for m in watcher.messages() if m["t"] == "board"]
            assert all(m["boards"] == {} for m in watcher.messages() if m["t"] == "spectating")
            # The start: the deal, and Ann alone with her cards home.
            await page.locator(".board").wait_for(timeout=WAIT_MS)
            await expect(page.locator(".headline .lead")).to_have_text(
                re.compile(r"^Ann: \d+ of 104 cards home$")
            )
            assert_clean(watcher)
        finally:
            await ann.close()


async def test_a_resignation_shows_before_the_race_ends(node: str, browser: Browser) -> None:
    """Ann resigns while Bob races on: her board says so and her clock stops at once (the
    spectators' progress push), before any results; Bob's clock runs on."""
    ann, bob, race, _, _ = await _two_racers(node)
    try:
        watcher = await Watcher.open(browser, *DESKTOP)
        page = watcher.page
        await page.goto(page_url(node, f"/race/{race}"))
        await page.locator(".board").nth(1).wait_for(timeout=WAIT_MS)
        await ann.request(Resign(race=race), RaceInfo)
        board = page.locator(".board").filter(has=page.locator('h3:text-is("Ann")'))
        await expect(board.locator(".progress-text")).to_contain_text("resigned")
        clocks = page.locator(".racer-line .racer-clock")
        stopped, going = await clocks.all_inner_texts()  # Ann's, Bob's
        assert re.fullmatch(r"\d+:\d\d", stopped), stopped
        kinds = [m["t"] for m in watcher.messages()]
        assert "race_finished" not in kinds and "progress" in kinds
        await expect(clocks.nth(1)).not_to_have_text(going)
        assert await clocks.nth(0).inner_text() == stopped
        assert_clean(watcher)
    finally:
        await ann.close()
        await bob.close()
