"""The watching page in a real browser (headless Chromium), against a real node and bots.

Each test opens the page as an audience would, by its address, and checks
what a person would see. Screenshots at a phone's size (390×844) and a wide
screen's (1440×900) go to ``var/test-artifacts/``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator

import msgpack
import pytest
from playwright.async_api import Browser, Page, WebSocketRoute, expect

from client.session import ClientSession
from protocol.messages import (
    CreateRace,
    ManageTournament,
    Moved,
    Progress,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Resign,
    SpectatePolicy,
    StartRace,
    SubmitMove,
    TournamentAction,
    TournamentInfo,
)
from tests.server.browser import Watcher, launched
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST
from tests.server.pages import (
    PHONE,
    WAIT_MS,
    WIDE,
    assert_clean,
    bot_race,
    page_url,
    running,
    system_chromium,
    tournament_with_bots,
)
from tests.server.secrecy import carries_seed

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with launched(system_chromium()) as opened:
        yield opened


@pytest.fixture
async def node(make_node: NodeFactory) -> AsyncIterator[str]:
    async with make_node(timeouts=FAST) as url:
        yield url


async def boards_text(page: Page) -> str:
    return await page.inner_text(".boards")


async def test_lobby_lists_a_live_race_whose_boards_change(node: str, browser: Browser) -> None:
    """The lobby lists a live bot race; its page draws both boards and redraws them as bots move."""
    async with running(await bot_race(node, speed=3, moves=200, pace=0.3)) as race:
        watcher = await Watcher.open(browser)
        page = watcher.page
        await page.goto(page_url(node))
        link = page.locator(f'li.race[data-race="{race.race}"] a')
        await link.wait_for(timeout=WAIT_MS)
        await watcher.screenshot("lobby", *PHONE)
        await link.focus()
        await page.keyboard.press("Enter")  # the keyboard is enough to get there
        await page.wait_for_url(re.compile(f"/race/{race.race}$"), timeout=WAIT_MS)
        await page.locator(".board").nth(1).wait_for(timeout=WAIT_MS)
        assert await page.locator(".board").count() == 2
        assert await page.locator(".card.back .count").count() >= 2  # the stocks, face down
        assert await page.locator(".role-foundation .label").count() == 16
        assert await page.locator(".card.red").count() > 0
        before = await boards_text(page)
        await page.wait_for_function(
            "old => document.querySelector('.boards').innerText !== old",
            arg=before,
            timeout=WAIT_MS,
        )
        assert re.search(r"\d+:\d\d left", await page.inner_text(".clock"))
        for width, height in (PHONE, WIDE):
            await watcher.screenshot("live-race", width, height)
        assert_clean(watcher)


async def test_a_race_opens_cold_by_its_join_code(node: str, browser: Browser) -> None:
    """/race/CODE, pasted into a fresh browser, shows that race."""
    async with running(await bot_race(node, speed=2, moves=100, pace=0.5)) as race:
        watcher = await Watcher.open(browser, *PHONE)
        await watcher.page.goto(page_url(node, f"/race/{race.code}"))
        await watcher.page.locator(".board").nth(1).wait_for(timeout=WAIT_MS)
        assert race.code in await watcher.page.inner_text("h1")
        assert_clean(watcher)


async def test_a_delayed_race_shows_no_board_before_its_delay(node: str, browser: Browser) -> None:
    """Delayed by 30 s: the page says so, and gets no board, not even the deal, while racers
    move within those 30 s."""
    async with running(
        await bot_race(node, spectate="delayed", delay=30, speed=5, moves=200, pace=0.1)
    ) as race:
        watcher = await Watcher.open(browser)
        page = watcher.page
        await page.goto(page_url(node, f"/race/{race.race}"))
        await expect(page.locator(".policy-note")).to_have_text(
            "Moves are shown 30 s after they are made."
        )
        # Both racers are well under way while the page waits.
        await race.host.next(Progress, lambda p: p.progress.moves >= 10, timeout=TIMEOUT)
        # Not even the deal is shown before its 30 s have passed: no board at all.
        await expect(page.locator(".waiting")).to_have_text("No boards yet.")
        assert not await page.locator(".board").count()
        assert not [m for m in watcher.messages() if m["t"] == "board"]
        spectating = [m for m in watcher.messages() if m["t"] == "spectating"]
        assert spectating and all(m["boards"] == {} for m in spectating)
        assert_clean(watcher)


async def test_results_check_the_commitment_and_no_frame_holds_the_seed_before(
    node: str, browser: Browser
) -> None:
    """Watching to the end: ✓ on the revealed seed, and no frame before the results holds it."""
    async with running(await bot_race(node, speed=0, moves=30, pace=0.05)) as race:
        watcher = await Watcher.open(browser)
        page = watcher.page
        await page.goto(page_url(node, f"/race/{race.race}"))
        await page.locator(".board").nth(1).wait_for(timeout=WAIT_MS)
        results = await race.results()
        verdict = page.locator(".commit-check")
        await verdict.wait_for(timeout=WAIT_MS)
        assert (await verdict.get_attribute("data-ok")) == "true"
        assert (await verdict.inner_text()).startswith("✓")
        assert "Web Crypto" in await page.inner_text(".results")  # 127.0.0.1 is a secure context
        assert await page.inner_text(".seed") == str(results.seed)
        kinds = [m["t"] for m in watcher.messages()]
        first_result = kinds.index("race_finished")
        assert not [f for f in watcher.frames[:first_result] if carries_seed(f, results.seed)]
        assert_clean(watcher)

        # Opened cold afterwards, the race still shows its results, checked.
        cold = await Watcher.open(browser, *PHONE)
        await cold.page.goto(page_url(node, f"/race/{race.race}"))
        await cold.page.locator('.commit-check[data-ok="true"]').wait_for(timeout=WAIT_MS)
        await cold.screenshot("finished-race", *PHONE)
        assert_clean(cold)


async def test_plain_http_from_another_host_checks_with_the_shipped_sha256(node: str) -> None:
    """No secure context (plain HTTP, not localhost): no Web Crypto, and still a ✓."""
    async with running(await bot_race(node, speed=0, moves=5, pace=0)) as race:
        await race.results()
        # watch.test is this machine under another name: to the browser, another host.
        to_here = "--host-resolver-rules=MAP watch.test 127.0.0.1"
        async with launched(system_chromium(), to_here) as browser:
            watcher = await Watcher.open(browser, *PHONE)
            port = node.rsplit(":", 1)[1].strip("/")
            await watcher.page.goto(f"http://watch.test:{port}/race/{race.race}")
            assert await watcher.page.evaluate("isSecureContext") is False
            verdict = watcher.page.locator('.commit-check[data-ok="true"]')
            await verdict.wait_for(timeout=WAIT_MS)
            assert "@noble/hashes" in await watcher.page.inner_text(".results")
            assert_clean(watcher)


def _tamper(frame: bytes | str) -> bytes | str:
    """A race_finished frame with another seed; anything else unchanged."""
    if isinstance(frame, str):
        return frame
    message = msgpack.unpackb(frame, raw=False)
    if message.get("t") != "race_finished":
        return frame
    message["seed"] += 1
    packed: bytes = msgpack.packb(message, use_bin_type=True)
    return packed


async def test_a_tampered_record_gets_a_cross(node: str, browser: Browser) -> None:
    """Results whose seed was changed on the way do not match the commitment: ✗."""
    async with running(await bot_race(node, speed=0, moves=5, pace=0)) as race:
        await race.results()
        watcher = await Watcher.open(browser)
        page = watcher.page

        def between(socket: WebSocketRoute) -> None:
            server = socket.connect_to_server()
            server.on_message(lambda frame: socket.send(_tamper(frame)))

        await page.route_web_socket(re.compile(".*"), between)
        await page.goto(page_url(node, f"/race/{race.race}"))
        verdict = page.locator(".commit-check")
        await verdict.wait_for(timeout=WAIT_MS)
        assert (await verdict.get_attribute("data-ok")) == "false"
        assert (await verdict.inner_text()).startswith("✗")
        assert_clean(watcher)


async def test_the_fallback_sha256_gives_the_documented_commitment(
    node: str, browser: Browser
) -> None:
    """Over plain HTTP from another host there is no Web Crypto: the shipped SHA-256 agrees."""
    watcher = await Watcher.open(browser)
    await watcher.page.goto(page_url(node))
    text = "ballroom-commit/v1/royal-cotillion/1/42/abc"
    digest = await watcher.page.evaluate(
        """async (text) => {
            const { sha256 } = await import("/assets/vendor/noble-hashes/sha2.js");
            const bytes = sha256(new TextEncoder().encode(text));
            return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
        }""",
        text,
    )
    assert digest == hashlib.sha256(text.encode()).hexdigest()
    assert digest == "4d6e849a086faab42cb34325f4aee53ca2fae9e4b0f50cbcf7e32cb5dea5cc99"


async def test_a_replay_steps_to_the_last_move(node: str, browser: Browser) -> None:
    """/replay/RACE/PLAYER opens cold; End shows the last move, ← steps back, racers switch."""
    async with running(await bot_race(node, speed=0, moves=8, pace=0)) as race:
        results = await race.results()
        bob = race.bot.player
        assert bob is not None
        log = results.logs[bob]
        watcher = await Watcher.open(browser)
        page = watcher.page
        await page.goto(page_url(node, f"/replay/{race.race}/{bob}"))
        where = page.locator(".where")
        await expect(where).to_have_text(f"Move 0 of {len(log)}: the deal")
        await page.keyboard.press("End")
        await expect(where).to_have_text(f"Move {len(log)} of {len(log)}: {log[-1]}")
        await page.keyboard.press("ArrowLeft")
        await expect(where).to_have_text(f"Move {len(log) - 1} of {len(log)}: {log[-2]}")
        await page.get_by_role("link", name="Ann").click()
        await page.wait_for_url(re.compile(f"/replay/{race.race}/{race.host.player}$"))
        host_log = results.logs[race.host.player]
        await expect(where).to_have_text(f"Move 0 of {len(host_log)}: the deal")
        await page.keyboard.press("End")
        await expect(where).to_have_text(f"Move {len(host_log)} of {len(host_log)}: {host_log[-1]}")
        await expect(page.locator(".progress-text")).to_contain_text("resigned")  # Ann resigned
        await watcher.screenshot("replay", *WIDE)
        assert_clean(watcher)


async def _standings_points(page: Page) -> list[float]:
    """The points column of the standings (racers who tie share points: 2.5, say)."""
    cells = await page.locator(".tournament-standings tbody tr td:nth-child(3)").all_inner_texts()
    return [float(cell) for cell in cells]


async def test_tournament_standings_update_after_a_round(node: str, browser: Browser) -> None:
    """A rounds tournament's page: its entrants, then points after round one, then the final."""
    async with tournament_with_bots(
        node, 3, 0, format="rounds", variants=["gavotte"], rounds=2
    ) as (host, doc):
        watcher = await Watcher.open(browser)
        page = watcher.page
        await page.goto(page_url(node, f"/tournament/{doc.code}"))
        await expect(page.locator(".entrants li")).to_have_count(3)
        await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
        )
        await page.locator(".stages li").first.wait_for(timeout=4 * WAIT_MS)
        assert sum(await _standings_points(page)) >= 3 + 2 + 1  # round one's points
        await page.get_by_text("Final standings").wait_for(timeout=4 * WAIT_MS)
        assert sum(await _standings_points(page)) == 2 * (3 + 2 + 1)
        await watcher.screenshot("tournament-final", *PHONE)
        assert_clean(watcher)


