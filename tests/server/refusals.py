"""What the abuse tests check a node with, shared by the tests of refusals: a race to
poke at, Redis unchanged across a refusal, the refusal's code, a connection still alive."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest

from client.session import ClientSession, RequestFailed
from protocol.exceptions import ErrorCode
from protocol.messages import (
    ClientMessage,
    CreateRace,
    JoinRace,
    Ping,
    Pong,
    RaceInfo,
    ServerMessage,
    SpectatePolicy,
)
from server.rules.events import PresenceChanged
from server.storage import keys
from server.storage.event_codec import decode_event
from server.storage.store import Store
from tests.server.conftest import TIMEOUT, Clients

VARIANT, DEAL = "quadrille", 7  # a public deal, so the tests can follow it with the engine


@dataclasses.dataclass
class Race:
    """Two racers, Alice (the host) and Bob, in a race on the public deal."""

    url: str
    id: str
    code: str
    alice: ClientSession
    bob: ClientSession


async def lobby(clients: Clients, url: str, *, max_players: int = 2) -> Race:
    """An open race hosted by Alice that Bob has joined."""
    alice = await clients.hello(url, "Alice")
    bob = await clients.hello(url, "Bob")
    created = await alice.request(
        CreateRace(
            variant=VARIANT,
            max_players=max_players,
            time_limit=600,
            spectate=SpectatePolicy.LIVE,
            deal=DEAL,
        ),
        RaceInfo,
    )
    race = Race(url, created.race.id, created.race.code, alice, bob)
    await bob.request(JoinRace(code=race.code), RaceInfo)
    return race


async def snapshot(store: Store) -> dict[bytes, Any]:
    """Every key in Redis with its value, but for the rate counters.

    Values are read by type rather than with ``DUMP``: a hash's serialised
    field order can change while Redis rehashes it, with nothing written.
    """
    client = store.redis
    values: dict[bytes, Any] = {}
    async for key in client.scan_iter(count=1000):
        if key.startswith((b"login:", b"rate:")):
            continue  # the rate counters (logins, guesses, tokens) count refusals: their job
        kind = await client.type(key)
        if kind == b"hash":
            values[key] = await client.hgetall(key)
        elif kind == b"list":
            values[key] = await client.lrange(key, 0, -1)
        elif kind == b"zset":
            values[key] = await client.zrange(key, 0, -1, withscores=True)
        elif kind == b"stream":
            values[key] = await client.xrange(key)
        elif kind == b"set":
            values[key] = await client.smembers(key)
        else:
            values[key] = await client.dump(key)
    return values


def but_presence(values: dict[bytes, Any]) -> dict[bytes, Any]:
    """``values`` less who is connected: a connection the server closes on bad input
    is a racer gone away, which the race notes (``presence`` events, ``away:`` fields),
    and a seat given up (``seat:`` fields)."""
    kept: dict[bytes, Any] = {}
    for key, value in values.items():
        if key in (keys.RACERS_HERE.encode(), keys.RACERS_AWAY.encode()):
            continue
        if key.startswith(b"spectators:"):
            continue  # how many watch each race, said again by each node every few seconds
        if key.endswith(b":meta") and isinstance(value, dict):
            # The event counter counts presence events too; the stream says the rest.
            value = {f: v for f, v in value.items() if not f.startswith((b"away:", b"seat:"))}
            value.pop(b"events", None)
        elif key.endswith(b":events") and isinstance(value, list):
            value = [e for e in value if not isinstance(decode_event(e[1][b"d"]), PresenceChanged)]
        kept[key] = value
    return kept


@contextlib.asynccontextmanager
async def unchanged(store: Store) -> AsyncIterator[None]:
    """The block must leave every key in Redis as it found it (but who is connected)."""
    before = but_presence(await snapshot(store))
    yield
    after = but_presence(await snapshot(store))
    assert after.keys() == before.keys()
    changed = [key for key in before if before[key] != after[key]]
    assert not changed, f"changed in Redis: {changed}"


async def refused(session: ClientSession, message: ClientMessage, code: ErrorCode) -> str:
    """Send ``message`` as a request: it must be refused with ``code``.

    ``request`` only returns on a reply carrying the request's id, so the
    error is known to carry it. Returns the error's message.
    """
    with pytest.raises(RequestFailed) as failed:
        await asyncio.wait_for(session.request(message, ServerMessage), TIMEOUT)
    assert failed.value.code is code, failed.value
    return failed.value.message


async def alive(session: ClientSession) -> None:
    """The connection still answers requests."""
    await asyncio.wait_for(session.request(Ping(), Pong), TIMEOUT)


async def close_code(session: ClientSession) -> int | None:
    """Wait for the server to close the connection; the code it closed with."""
    await asyncio.wait_for(session.ws.wait_closed(), TIMEOUT)
    return session.ws.close_code


__all__ = [
    "DEAL",
    "VARIANT",
    "Race",
    "alive",
    "but_presence",
    "close_code",
    "lobby",
    "refused",
    "snapshot",
    "unchanged",
]
