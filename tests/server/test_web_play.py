"""Racing in the page, in a real browser (headless Chromium) against a real node.

A person opens /play, picks a name (a guest) or an account, and races a
bot the page runs, by pointer and by keys. The page holds no rules: the
highlights come from the server's legal moves, a refused move shows the
server's own reason, and a second tab of the same browser that opens the
race takes the seat, which the first is told. Screenshots at 1280×800 and
390×844 go to ``var/test-artifacts/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator

import msgpack
import pytest
from playwright.async_api import Browser, BrowserContext, Page, WebSocketRoute, expect

from client.session import ClientSession
from client.tournament_bot import TournamentBot
from protocol.messages import (
    Account,
    JoinRace,
    ManageTournament,
    Matched,
    Queued,
    QuickRace,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Ready,
    Register,
    Rematch,
    RematchOffer,
    RematchState,
    Resign,
    TournamentAction,
    TournamentInfo,
)
from tests.server.browser import Watcher, launched
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST, QUICK, host_tournament
from tests.server.pages import assert_clean, page_url, system_chromium

pytestmark = [pytest.mark.slow, pytest.mark.browser]

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WAIT_MS = TIMEOUT * 1000
PHONE = (390, 844)
LAPTOP = (1280, 800)

expect.set_options(timeout=WAIT_MS)


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with launched(system_chromium()) as opened:
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


async def as_guest(watcher: Watcher, node: str, name: str) -> Page:
    page = watcher.page
    await page.goto(page_url(node, "/play"))
    await page.get_by_label("Name", exact=True).fill(name)
    await page.get_by_role("button", name="Play as guest").click()
    await expect(page.locator(".who strong")).to_have_text(name)
    return page


async def practice(page: Page, level: str = "greedy") -> str:
    """Starts a practice race against the page's bot; the race id."""
    await page.locator('select[name="level"]').select_option(level)
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

    # An illegal drop (a card onto the stock) is sent; the server's reason is shown. Some
    # deals leave only the stock to move after that card (practice deals are random):
    # deal until a card pile is a source again.
    picked = mine.locator(".pile.source:not(.role-stock)").first
    while not await picked.count():
        await mine.locator(".pile.role-stock").click()
        await expect(mine.locator(".progress-text")).to_contain_text(f"{before + 2} moves")
        before += 1
    await picked.click()
    await mine.locator(".pile.picked").wait_for()
    await mine.locator(".pile.role-stock").click()
    refusal = next(m for m in await _wait_for_error(watcher) if m.get("code") == "illegal_move")
    await expect(page.locator(".notice")).to_contain_text("✗")
    assert str(refusal["message"]) in await page.inner_text(".notice")
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
    """The keyboard alone: n shows a legal move and Enter plays it, d deals, f plays every
    card it can home, h asks for a hint (a practice race)."""
    watcher = await Watcher.open_in(context, *PHONE)
    page = await as_guest(watcher, node, "Kay")
    await practice(page, "solver")
    before = await moves_made(page)
    await page.keyboard.press("n")
    await expect(page.locator(".notice")).to_contain_text("Enter plays it")
    await page.keyboard.press("Enter")
    await expect(page.locator(".notice")).to_contain_text("✓")
    assert await moves_made(page) == before + 1
    await page.keyboard.press("d")
    await expect(page.locator(".board.mine .progress-text")).to_contain_text(f"{before + 2} moves")
    await page.keyboard.press("f")
    await expect(page.locator(".notice")).to_contain_text("no other card can go home now")
    await page.keyboard.press("h")
    await expect(page.locator(".notice")).to_contain_text("Hint")
    await page.keyboard.press("Escape")
    # Piles are buttons: focus one, Enter picks (the focus stays), Space drops elsewhere.
    mine = page.locator(".board.mine")
    made = await moves_made(page)
    sources = await mine.locator(".pile.source:not(.role-stock)").all()
    for pile in [await p.get_attribute("data-pile") for p in sources]:
        await mine.locator(f'.pile[data-pile="{pile}"]').focus()
        await page.keyboard.press("Enter")
        focused = "document.activeElement.dataset.pile"
        assert await page.evaluate(focused) == pile
        targets = mine.locator(".pile.target")
        if await targets.count():
            await targets.first.focus()
            await page.keyboard.press(" ")
            await expect(mine.locator(".progress-text")).to_contain_text(f"{made + 1} moves")
            break
        await page.keyboard.press("Escape")
    assert_clean(watcher)


