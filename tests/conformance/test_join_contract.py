"""``join_race`` as docs/protocol.md promises it: the reply first, then the race's events.

A client learns which race it joined from the reply (a join code names no
race), so an event of the race pushed before the reply cannot be placed: the
bot that got ``race_started`` ahead of its ``join_race`` reply dropped it and
never moved. The race's own events (the joiner's join, the next joiner's, the
host's start the moment a seat fills) must all wait for the reply.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.conformance.racers import DEAL, VARIANT, hello
from tests.conformance.wire import Peer
from tests.server.conftest import TIMEOUT, ProcessFactory

pytestmark = pytest.mark.slow

#: Races filled, and the seats each has besides its host's.
RACES, JOINERS = 4, 7


def _first_after_welcome(peer: Peer) -> str:
    """The type of the second frame the connection received (the first is ``welcome``)."""
    return str(peer.frames[1].get("t")) + ("" if "id" in peer.frames[1] else " (pushed)")


async def _fill_and_start(url: str) -> list[Peer]:
    """A host's race filled by joiners all at once, started as soon as the last is in."""
    host = await hello(url, "Host")
    info = (
        await host.ask(
            "create_race", variant=VARIANT, max_players=1 + JOINERS, time_limit=600, deal=DEAL
        )
    )["race"]
    joiners = await asyncio.gather(*(hello(url, f"J{n}") for n in range(JOINERS)))

    async def start_when_full() -> None:
        await host.push("race_state", lambda m: len(m["race"]["players"]) == 1 + JOINERS)
        await host.ask("start_race", race=info["id"])

    await asyncio.gather(
        start_when_full(), *(peer.call("join_race", code=info["code"]) for peer in joiners)
    )
    await asyncio.gather(*(peer.push("race_started", race=info["id"]) for peer in joiners))
    return [host, *joiners]


async def test_the_join_reply_comes_before_any_event_of_the_race(
    node_processes: ProcessFactory,
) -> None:
    """Seven joiners at once, the race started as the last gets in: each joiner's
    first frame is its reply, and the create's reply comes before anything too."""
    (node,) = await asyncio.to_thread(node_processes, 1)
    async with asyncio.timeout(RACES * TIMEOUT):
        for _ in range(RACES):
            peers = await _fill_and_start(node.url)
            firsts = [_first_after_welcome(peer) for peer in peers]
            for peer in peers:
                await peer.close()
            assert firsts == ["race"] * len(peers), firsts
