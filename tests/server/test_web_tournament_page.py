"""The tournament page's live tables in a real browser (headless Chromium), against a real node.

Every table of the stage under way shows each of its racers' boards, small,
redrawn as the bots move; the top table comes first and large; the page
watches the tables on one connection of its own beside the tournament's,
so it holds two websockets whatever the number of tables.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from client.session import ClientSession
from protocol.messages import (
    JoinTournament,
    ManageTournament,
    Progress,
    RaceInfo,
    RaceStarted,
    Resign,
    Resume,
    TournamentAction,
    TournamentInfo,
)
from protocol.tournaments import StageStatus, Tournament, TournamentTable
from tests.server.browser import Watcher, launched
from tests.server.conftest import TIMEOUT, NodeFactory
from tests.server.hosting import FAST
from tests.server.pages import (
    PHONE,
    WAIT_MS,
    assert_clean,
    page_url,
    system_chromium,
    tournament_with_bots,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DESKTOP = (1280, 800)


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with launched(system_chromium()) as opened:
        yield opened


@pytest.fixture
async def node(make_node: NodeFactory) -> AsyncIterator[str]:
    async with make_node(timeouts=FAST) as url:
        yield url


def running_tables(doc: Tournament) -> list[TournamentTable]:
    return [race for s in doc.stages if s.status is StageStatus.RUNNING for race in s.races]


def top_table(doc: Tournament) -> TournamentTable:
    """The table the page features: the best placed entrant's, else the lowest numbered."""
    tables = running_tables(doc)
    for standing in doc.standings:
        seated = [t for t in tables if standing.player in t.players]
        if seated:
            return seated[0]
    return min(tables, key=lambda t: t.table)


@dataclass
class Seated:
    """Tess, an entrant played by the test, seated at a table of round one; the page open."""

    tess: ClientSession
    watcher: Watcher
    tables: list[TournamentTable]
    race: str  # Tess's table


@contextlib.asynccontextmanager
async def tess_seated(
    node: str, browser: Browser, host: ClientSession, doc: Tournament
) -> AsyncIterator[Seated]:
    """Tess enters, the page opens, the host starts, and Tess takes her seat (no move yet)."""
    tess = await ClientSession.connect(node, "Tess")
    try:
        joined = await tess.request(JoinTournament(code=doc.code), TournamentInfo)
        watcher = await Watcher.open(browser)
        await watcher.page.goto(page_url(node, f"/tournament/{doc.code}"))
        entrants = len(joined.tournament.entrants)  # the bots, who joined first, and Tess
        await expect(watcher.page.locator(".entrants li")).to_have_count(entrants)
        started = await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
        )
        tables = running_tables(started.tournament)
        race = next(t.race for t in tables if tess.player in t.players)
        await tess.request(Resume(race=race, since=0), RaceStarted)
        yield Seated(tess, watcher, tables, race)
        # Tess never finishes her table: the tournament runs until the host cancels it.
        await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.CANCEL), TournamentInfo
        )
    finally:
        await tess.close()


async def moves_per_table(page: Page) -> dict[str, int]:
    """Each live table's moves so far (its racers' together), read off its mini-boards."""
    counts: dict[str, int] = await page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.tables li.table')].map((t) => [
            t.dataset.race,
            [...t.querySelectorAll('.progress-text')]
              .map((p) => Number((/(\\d+) moves/.exec(p.textContent) ?? [0, 0])[1]))
              .reduce((a, b) => a + b, 0),
        ]))"""
    )
    return counts


async def test_every_table_shows_its_racers_live_and_the_top_table_first(
    node: str, browser: Browser
) -> None:
    """Six bots at three tables: every table's mini-boards, redrawn as the bots move, the top
    table featured first, two websockets in all, and a phone's width kept."""
    async with tournament_with_bots(
        node, 6, 3, format="rounds", variants=["royal-cotillion"], rounds=1, table_size=2
    ) as (host, doc):
        watcher = await Watcher.open(browser)
        page = watcher.page
        sockets: list[str] = []
        page.on("websocket", lambda socket: sockets.append(socket.url))
        await page.goto(page_url(node, f"/tournament/{doc.code}"))
        await expect(page.locator(".entrants li")).to_have_count(6)
        await host.request(
            ManageTournament(tournament=doc.id, action=TournamentAction.START), TournamentInfo
        )
        pushed = await host.next(
            TournamentInfo, lambda m: bool(running_tables(m.tournament)), timeout=TIMEOUT
        )
        tables = running_tables(pushed.tournament)
        assert len(tables) == 3
        for table in tables:
            await expect(
                page.locator(f'.tables li.table[data-race="{table.race}"] .board')
            ).to_have_count(2)
        featured = page.locator(".tables li.table").first
        await expect(featured).to_have_class("table featured")
        await expect(featured).to_have_attribute("data-race", top_table(pushed.tournament).race)
        await expect(page.locator(".tables li.featured")).to_have_count(1)
        # Before any round is scored, the entrants list each one's cards home now.
        await expect(page.locator(".entrants li .now")).to_have_count(6)
        for now in await page.locator(".entrants li .now").all_inner_texts():
            assert re.fullmatch(r" · \d+/104( ✓| resigned| out of time)? home now", now), now
        before = await moves_per_table(page)
        # Every table's boards change as its bots move, pushed to the page.
        await page.wait_for_function(
            """(before) => [...document.querySelectorAll('.tables li.table')].every((t) =>
                [...t.querySelectorAll('.progress-text')]
                  .map((p) => Number((/(\\d+) moves/.exec(p.textContent) ?? [0, 0])[1]))
                  .reduce((a, b) => a + b, 0) > before[t.dataset.race] + 2)""",
            arg=before,
            timeout=WAIT_MS,
        )
        # Each board marks its racer's last move: the pile it went to.
        assert await page.locator(".tables .board .pile.moved-to").count() >= 3
        assert len(sockets) == 2  # the tournament's connection and the tables'
        # The tables' connection speaks for the page's own session (no second guest): the
        # server's rules for who may watch what hold for it as for the page.
        welcomes = [m for m in watcher.messages() if m["t"] == "welcome"]
        assert len(welcomes) == 2
        assert welcomes[0]["player"] == welcomes[1]["player"]
        assert welcomes[0]["token"] == welcomes[1]["token"]
        await watcher.screenshot("tournament-tables", *DESKTOP)  # docs/img/web-tournament.sh
        await watcher.screenshot("tournament-tables", *PHONE)
        scroll = await page.evaluate("() => document.documentElement.scrollWidth")
        assert scroll <= PHONE[0]
        assert_clean(watcher)