async def no_sideways_scroll(page: Page) -> None:
    """The page fits its width: nothing makes a phone scroll sideways."""
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert page.viewport_size is not None and width <= page.viewport_size["width"], width


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["1280x800", "390x844"])
async def test_every_racing_screen_fits(
    node: str, context: BrowserContext, size: tuple[int, int]
) -> None:
    """/play before and after choosing a name, a race's lobby and a race under way, at a
    laptop's size and a phone's: no sideways scroll, no error, no CSP violation."""
    watcher = await Watcher.open_in(context, *size)
    page = watcher.page
    await page.goto(page_url(node, "/play"))
    await expect(page.locator(".who")).to_contain_text("Pick a name")
    await no_sideways_scroll(page)
    await watcher.screenshot("play-nobody", *size)
    await as_guest(watcher, node, "Fitz")
    await no_sideways_scroll(page)
    await page.get_by_role("button", name="Create race").click()
    await expect(page.locator(".play-controls")).to_contain_text("Others join with code")
    await no_sideways_scroll(page)
    await watcher.screenshot("play-lobby", *size)
    await page.get_by_role("button", name="Leave").click()
    await page.wait_for_url(re.compile("/play$"))
    await practice(page, "greedy")
    await no_sideways_scroll(page)
    assert_clean(watcher)


async def test_a_practice_ends_in_checked_results(node: str, context: BrowserContext) -> None:
    """Against the random bot: resign (x twice), end the practice, and the results come with
    the commitment checked and a replay link for each racer; then the same practice again."""
    watcher = await Watcher.open_in(context, *LAPTOP)
    page = await as_guest(watcher, node, "Sol")
    race = await practice(page, "random")
    await page.keyboard.press("x")
    await expect(page.locator(".notice")).to_contain_text("again to resign")
    await page.keyboard.press("x")
    await expect(page.locator(".notice")).to_contain_text("You resigned")
    await page.get_by_role("button", name="End the practice: the bot resigns").click()
    await expect(page.locator('.commit-check[data-ok="true"]')).to_have_count(1)
    await expect(page.locator(".results .standings tbody tr")).to_have_count(2)
    await expect(page.locator(f'.results a[href^="/replay/{race}/"]')).to_have_count(2)
    await expect(page.locator(".clock")).to_have_text("The race is over.")
    for width, height in (LAPTOP, PHONE):
        await watcher.screenshot("play-results", width, height)
    await page.get_by_role("button", name="Practice again").click()  # the same bot, a new deal
    await page.wait_for_url(re.compile(f"/play/(?!{race})[^/]+$"))
    await page.locator(".board.mine .pile.source").first.wait_for()
    await expect(page.locator(".status")).to_contain_text("Bot · random")
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
    await page.get_by_label("Name", exact=True).fill("Regina")
    await page.get_by_label("Password", exact=True).fill("correct horse")
    await page.get_by_role("button", name="Register").click()
    await expect(page.locator(".who")).to_contain_text("Regina (account)")
    token = await page.evaluate("JSON.parse(localStorage.getItem('ballroom.session')).token")
    assert token.startswith("u")
    await page.get_by_role("button", name="Log out").click()
    await expect(page.locator(".who")).to_contain_text("Pick a name")
    assert await page.evaluate("localStorage.getItem('ballroom.session')") is None
    await page.get_by_label("Name", exact=True).fill("regina")
    await page.get_by_label("Password", exact=True).fill("wrong password")
    await page.get_by_role("button", name="Log in").click()
    await expect(page.locator(".notice")).to_contain_text("✗")
    await page.get_by_label("Password", exact=True).fill("correct horse")
    await page.get_by_role("button", name="Log in").click()
    await expect(page.locator(".who")).to_contain_text("Regina (account)")
    await watcher.screenshot("play-account", *PHONE)
    assert_clean(watcher)


