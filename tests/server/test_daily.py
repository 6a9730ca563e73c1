"""The daily deal on a real node: its boards, moves and replay reach only its player until
the day's deal is revealed, and its board ranks every game not won below every win."""

from __future__ import annotations

import asyncio
import calendar
import time

import pytest

from client.session import ClientSession
from protocol.exceptions import ErrorCode
from protocol.messages import (
    Board,
    Daily,
    GetDaily,
    GetProfile,
    GetReplay,
    GetResults,
    Matched,
    Moved,
    PlayDaily,
    Profile,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Replay,
    Resign,
    Resume,
    Spectate,
    Spectating,
    SubmitMove,
)
from protocol.profiles import RecentRace
from server.rules.daily import daily_score
from server.storage.daily import DailyStore
from server.storage.store import Store
from tests.server.accounts import account, recorded
from tests.server.conftest import NODES, TIMEOUT, Clients
from tests.server.days import tomorrow
from tests.server.refusals import refused

pytestmark = [pytest.mark.usefixtures("no_errors_logged"), pytest.mark.slow]

#: Royal Cotillion deals eight cards home: a game resigned at once has some home.
VARIANT = "royal-cotillion"


async def _played(session: ClientSession, moves: int) -> tuple[str, RaceStarted]:
    """Play today's deal: ``moves`` moves, then resign; the race and its start."""
    matched = await session.request(PlayDaily(variant=VARIANT), Matched)
    started = await session.next(RaceStarted, timeout=TIMEOUT)
    legal = started.legal
    for seq in range(moves):
        if not legal:
            break
        legal = (
            await session.request(SubmitMove(race=matched.race, seq=seq, move=legal[0]), Moved)
        ).legal
    await session.request(Resign(race=matched.race), RaceInfo)
    return matched.race, started


async def _recent(session: ClientSession, player: str) -> tuple[RecentRace, ...]:
    """The account's recent races as another player reads them, once its newest is there."""
    async with asyncio.timeout(TIMEOUT):
        while True:  # polled: the record is written just after the results
            recent = (await session.request(GetProfile(player=player), Profile)).profile.recent
            if recent:
                return recent
            await asyncio.sleep(0.05)


async def test_a_daily_race_reaches_only_its_player_until_the_reveal(
    node: str, clients: Clients, store: Store
) -> None:
    """Another player (an account or a guest) can read from Ann's profile that she played
    today's deal, but spectating, resuming, replaying or reading the results of her race
    is refused until the day is over, and none of their frames holds a board of it; once
    the results are announced, all of it opens."""
    ann, bob = await account(clients, node, "Ann"), await account(clients, node, "Bob")
    guest = await clients.hello(node, "Guest")
    race, _ = await _played(ann, 3)
    await recorded(store)
    [entry] = await _recent(bob, ann.player)
    assert entry.race == race and entry.status == "resigned"
    for other in (bob, guest):
        for request in (
            Spectate(race=race),
            Resume(race=race, since=0),
            GetReplay(race=race, player=ann.player),
            GetResults(race=race),
        ):
            await refused(other, request, ErrorCode.NOT_ALLOWED)
    seen = [m for o in (bob, guest) for m in o.received]
    assert not [m for m in seen if isinstance(m, Board | Spectating | Replay | RaceFinished)]
    # Tomorrow: the day's results are announced, and the race is anyone's to watch.
    daily = NODES[node].daily
    daily.clock = lambda: tomorrow(entry.at)
    await daily.tick()
    finished = await ann.next(RaceFinished, timeout=TIMEOUT)
    watched = await bob.request(Spectate(race=race), Spectating)
    assert set(watched.boards) == {ann.player}
    replay = await guest.request(GetReplay(race=race, player=ann.player), Replay)
    assert replay.moves == finished.logs[ann.player]


async def test_a_running_daily_race_cannot_be_watched(node: str, clients: Clients) -> None:
    """While its player still plays, another player's spectate of a daily race is refused:
    nothing of it (not even its end) may reach them before the reveal."""
    ann, bob = await account(clients, node, "Ann"), await account(clients, node, "Bob")
    matched = await ann.request(PlayDaily(variant=VARIANT), Matched)
    await ann.next(RaceStarted, timeout=TIMEOUT)
    await refused(bob, Spectate(race=matched.race), ErrorCode.NOT_ALLOWED)
    await refused(bob, Resume(race=matched.race, since=0), ErrorCode.NOT_ALLOWED)


async def test_the_daily_board_ranks_a_resigned_game_below_every_win(
    node: str, clients: Clients, store: Store
) -> None:
    """A resigned game shows won: false with its cards home, placed after every win."""
    ann = await account(clients, node, "Ann")
    race, started = await _played(ann, 0)
    home = int(started.view.progress.home)
    assert home >= 1
    async with asyncio.timeout(TIMEOUT):
        while not (today := (await ann.request(GetDaily(variant=VARIANT), Daily)).daily).board:
            await asyncio.sleep(0.05)  # polled: the board is written just after the results
    # A win by another account on the same day's board (as Records.write scores one).
    await DailyStore(store).score(today.day, VARIANT, "someone", daily_score("won", 412.5, 104))
    board = (await ann.request(GetDaily(variant=VARIANT), Daily)).daily.board
    assert [(e.place, e.player, e.won) for e in board] == [
        (1, "someone", True),
        (2, ann.player, False),
    ]
    assert board[0].time == 412.5 and board[0].home is None
    assert board[1].home == home and board[1].time is None
    assert race


async def test_a_day_is_revealed_only_once_its_last_race_is_over(
    node: str, clients: Clients
) -> None:
    """A race started just before midnight may run past it: the day's seed is not shown as
    ``yesterday``, and its held results are not announced, until every race of the day is
    over, and a race that ends after midnight has its results announced too."""
    ann = await account(clients, node, "Ann")
    matched = await ann.request(PlayDaily(variant=VARIANT), Matched)
    await ann.next(RaceStarted, timeout=TIMEOUT)
    day = (await ann.request(GetDaily(variant=VARIANT), Daily)).daily.day
    daily = NODES[node].daily
    midnight = calendar.timegm(time.strptime(day, "%Y-%m-%d")) + 24 * 3600
    daily.clock = lambda: midnight + 30  # half a minute into the next day
    await daily.tick()
    assert (await ann.request(GetDaily(variant=VARIANT), Daily)).daily.yesterday is None
    await ann.request(Resign(race=matched.race), RaceInfo)  # after midnight, then
    results = NODES[node].races.results
    async with asyncio.timeout(TIMEOUT):
        while not await results.has_results(matched.race):  # polled: closed just after
            await asyncio.sleep(0.02)
    await daily.tick()
    await refused(ann, GetResults(race=matched.race), ErrorCode.NOT_ALLOWED)
    daily.clock = lambda: tomorrow(midnight - 1)  # every race of the day is long over
    await daily.tick()
    finished = await ann.next(RaceFinished, timeout=TIMEOUT)
    revealed = (await ann.request(GetDaily(variant=VARIANT), Daily)).daily.yesterday
    assert revealed is not None and revealed.seed == (finished.seed)
