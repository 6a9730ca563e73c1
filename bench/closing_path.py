"""What closing one race costs in Redis calls: the race-closing path, counted.

Run: ``.venv/bin/python -m bench.closing_path [--racers K] [--show]``

A rated race of K accounts (two by default) is made through the race
service, on a secret deal, against a real redis-server; every racer resigns,
and then the race is closed the way its last racer's node closes it
(:meth:`server.services.results.Results.close_if_done`, which stores the
results and records them in every account: the ratings, the histories, the
leaderboards). Around that close alone it counts:

- the commands the node sent (Redis's MONITOR, leaving out those that scripts
  ran inside Redis), and with ``--show`` prints them;
- the round trips: the times the node sent something and waited for the
  answer (a pipeline is one), counted on redis-py's connections;
- Redis's own count of commands (``INFO commandstats``), script-inner ones
  included.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection

from bench.harness import fresh_store
from protocol.messages import CreateRace, SpectatePolicy
from server.services.races import RaceServices
from server.services.records import Records
from server.settings import Settings, Timeouts
from server.storage.players import PlayerStore
from server.storage.store import Store

#: The commands the counting starts and ends with: MONITOR shows what came between.
START, END = "closing-path-start", "closing-path-end"


class RoundTrips:
    """Counts what redis-py's connections send: one a command, one a pipeline."""

    def __init__(self) -> None:
        self.count = 0
        self._send: Callable[..., Any] = AbstractConnection.send_packed_command

    def __enter__(self) -> RoundTrips:
        send = self._send

        async def counted(connection: AbstractConnection, *args: Any, **kwargs: Any) -> None:
            self.count += 1
            await send(connection, *args, **kwargs)

        AbstractConnection.send_packed_command = counted  # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, *_: object) -> None:
        AbstractConnection.send_packed_command = self._send  # type: ignore[method-assign]


async def finished_race(store: Store, races: RaceServices, racers: int) -> str:
    """A rated race of ``racers`` accounts, every racer resigned, not yet closed."""
    players = [f"ubench{n:02d}" for n in range(racers)]
    request = CreateRace(
        variant="gavotte", max_players=racers, time_limit=600,
        spectate=SpectatePolicy.AFTER, delay=0,
    )  # fmt: skip
    race = await races.lobby.create(players[0], "Racer 0", request)
    for n, player in enumerate(players[1:], 1):
        await races.lobby.join(player, f"Racer {n}", race)
    await races.lobby.start(players[0], race)
    for player in players:
        await races.moves.resign(player, race)
    return race


async def commandstats(store: Store) -> int:
    """Commands Redis has run since its start, script-inner ones included."""
    stats = await store.redis.info("commandstats")
    return sum(int(value["calls"]) for value in stats.values())


async def count(store: Store, racers: int, show: bool) -> None:
    settings = Settings(timeouts=Timeouts(countdown=0.0))
    races = RaceServices.build(store, settings, records=Records(PlayerStore(store)))
    # The last resignation would close the race in the background: closed below instead.
    races.results.close_soon = lambda race: None  # type: ignore[method-assign]
    race = await finished_race(store, races, racers)
    assert isinstance(store.redis, aioredis.Redis), "one Redis, not a cluster"
    monitor = store.redis.monitor()
    sent: list[str] = []
    async with monitor:
        # The monitor took a connection of the pool: the store opens its next one now.
        await store.redis.echo(START)
        before = await commandstats(store)
        with RoundTrips() as trips:
            await races.results.close_if_done(race)
        after = await commandstats(store)
        await store.redis.echo(END)
        started = False
        while True:
            seen = await monitor.next_command()
            command = str(seen["command"])
            if END in command:
                break
            if START in command:
                started = True
            elif started and seen["client_type"] != "lua" and not command.startswith("INFO"):
                sent.append(command)
    assert await races.results.has_results(race)
    if show:
        for command in sent:
            print(f"  {command[:110]}")
    print(
        f"closing a rated race of {racers} accounts: {len(sent)} commands sent, "
        f"{trips.count} round trips, {after - before - 1} commands run by Redis "
        "(script-inner included)"
    )


async def measure(racers: int, show: bool) -> None:
    async with fresh_store("ballroom-closing-") as store:
        await count(store, racers, show)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--racers", type=int, default=2, help="accounts racing")
    parser.add_argument("--show", action="store_true", help="print each command sent")
    args = parser.parse_args()
    asyncio.run(measure(max(2, args.racers), args.show))


if __name__ == "__main__":
    main()