def rating_text(rating: int, change: int, provisional: bool) -> str:
    """A rating as the page writes it: 1512 (+12), 1488? (−12)."""
    signed = f"+{change}" if change > 0 else f"−{-change}" if change < 0 else "±0"
    return f"{rating}{'?' if provisional else ''} ({signed})"


async def test_a_browser_and_a_terminal_racer_on_two_nodes_finish_a_quick_race(
    make_node: NodeFactory, context: BrowserContext
) -> None:
    """An account in the page (node A) and an account on the terminal protocol (node B) queue
    for a quick race, are matched, race, resign, and see the same results and rating changes."""
    async with make_node(timeouts=FAST) as node_a, make_node(timeouts=FAST) as node_b:
        watcher = await Watcher.open_in(context, *LAPTOP)
        page = watcher.page
        await page.goto(page_url(node_a, "/play"))
        await page.get_by_label("Name", exact=True).fill("Bea")
        await page.get_by_label("Password", exact=True).fill("browser racer")
        await page.get_by_role("button", name="Register").click()
        await expect(page.locator(".who")).to_contain_text("Bea (account)")
        tom = await ClientSession.connect(node_b, "Tom")
        try:
            await tom.request(Register(name="Tom", password="terminal racer"), Account)
            await page.get_by_role("button", name="Quick race").click()
            await expect(page.locator(".queued")).to_contain_text("Waiting for a quick race")
            await tom.request(QuickRace(variant="royal-cotillion"), Queued)
            matched = await tom.next(Matched, timeout=TIMEOUT)
            await page.wait_for_url(re.compile(f"/play/{matched.race}$"))
            await page.locator(".board.mine .pile").first.wait_for()
            await tom.next(RaceStarted, timeout=TIMEOUT)
            await page.keyboard.press("x")
            await page.keyboard.press("x")
            await expect(page.locator(".notice")).to_contain_text("You resigned")
            await tom.request(Resign(race=matched.race), RaceInfo)
            results = await tom.next(RaceFinished, timeout=TIMEOUT)
            await results_then_rematch(watcher, tom, results, matched)
        finally:
            await tom.close()


async def results_then_rematch(
    watcher: Watcher, tom: ClientSession, results: RaceFinished, matched: Matched
) -> None:
    """The page's results match the terminal racer's; then a rematch offered in the page."""
    page = watcher.page
    await expect(page.locator('.commit-check[data-ok="true"]')).to_have_count(1)
    rows = page.locator(".results .standings tbody tr")
    await expect(rows).to_have_count(2)
    for standing, row in zip(results.standings, await rows.all(), strict=True):
        assert standing.rating is not None and standing.change is not None
        shown = rating_text(standing.rating, standing.change, bool(standing.provisional))
        await expect(row.locator("td.rating")).to_have_text(shown)
        await expect(row.locator("td").nth(1)).to_have_text(standing.name)
    for width, height in (LAPTOP, PHONE):
        await watcher.screenshot("play-quick-results", width, height)

    # A rematch: the page offers, the terminal racer hears it and accepts, both go on.
    await page.get_by_role("button", name="Rematch").click()
    await expect(page.get_by_role("button", name="Rematch: 1/2 accepted")).to_have_count(1)
    offer = await tom.next(RematchOffer, timeout=TIMEOUT)
    assert offer.name == "Bea"
    await tom.request(Rematch(race=matched.race), RematchState)
    again = await tom.next(Matched, timeout=TIMEOUT)
    await page.wait_for_url(re.compile(f"/play/{again.race}$"))
    await page.locator(".board.mine .pile.source").first.wait_for()
    assert_clean(watcher)


