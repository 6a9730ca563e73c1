"""A watch that ends stops the work it started for its client.

A spectator's watch reads the race's info from Redis on every lobby event
(who joined, who left), in a task of its own. Once the client is gone, or
follows the race another way, nobody wants the answer: such a read kept its
connection alive in memory until Redis answered, and when a node stopped
with one in flight, the loop closed on a task still pending ("Task was
destroyed but it is pending!").
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from client.session import ClientSession
from protocol.lobby import RaceSummary
from protocol.messages import CreateRace, JoinRace, RaceInfo, Ready, Spectate, Spectating
from server.storage.exceptions import StoreUnavailable
from tests.server.conftest import NODES, TIMEOUT, NodeFactory


class Unanswered:
    """A lobby whose reads wait until :meth:`fail` (Redis away), and which says when
    one is asked."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self._failed = asyncio.Event()

    async def info(self, race: str) -> RaceSummary:
        self.asked.set()
        await self._failed.wait()
        raise StoreUnavailable("redis went away")

    def fail(self) -> None:
        """End the reads waiting (before the test's loop closes)."""
        self._failed.set()


@dataclass
class ReadInFlight:
    """A spectator, Carol, whose watch waits on a read of the race's info, which the
    racers' watches wait on too (the first watch to hear a lobby event reads for all)."""

    carol: ClientSession
    #: What Carol's watch and the racers' are doing.
    carol_reading: set[asyncio.Task[None]]
    racers_reading: set[asyncio.Task[None]]
    race: str
    lobby: Unanswered


async def _spectating_a_read_in_flight(url: str) -> ReadInFlight:
    alice = await ClientSession.connect(url, "Alice")
    race = (
        await alice.request(CreateRace(variant="gavotte", max_players=3, time_limit=600), RaceInfo)
    ).race.id
    bob = await ClientSession.connect(url, "Bob")
    await bob.request(JoinRace(race=race), RaceInfo)  # so that Alice's being ready starts nothing
    carol = await ClientSession.connect(url, "Carol")
    await carol.request(Spectate(race=race), Spectating)
    watches = [conn.watches[race] for conn in NODES[url].connections if race in conn.watches]
    (watch,) = [watch for watch in watches if watch.conn.player == carol.player]
    lobby = Unanswered()
    for each in watches:
        each.lobby = lobby  # type: ignore[assignment]
    await alice.request(Ready(race=race, ready=True), RaceInfo)  # a lobby event: a read
    await asyncio.wait_for(lobby.asked.wait(), TIMEOUT)
    racers_reading = {
        task for racer in watches if racer is not watch for task in racer._tasks or ()
    }
    assert watch._tasks and racers_reading
    return ReadInFlight(carol, set(watch._tasks), racers_reading, race, lobby)


async def _ended(tasks: set[asyncio.Task[None]]) -> bool:
    """Whether every one of a watch's tasks ends (they are cancelled, not answered)."""
    _, still = await asyncio.wait(tasks, timeout=TIMEOUT)
    return not still


async def test_a_spectator_who_leaves_stops_the_reads_made_for_them(
    make_node: NodeFactory,
) -> None:
    async with make_node() as url:
        flight = await _spectating_a_read_in_flight(url)
        await flight.carol.close()
        assert await _ended(flight.carol_reading)
        assert not any(task.done() for task in flight.racers_reading)  # their read goes on
        flight.lobby.fail()


async def test_a_spectator_who_joins_the_race_stops_the_reads_made_for_watching(
    make_node: NodeFactory,
) -> None:
    async with make_node() as url:
        flight = await _spectating_a_read_in_flight(url)
        await flight.carol.request(JoinRace(race=flight.race), RaceInfo)  # a racer's watch now
        assert await _ended(flight.carol_reading)
        flight.lobby.fail()
