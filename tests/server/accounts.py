"""Accounts in the server tests: one registered over the protocol, a race between two run
to its end, and the wait until finished races are recorded in their accounts."""

from __future__ import annotations

import asyncio

from client.session import ClientSession
from protocol.messages import (
    Account,
    CreateRace,
    GetHint,
    Hinted,
    JoinRace,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Register,
    Resign,
    SpectatePolicy,
    StartRace,
)
from server.storage import keys
from server.storage.store import Store
from tests.server.conftest import TIMEOUT, Clients
from tests.server.refusals import VARIANT

PASSWORD = "a long enough password"


async def account(clients: Clients, url: str, name: str) -> ClientSession:
    session = await clients.hello(url, name)
    made = await session.request(Register(name=name, password=PASSWORD), Account)
    return await clients.hello(url, name, token=made.token)  # this connection is the account


async def race_to_the_end(
    first: ClientSession,
    second: ClientSession,
    *,
    deal: int | None = None,
    unrated: bool = False,
    practice: bool = False,
) -> RaceFinished:
    """A two-racer race, both resigning with the same cards home: ``first`` resigns a
    tenth of a second or more before ``second``, and so is placed first (the standings
    part equal cards home by time). In a ``practice`` race ``first`` takes a hint first."""
    create = CreateRace(
        variant=VARIANT, max_players=2, time_limit=600, spectate=SpectatePolicy.AFTER,
        deal=deal, unrated=unrated or None, practice=practice or None,
    )  # fmt: skip
    race = str((await first.request(create, RaceInfo)).race.id)
    await second.request(JoinRace(race=race), RaceInfo)
    await first.request(StartRace(race=race), RaceInfo)
    for racer in (first, second):
        await racer.next(RaceStarted, timeout=TIMEOUT)
    if practice:
        await first.request(GetHint(race=race), Hinted)
    await first.request(Resign(race=race), RaceInfo)
    # Times are compared in tenths of a second (closer is a tie): the second
    # resignation must come a tenth later to be placed second, whatever the load.
    await asyncio.sleep(0.15)
    await second.request(Resign(race=race), RaceInfo)
    return await first.next(RaceFinished, timeout=TIMEOUT)


async def recorded(store: Store) -> None:
    """Wait until every finished race is recorded in its accounts (just after the results)."""
    async with asyncio.timeout(TIMEOUT):
        while await store.redis.zcard(keys.RECORDS_PENDING):  # polled: no event says it
            await asyncio.sleep(0.02)


__all__ = ["PASSWORD", "account", "race_to_the_end", "recorded"]