async def test_a_race_made_in_the_page_is_joined_by_its_code(
    node: str, context: BrowserContext
) -> None:
    """The page creates a race and shows its code; a terminal racer joins by it and says ready;
    the page's host sees them and starts, and both get their boards."""
    watcher = await Watcher.open_in(context, *PHONE)
    page = await as_guest(watcher, node, "Hana")
    await page.get_by_role("button", name="Create race").click()
    await page.wait_for_url(re.compile("/play/[^/]+$"))
    code = (await page.locator("h1 .code").inner_text()).strip()
    await expect(page.locator(".play-controls")).to_contain_text(f"Others join with code {code}")
    joe = await ClientSession.connect(node, "Joe")
    try:
        joined = await joe.request(JoinRace(code=code), RaceInfo)
        await joe.request(Ready(race=joined.race.id, ready=True), RaceInfo)
        await expect(page.locator(".status")).to_contain_text("Joe ✓")
        await watcher.screenshot("play-lobby", *PHONE)
        await page.get_by_role("button", name="Start").click()
        await page.locator(".board.mine .pile").first.wait_for()
        await joe.next(RaceStarted, timeout=TIMEOUT)
    finally:
        await joe.close()
    assert_clean(watcher)


async def test_an_account_plays_the_daily_deal(node: str, context: BrowserContext) -> None:
    """The daily deal is for accounts: a guest is offered none; an account gets its board."""
    watcher = await Watcher.open_in(context, *PHONE)
    page = await as_guest(watcher, node, "Dee")
    assert not await page.get_by_role("button", name="Daily deal").count()
    await page.get_by_label("Name", exact=True).fill("Daisy")
    await page.get_by_label("Password", exact=True).fill("one deal a day")
    await page.get_by_role("button", name="Register").click()
    await expect(page.locator(".who")).to_contain_text("Daisy (account)")
    await page.get_by_role("button", name="Daily deal").click()
    await page.wait_for_url(re.compile("/play/[^/]+$"))
    await page.locator(".board.mine .pile.source").first.wait_for()
    await expect(page.locator("h1 .kind")).to_have_text("daily deal")
    assert_clean(watcher)


async def test_an_entrant_is_taken_to_each_table_of_a_tournament(
    node: str, context: BrowserContext
) -> None:
    """Entered by its code, the page goes to the entrant's table when round one starts,
    and on to the next table when round two does."""
    host, doc = await host_tournament(node, format="rounds", variants=["gavotte"], rounds=2)
    bot = TournamentBot(node, name="Bot 0", speed=0, seed=0, patience=QUICK)
    task = asyncio.create_task(bot.run(code=doc.code))
    try:
        watcher = await Watcher.open_in(context, *LAPTOP)
        page = await as_guest(watcher, node, "Tess")
        await page.get_by_label("Tournament code").fill(doc.code)
        await page.get_by_role("button", name="Enter tournament").click()
        await page.wait_for_url(re.compile(f"/play/tournament/{doc.code}$"))
        await expect(page.locator(".entrants li")).to_have_count(2)
        await watcher.screenshot("play-tournament", *LAPTOP)
        await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
        )
        tables = []
        for _ in range(2):
            await page.wait_for_url(re.compile(r"/play/(?!tournament)[^/]+$"))
            tables.append(page.url.rsplit("/", 1)[1])
            # A pile to move from: the new table's live board, not the last one's still drawn.
            await page.locator(".board.mine .pile.source").first.wait_for()
            await page.keyboard.press("x")
            await page.keyboard.press("x")
            # When the bot (speed 0) has already finished, Tess's resignation ends the race and
            # the race_finished push's notice replaces "You resigned" at once: either is done.
            # The race's close moves the tournament on at once, so after the first table the
            # page may be at the next one before the notice is read: that is done too.
            await page.wait_for_function(
                """table => !location.pathname.endsWith("/" + table)
                    || /You resigned|The race is over/.test(
                        document.querySelector(".notice")?.textContent ?? "")""",
                arg=tables[-1],
            )
            if len(tables) == 1:
                first = tables[0]
                await page.wait_for_url(re.compile(f"/play/(?!tournament)(?!{first})[^/]+$"))
        assert len(set(tables)) == 2
        assert_clean(watcher)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await host.close()