async def test_a_knockout_shows_its_bracket_and_tables_racing_now(
    node: str, browser: Browser
) -> None:
    """A knockout under way: the bracket's first round, and its tables, one click from watching."""
    async with tournament_with_bots(
        node, 4, 2, format="knockout", variants=["royal-cotillion"]
    ) as (host, doc):
        watcher = await Watcher.open(browser)
        page = watcher.page
        await page.goto(page_url(node, f"/tournament/{doc.code}"))
        await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
        )
        tables = page.locator(".tables li.table a")
        await tables.nth(1).wait_for(timeout=WAIT_MS)
        assert await page.locator(".bracket .match").count() >= 2
        # Each match racing now is marked in the bracket and links its table.
        await expect(page.locator(".bracket .match.live a.watch")).to_have_count(2)
        for width, height in (PHONE, WIDE):
            await watcher.screenshot("tournament-knockout", width, height)
        await tables.first.click()
        await page.wait_for_url(re.compile("/race/"), timeout=WAIT_MS)
        await page.locator(".board").nth(1).wait_for(timeout=WAIT_MS)
        assert_clean(watcher)
        await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.CANCEL), TournamentInfo
        )


async def test_a_finished_knockout_shows_its_champion(node: str, browser: Browser) -> None:
    """Four fast bots play a knockout out: the whole bracket, the champion, final standings."""
    async with tournament_with_bots(node, 4, 0, format="knockout", variants=["gavotte"]) as (
        host,
        doc,
    ):
        watcher = await Watcher.open(browser)
        page = watcher.page
        await page.goto(page_url(node, f"/tournament/{doc.code}"))
        await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
        )
        await expect(page.locator(".champion")).to_contain_text(
            "Champion: Bot", timeout=4 * WAIT_MS
        )
        await expect(page.locator(".bracket-round")).to_have_count(2)
        await expect(page.locator(".tournament-standings h2")).to_have_text("Final standings")
        for width, height in (PHONE, WIDE):
            await watcher.screenshot("tournament-champion", width, height)
        assert_clean(watcher)