async def test_delayed_tables_show_no_board_before_their_delay(node: str, browser: Browser) -> None:
    """A tournament watched 30 s behind: while the bot at Tess's table is well under way, the
    page's tables say so and it got no board, not even the deal, from any table."""
    async with (
        tournament_with_bots(
            node, 3, 5, format="rounds", variants=["royal-cotillion"], rounds=1, table_size=2,
            spectate="delayed", delay=30,
        ) as (host, doc),
        tess_seated(node, browser, host, doc) as seated,
    ):  # fmt: skip
        page, watcher, tables = seated.watcher.page, seated.watcher, seated.tables
        waiting = page.locator(".tables .table-waiting")
        await expect(waiting).to_have_count(len(tables))
        # Tess hears her opponent's moves while the page, 30 s behind, shows none.
        await seated.tess.next(Progress, lambda p: p.progress.moves >= 10, timeout=TIMEOUT)
        await expect(waiting).to_have_text(["boards come 30 s behind"] * len(tables))
        assert not await page.locator(".tables .board").count()
        assert not [m for m in watcher.messages() if m["t"] == "board"]
        spectating = [m for m in watcher.messages() if m["t"] == "spectating"]
        assert len(spectating) == len(tables)
        assert all(m["boards"] == {} for m in spectating)
        assert_clean(watcher)


async def test_the_featured_table_is_the_leaders_in_the_next_round(
    node: str, browser: Browser
) -> None:
    """Round two of a rounds tournament features the table where round one's leader sits
    (Tess resigns round one and makes no move in round two, so her table races on)."""
    async with (
        tournament_with_bots(
            node, 3, 0, format="rounds", variants=["quadrille"], rounds=2, table_size=2
        ) as (host, doc),
        tess_seated(node, browser, host, doc) as seated,
    ):
        page, tess = seated.watcher.page, seated.tess
        await tess.request(Resign(race=seated.race), RaceInfo)
        second = await tess.next(
            TournamentInfo,
            lambda m: len(m.tournament.stages) == 2 and bool(running_tables(m.tournament)),
            timeout=4 * TIMEOUT,
        )
        round_two = second.tournament
        assert round_two.standings  # round one scored: the leader is known
        await expect(page.locator(".tables h2")).to_have_text("Racing now: round 2")
        featured = page.locator(".tables li.table").first
        await expect(featured).to_have_class("table featured")
        await expect(featured).to_have_attribute("data-race", top_table(round_two).race)
        # The standings (scored now) say each seated entrant's cards home at their table.
        await expect(page.locator(".tournament-standings td.now")).to_have_count(4)
        leader = round_two.standings[0].name
        await expect(featured.locator(".table-head a")).to_contain_text(leader)
        assert_clean(seated.watcher)


async def test_after_the_race_the_tables_show_boards_only_once_the_stage_is_over(
    node: str, browser: Browser
) -> None:
    """Watched "after the race": no table shows a board, nor gets one, while the stage runs
    (Tess's table holds it open); once Tess resigns and the stage's results come, the
    tables stay on the page through the break, over, with every racer's last board."""
    async with (
        tournament_with_bots(
            node, 3, 0, format="rounds", variants=["quadrille"], rounds=2, table_size=2,
            spectate="after", break_seconds=60,
        ) as (host, doc),
        tess_seated(node, browser, host, doc) as seated,
    ):  # fmt: skip
        page, watcher = seated.watcher.page, seated.watcher
        held = page.locator(f'.tables li.table[data-race="{seated.race}"] .table-waiting')
        await expect(held).to_have_text("boards are shown once the race is over")
        # The bots' table may be over already (full-speed bots): it says so, still boardless.
        waiting = page.locator(".tables .table-waiting")
        await expect(waiting).to_have_count(2)
        for text in await waiting.all_text_contents():
            assert text in ("boards are shown once the race is over", "the race is over"), text
        await expect(page.locator(".tables .board")).to_have_count(0)
        await seated.tess.request(Resign(race=seated.race), RaceInfo)
        await expect(page.locator(".tables h2")).to_have_text("Round 1: over")
        for table in seated.tables:
            boards = page.locator(f'.tables li.table[data-race="{table.race}"] .board')
            await expect(boards).to_have_count(2)
        for table in seated.tables:

            def about(m: dict[str, Any], race: str = table.race) -> bool:
                named = m.get("race")
                return named == race or (isinstance(named, dict) and named.get("id") == race)

            said = [m for m in watcher.messages() if about(m)]
            kinds = [m["t"] for m in said]
            before = said[: kinds.index("race_finished")]
            assert "board" not in kinds, kinds  # boards only in the snapshot after the end
            assert all(not m.get("boards") for m in before), "a board before the results"
        assert_clean(watcher)