async def test_a_move_is_pending_until_the_server_answers(
    node: str, context: BrowserContext
) -> None:
    """The server's answers held back on the way: the move shows pending and the board stays
    as it was; let through, the board is the server's."""
    watcher = await Watcher.open_in(context, *LAPTOP)
    page = watcher.page
    held: list[tuple[WebSocketRoute, bytes | str]] = []
    holding = asyncio.Event()

    def between(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()

        def forward(frame: bytes | str) -> None:
            if holding.is_set() and isinstance(frame, bytes):
                with contextlib.suppress(Exception):
                    if msgpack.unpackb(frame, raw=False).get("t") == "moved":
                        held.append((socket, frame))
                        return
            socket.send(frame)

        server.on_message(forward)

    await page.route_web_socket(re.compile(".*"), between)
    page = await as_guest(watcher, node, "Pat")
    await practice(page, "random")
    before = await moves_made(page)
    holding.set()
    await page.keyboard.press("n")
    await page.keyboard.press("Enter")
    mine = page.locator(".board.mine")
    await expect(mine.locator(".pile.pending").first).to_be_visible()
    await expect(page.locator(".notice")).to_contain_text("…")
    assert await moves_made(page) == before  # not drawn as done
    await page.keyboard.press("d")  # a second move waits for the first's answer
    await expect(page.locator(".notice")).to_contain_text("Waiting for the server")
    holding.clear()
    for socket, frame in held:
        socket.send(frame)
    await expect(page.locator(".notice")).to_contain_text("✓")
    await expect(mine.locator(".pile.pending")).to_have_count(0)
    assert await moves_made(page) == before + 1
    assert_clean(watcher)


async def test_a_card_dragged_onto_a_legal_pile_moves(node: str, context: BrowserContext) -> None:
    """Drag and drop does what two clicks do: the card goes where the server allows."""
    watcher = await Watcher.open_in(context, *LAPTOP)
    page = await as_guest(watcher, node, "Dru")
    await practice(page, "random")
    mine = page.locator(".board.mine")
    before = await moves_made(page)
    for _ in range(30):  # deal until some card can move
        sources = await mine.locator(".pile.source:not(.role-stock)").all()
        for pile in [await p.get_attribute("data-pile") for p in sources]:
            await mine.locator(f'.pile[data-pile="{pile}"]').click()
            targets = await mine.locator(".pile.target").all()
            target = await targets[0].get_attribute("data-pile") if targets else None
            await page.keyboard.press("Escape")
            if target is None:
                continue
            card = mine.locator(f'.pile[data-pile="{pile}"] .card[data-index]').last
            await card.drag_to(mine.locator(f'.pile[data-pile="{target}"]'))
            await expect(page.locator(".notice")).to_contain_text("✓")
            assert await moves_made(page) == before + 1
            assert_clean(watcher)
            return
        await page.keyboard.press("d")
        await expect(mine.locator(".progress-text")).to_contain_text(f"{before + 1} moves")
        before += 1
    pytest.fail("no card could move in 30 deals")


async def test_a_lost_connection_comes_back_to_the_same_board(
    node: str, context: BrowserContext
) -> None:
    """The page's connection dropped mid-race: it says so, connects again with its token,
    resumes the race, and the board is where it was, still playable."""
    watcher = await Watcher.open_in(context, *LAPTOP)
    page = watcher.page
    mine: list[WebSocketRoute] = []  # the sockets that said hello as the racer

    def between(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()

        def forward(frame: bytes | str) -> None:
            if isinstance(frame, bytes):
                with contextlib.suppress(Exception):
                    said = msgpack.unpackb(frame, raw=False)
                    if said.get("t") == "welcome" and said.get("name") == "Rae":
                        mine.append(socket)
            socket.send(frame)

        server.on_message(forward)

    await page.route_web_socket(re.compile(".*"), between)
    page = await as_guest(watcher, node, "Rae")
    race = await practice(page, "random")
    await page.keyboard.press("n")
    await page.keyboard.press("Enter")
    await expect(page.locator(".notice")).to_contain_text("✓")
    made = await moves_made(page)
    await mine[-1].close(code=1011, reason="test")
    await expect(page.locator("#connection")).to_contain_text("connection lost")
    await expect(page.locator("#connection")).to_have_text("connected")
    await page.locator(".board.mine .pile.source").first.wait_for()
    assert page.url.endswith(f"/play/{race}")
    assert await moves_made(page) == made
    await page.keyboard.press("n")
    await page.keyboard.press("Enter")
    await expect(page.locator(".notice")).to_contain_text("✓")
    assert await moves_made(page) == made + 1
    assert_clean(watcher)


async def test_the_expert_bot_plays_the_experts_hints(node: str, context: BrowserContext) -> None:
    """The page's bot offers the expert level: it asks the server for the expert's hint
    (``level`` expert, which never sees the stock) and plays the move it is given."""
    watcher = await Watcher.open_in(context, *LAPTOP)
    page = watcher.page
    asked: list[dict[str, object]] = []  # the expert hints the page asked for
    hinted: list[str] = []  # the moves the server's hints gave
    sent: list[str] = []  # the moves the page sent
    played = asyncio.Event()

    def between(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()

        def upward(frame: bytes | str) -> None:
            if isinstance(frame, bytes):
                with contextlib.suppress(Exception):
                    said = msgpack.unpackb(frame, raw=False)
                    if said.get("t") == "hint":
                        asked.append(said)
                    elif said.get("t") == "move":
                        sent.append(str(said.get("move")))
                        if set(sent) & set(hinted):
                            played.set()
            server.send(frame)

        def downward(frame: bytes | str) -> None:
            if isinstance(frame, bytes):
                with contextlib.suppress(Exception):
                    said = msgpack.unpackb(frame, raw=False)
                    if said.get("t") == "hinted" and said.get("move"):
                        hinted.append(str(said["move"]))
            socket.send(frame)

        socket.on_message(upward)
        server.on_message(downward)

    await page.route_web_socket(re.compile(".*"), between)
    page = await as_guest(watcher, node, "Exa")
    await practice(page, "expert")
    await expect(page.locator(".status")).to_contain_text("Bot · expert")
    # An expert hint is a search of a few tenths of a second on a free core: more here.
    await asyncio.wait_for(played.wait(), TIMEOUT * 3)
    assert asked and all(said.get("level") == "expert" for said in asked)
    assert_clean(watcher)


async def test_taps_on_a_phone_move_a_card(node: str, browser: Browser) -> None:
    """On a touch screen a tap is a click: tap a card, then a lit destination, and it moves."""
    phone = await browser.new_context(has_touch=True, is_mobile=True)
    try:
        watcher = await Watcher.open_in(phone, *PHONE)
        page = await as_guest(watcher, node, "Tia")
        await practice(page, "random")
        mine = page.locator(".board.mine")
        before = await moves_made(page)
        for _ in range(30):  # deal until some card can move
            sources = await mine.locator(".pile.source:not(.role-stock)").all()
            for pile in [await p.get_attribute("data-pile") for p in sources]:
                await mine.locator(f'.pile[data-pile="{pile}"]').tap()
                targets = mine.locator(".pile.target")
                if not await targets.count():
                    await page.keyboard.press("Escape")
                    continue
                await targets.first.tap()
                await expect(page.locator(".notice")).to_contain_text("✓")
                assert await moves_made(page) == before + 1
                assert_clean(watcher)
                return
            await mine.locator(".pile.role-stock").tap()
            await expect(mine.locator(".progress-text")).to_contain_text(f"{before + 1} moves")
            before += 1
        pytest.fail("no card could move in 30 deals")
    finally:
        await phone.close()