async def test_a_tournament_table_is_titled_by_its_tournament_and_links_it(
    node: str, browser: Browser
) -> None:
    """A table has no join code: the lobby and its page name it by its tournament (no empty
    code, no dangling "·"), and its page links the tournament's page."""
    async with tournament_with_bots(
        node, 2, 1, format="rounds", variants=["gavotte"], rounds=1
    ) as (host, doc):
        started = await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
        )
        table = started.tournament.stages[0].races[0].race
        watcher = await Watcher.open(browser)
        page = watcher.page
        await page.goto(page_url(node))
        link = page.locator(f'li.race[data-race="{table}"] a')
        await link.wait_for(timeout=WAIT_MS)
        label = (await link.inner_text()).strip()
        assert doc.name in label and not label.endswith("·"), label
        assert label.startswith("Gavotte · "), label  # the variant's title, not its id
        await link.click()
        await page.wait_for_url(re.compile(f"/race/{table}$"), timeout=WAIT_MS)
        back = page.locator(f'a[href="/tournament/{doc.code}"]')
        await expect(back).to_have_text(doc.name)
        title = await page.title()
        assert doc.name in title and "·  ·" not in title and " · · " not in title, title
        assert not await page.locator("h1 .code:empty").count()
        await back.click()
        await page.wait_for_url(re.compile(f"/tournament/{doc.code}$"), timeout=WAIT_MS)
        assert_clean(watcher)


