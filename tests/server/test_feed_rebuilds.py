"""Pushes stay in event order while the nodes' event feeds are made again and again.

Redis drops every pub/sub connection (``CLIENT KILL TYPE pubsub``) every
few tens of milliseconds while three racers on two nodes move, one of them
drops and comes back (presence), and spectators on both nodes watch (and before the start two racers
change their ready many times: ``race_state`` pushes, each after a read): each
feed is rebuilt, every watcher catches up from the stream while pub/sub
and the nodes' own commits offer the same events again. Every connection
must still get its pushes in event order, a spectator every board once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools

import pytest
import redis.asyncio as aioredis

from client.session import ClientSession
from protocol.messages import (
    Board,
    Countdown,
    CreateRace,
    JoinRace,
    Presence,
    Progress,
    RaceInfo,
    RaceState,
    Ready,
    Resume,
    ServerMessage,
    Spectate,
    Spectating,
    StartRace,
)
from server.rules.races import Spectate as Policy
from tests.server.conftest import TIMEOUT, Clients, NodeFactory
from tests.server.faults import Racer, eventually

pytestmark = pytest.mark.slow

#: Moves each racer makes, and ready changes each guest makes, while the feeds are cut.
MOVES, LOBBY_CHANGES = 30, 10


def _numbers(messages: list[ServerMessage], race: str) -> list[int]:
    """The event numbers of the pushes about ``race`` a session got, in arrival order."""
    return [
        int(m.event or 0)
        for m in messages
        if (isinstance(m, Progress | Presence | Board | Countdown) and m.race == race)
        or (isinstance(m, RaceState) and m.race.id == race and m.event is not None)
    ]


async def _cut_feeds(url: str, stop: asyncio.Event) -> int:
    """Drop every pub/sub connection to Redis until ``stop``; how many times."""
    cuts = 0
    client = aioredis.Redis.from_url(url)
    try:
        while not stop.is_set():
            await client.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
            cuts += 1
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.03):
                    await stop.wait()
    finally:
        await client.aclose()
    return cuts


async def test_pushes_keep_their_order_while_feeds_are_rebuilt(
    make_node: NodeFactory, clients: Clients, redis_url: str
) -> None:
    """Every session's pushes rise in event number; each spectator gets each board once."""
    async with make_node() as a, make_node() as b:
        ann, bo, eve = (
            await clients.hello(a, "Ann"),
            await clients.hello(b, "Bo"),
            await clients.hello(b, "Eve"),
        )
        created = await ann.request(
            CreateRace(
                variant="gavotte", max_players=3, time_limit=600, spectate=Policy.LIVE, deal=3
            ),
            RaceInfo,
        )
        race = str(created.race.id)
        for guest in (bo, eve):
            await guest.request(JoinRace(race=race), RaceInfo)
        watchers = [await clients.hello(url, "Watcher") for url in (a, b)]
        for watcher in watchers:
            await watcher.request(Spectate(race=race), Spectating)
        stop = asyncio.Event()
        cutter = asyncio.create_task(_cut_feeds(redis_url, stop))

        async def toggle(racer: ClientSession) -> None:  # lobby events: race_state pushes
            for n in range(LOBBY_CHANGES):
                await racer.request(Ready(race=race, ready=n % 2 == 0), RaceInfo)

        async with asyncio.timeout(6 * TIMEOUT):
            await asyncio.gather(toggle(bo), toggle(eve))
        await ann.request(StartRace(race=race), RaceInfo)
        first, second = await Racer(ann, race).started(), await Racer(bo, race).started()
        await Racer(eve, race).started()
        moves: list[int] = []

        async def play(racer: Racer) -> None:
            for _ in range(MOVES):
                if not racer.legal:
                    return
                event = (await racer.move()).event
                assert event is not None
                moves.append(event)

        async def come_and_go() -> None:
            nonlocal eve
            for _ in range(3):
                await eve.close()
                assert eve.welcome is not None
                eve = await clients.hello(b, "Eve", token=eve.welcome.token)
                await eve.request(Resume(race=race, since=0), ServerMessage)

        async with asyncio.timeout(6 * TIMEOUT):
            await asyncio.gather(play(first), play(second), come_and_go())
        stop.set()
        cuts = await cutter
        assert cuts >= 3

        wanted = set(moves)
        for watcher in watchers:
            got = watcher.received
            await eventually(
                functools.partial(lambda seen: wanted <= set(_numbers(seen, race)), got),
                "each spectator to get every board",
            )
        for session in (ann, bo, *watchers):
            numbers = _numbers(session.received, race)
            assert numbers == sorted(set(numbers)), numbers
