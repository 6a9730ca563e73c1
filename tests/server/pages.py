"""What the browser tests of the page share: its address on a node, the system's
Chromium, races of a paced host against a protocol bot, tournaments of bots, and the
check that a page logged no error (a CSP violation is one).

Importing it sets Playwright's ``expect`` to wait :data:`WAIT_MS`, the tests' unit.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.async_api import expect

from client.bot import Bot, start_bot
from client.session import ClientSession
from client.tournament_bot import TournamentBot
from protocol.messages import (
    CreateRace,
    Moved,
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
from protocol.tournaments import Tournament
from tests.server.browser import Watcher, chromium_path
from tests.server.conftest import TIMEOUT
from tests.server.hosting import QUICK, host_tournament

__all__ = [
    "PHONE",
    "WAIT_MS",
    "WIDE",
    "BotRace",
    "assert_clean",
    "bot_race",
    "page_url",
    "running",
    "system_chromium",
    "tournament_with_bots",
]

WAIT_MS = TIMEOUT * 1000
PHONE = (390, 844)
WIDE = (1440, 900)

expect.set_options(timeout=WAIT_MS)


def system_chromium() -> str:
    executable = chromium_path()
    if executable is None:
        pytest.fail(
            "no Chromium found: `make browser` installs Debian's chromium package "
            "(needs root), or set BALLROOM_CHROMIUM to a Chromium or Chrome binary"
        )
    return executable


def page_url(node: str, path: str = "/") -> str:
    return node.replace("ws://", "http://").rstrip("/") + path


@dataclass
class BotRace:
    """A race between a paced host ("Ann", played here) and a protocol bot ("Bob")."""

    race: str
    code: str
    host: ClientSession
    bot: Bot
    host_moves: asyncio.Task[int]

    async def stop(self) -> None:
        for task in (self.host_moves, self.bot.task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        await self.host.close()

    async def results(self) -> RaceFinished:
        """The race's results, once the bot has played to the end."""
        assert self.bot.task is not None
        async with asyncio.timeout(4 * TIMEOUT):
            await self.host_moves
            finished = await self.bot.task
        assert finished is not None
        return finished


async def _host_plays(
    host: ClientSession, race: str, started: RaceStarted, moves: int, pace: float
) -> int:
    """Greedy moves at one per ``pace`` seconds, then resign; returns the moves made."""
    policy = GreedyPolicy(started.layout)
    view, legal, made = started.view, started.legal, 0
    while legal and made < moves:
        move = policy.choose(view, [Move.parse(text) for text in legal])
        reply = await host.request(SubmitMove(race=race, seq=made, move=move.text()), Moved)
        view, legal, made = reply.view, reply.legal, made + 1
        await asyncio.sleep(pace)  # a person's pace, so the page has moves to follow
    if legal:
        await host.request(Resign(race=race), RaceInfo)
    return made


async def bot_race(
    url: str, *, spectate: str = "live", delay: int = 0, speed: float, moves: int, pace: float
) -> BotRace:
    host = await ClientSession.connect(url, "Ann")
    created = await host.request(
        CreateRace(
            variant="royal-cotillion",
            max_players=2,
            time_limit=600,
            spectate=SpectatePolicy(spectate),
            delay=delay,
        ),
        RaceInfo,
    )
    race, code = created.race.id, created.race.code
    bot = await start_bot(url, race=race, name="Bob", speed=speed)
    await host.request(StartRace(race=race), RaceInfo)
    started = await host.next(RaceStarted, timeout=TIMEOUT)
    task = asyncio.create_task(_host_plays(host, race, started, moves, pace))
    return BotRace(race, code, host, bot, task)


@contextlib.asynccontextmanager
async def running(race: BotRace) -> AsyncIterator[BotRace]:
    try:
        yield race
    finally:
        await race.stop()


@contextlib.asynccontextmanager
async def tournament_with_bots(
    url: str, entrants: int, speed: float, **settings: Any
) -> AsyncIterator[tuple[ClientSession, Tournament]]:
    """A tournament hosted by "Host" with ``entrants`` bots joined; all stopped after."""
    host, doc = await host_tournament(url, **settings)
    bots = [
        TournamentBot(url, name=f"Bot {i}", speed=speed, seed=i, patience=QUICK)
        for i in range(entrants)
    ]
    tasks = [asyncio.create_task(b.run(code=doc.code)) for b in bots]
    try:
        async with asyncio.timeout(TIMEOUT):
            await asyncio.gather(*(b.joined.wait() for b in bots))
        yield host, doc
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await host.close()


def assert_clean(watcher: Watcher) -> None:
    assert not watcher.errors, watcher.errors