async def test_the_post_race_analysis_follows_the_results_and_shows_in_the_replay(
    analysing_node: str, browser: Browser
) -> None:
    """A watcher sees the results, then each racer's analysis under them (pushed after);
    the replay says it beside the positions."""
    host = await ClientSession.connect(analysing_node, "Ann")
    try:
        created = await host.request(
            CreateRace(
                variant="quadrille", max_players=1, time_limit=600, deal=1,
                spectate=SpectatePolicy.LIVE,
            ),
            RaceInfo,
        )  # fmt: skip
        race = created.race.id
        watcher = await Watcher.open(browser)
        page = watcher.page
        await page.goto(page_url(analysing_node, f"/race/{race}"))
        await host.request(StartRace(race=race), RaceInfo)
        started = await host.next(RaceStarted, timeout=TIMEOUT)
        await host.request(SubmitMove(race=race, seq=0, move=started.legal[0]), Moved)
        await host.request(Resign(race=race), RaceInfo)
        await page.locator(".commit-check").wait_for(timeout=WAIT_MS)
        # Quadrille deal 1 is won by the solver at once: one move loses nothing.
        await expect(page.locator(".analysis li")).to_have_text(
            re.compile(r"^Ann: still winnable after the last move; par \d+ moves$")
        )
        kinds = [m["t"] for m in watcher.messages()]
        assert kinds.index("race_finished") < kinds.index("race_analysis")
        await page.goto(page_url(analysing_node, f"/replay/{race}/{host.player}"))
        await expect(page.locator("p.analysis")).to_contain_text(
            "Analysis: still winnable after the last move; par"
        )
        assert_clean(watcher)
    finally:
        await host.close()


async def test_a_winnable_deal_says_which_candidate_of_its_draw_it_is(
    node: str, browser: Browser
) -> None:
    """The results of a race on a winnable deal name its draw and candidate."""
    host = await ClientSession.connect(node, "Ann")
    try:
        created = await host.request(
            CreateRace(
                variant="quadrille", max_players=1, time_limit=600, winnable=True,
                spectate=SpectatePolicy.LIVE,
            ),
            RaceInfo,
        )  # fmt: skip
        race = created.race.id
        await host.request(StartRace(race=race), RaceInfo)
        await host.next(RaceStarted, timeout=TIMEOUT)
        await host.request(Resign(race=race), RaceInfo)
        finished = await host.next(RaceFinished, timeout=TIMEOUT)
        watcher = await Watcher.open(browser)
        await watcher.page.goto(page_url(node, f"/race/{race}"))
        await expect(watcher.page.locator(".draw")).to_have_text(
            f"candidate {finished.pick} of the draw {finished.draw}: the first the solver "
            "proves winnable (check it with ballroom winnable)"
        )
        assert_clean(watcher)
    finally:
        await host.close()
