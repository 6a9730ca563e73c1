"""Everything the server keeps, kept in Redis.

One :class:`Store` per node wraps a redis.asyncio client. Every multi-key
change is one Lua script (``server/storage/lua/*.lua``), registered once, with all of
its keys passed in ``KEYS``; events are numbered per race, appended to the
race's stream (the durable log used to resume and to spectate) and announced
on the race's channel (the fast path to other nodes).

Move commits are the hot path: :class:`CommitBatcher` gathers the commits of
all connections that arrive in the same event-loop turn and sends them as one
pipeline, so a busy node pays one Redis round trip per batch, not per move.

On a Redis Cluster (:mod:`server.storage.cluster`) every script touches the
keys of one race or one tournament, which share a slot; the sorted sets
that list races (open, live) live in slots of their own, so the scripts
that change a race's phase leave them alone and the store updates them
after the script, with commands that are safe to repeat. Events are
announced with SPUBLISH on a cluster, PUBLISH on one Redis.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgpack
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from protocol.codec import pack_value as pack
from server.rules.races import RaceSettings
from server.storage import keys
from server.storage.boards import BoardStore
from server.storage.cluster import (
    Feed,
    RedisClient,
    Topology,
    close_client,
    cluster_client,
    is_cluster_url,
    open_feed,
)
from server.storage.commits import CommitBatcher
from server.storage.draws import new_code
from server.storage.events import EventStore
from server.storage.exceptions import StoreUnavailable, converts_redis_errors, storage_edge
from server.storage.lobby import LobbyStore
from server.storage.pool import FairConnectionPool
from server.storage.presence import PresenceStore
from server.storage.replies import (
    optional_text,
    reply_text,
    reply_texts,
)
from server.storage.results import ResultStore
from server.storage.scripts import ScriptRegistry
from server.storage.sessions import SessionStore

__all__ = [
    "Store",
    "connect",
    "pack",
    "unpack",
]

log = logging.getLogger(__name__)

#: Fields of a race's meta hash that hold msgpack, not text: the results and
#: their announcement while it is held back.
_PACKED_META = frozenset({b"results", b"held"})


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def _meta(raw: Mapping[bytes | str, object]) -> dict[str, str]:
    """A race's meta hash as text, without the packed fields (results, held results)."""
    return {reply_text(k): reply_text(v) for k, v in raw.items() if k not in _PACKED_META}


#: Connections a cluster client may open to each node. redis-py's cluster
#: client fails a command outright when a node's are all busy, so the cap is
#: set far above what a node keeps in flight.
CLUSTER_CONNECTIONS_PER_NODE = 1024


@converts_redis_errors
async def connect(url: str, *, max_connections: int = 64) -> Store:
    """A store on ``url`` (one Redis, or a cluster: ``redis+cluster://``);
    retries with backoff while Redis is starting."""
    settings: dict[str, Any] = {
        "retry": Retry(ExponentialBackoff(cap=1.0, base=0.05), retries=3),
        "retry_on_error": [RedisConnectionError, RedisTimeoutError],
        "socket_connect_timeout": 2,
        "socket_timeout": 5,
    }
    client: RedisClient
    if is_cluster_url(url):
        client = cluster_client(
            url,
            max_connections=CLUSTER_CONNECTIONS_PER_NODE,
            require_full_coverage=False,  # one shard failing over leaves the others serving
            **settings,
        )
    else:
        pool = FairConnectionPool.from_url(
            url, max_connections=max_connections, health_check_interval=15, **settings
        )
        client = aioredis.Redis.from_pool(pool)
    for attempt in range(1, 41):
        try:
            await client.ping()
            break
        except (RedisError, OSError) as exc:
            log.warning("redis at %s not answering (attempt %d): %s", url, attempt, exc)
            await asyncio.sleep(min(0.05 * attempt, 1.0))
    else:
        raise StoreUnavailable(f"redis at {url} did not answer")
    store = Store(client)
    await store.load_scripts()
    return store


@storage_edge
class Store:
    """Typed operations on the Redis model of races and sessions."""

    def __init__(self, client: RedisClient) -> None:
        self.redis = client
        self.topology = Topology(client)
        #: One Redis runs a MULTI over any keys; a cluster only over one slot's.
        self.atomic_across_slots = not self.topology.sharded
        self.scripts = ScriptRegistry(client, sharded=self.topology.sharded)
        self.batcher = CommitBatcher(self.topology, self.scripts)
        self.sessions = SessionStore(client)
        self.events = EventStore(client)
        self.presence = PresenceStore(client, self.scripts)
        self.results = ResultStore(client, self.scripts)
        self.lobby = LobbyStore(client)
        self.boards = BoardStore(client, self.scripts)

    async def load_scripts(self) -> None:
        await self.scripts.load()

    async def run(self, name: str, keys_: list[str], args: list[Any]) -> Any:
        """Run a registered script, reloading it once if Redis forgot it (restart)."""
        return await self.scripts.run(name, keys_, args)

    async def close(self) -> None:
        self.batcher.close()
        await close_client(self.redis)

    def feed(
        self, on_message: Callable[[bytes, bytes], None], on_lost: Callable[[Exception], None]
    ) -> Feed:
        """A new pub/sub feed of events: see :func:`server.storage.cluster.open_feed`."""
        return open_feed(self.topology, on_message, on_lost)

    # -- races -----------------------------------------------------------

    async def create_race(self, host: str, name: str, settings: RaceSettings) -> str:
        """Store a new open race with its host as first player; returns its id."""
        race = secrets.token_hex(5)
        code = new_code()
        now = time.time()
        meta: dict[str, str | int | float] = {
            **settings.to_meta(), "status": "open", "host": host, "created": now, "code": code,
        }  # fmt: skip
        async with self.redis.pipeline(transaction=self.atomic_across_slots) as pipe:
            pipe.hset(keys.race_meta(race), mapping=meta)  # type: ignore[arg-type]
            pipe.hset(keys.race_players(race), host, name)
            if not self.atomic_across_slots:
                # A cluster: the code and the lists lie in other slots, written
                # after the race, so a listing never finds a race not there.
                await pipe.execute()
            pipe.set(keys.race_code(code), race)
            pipe.zadd(keys.OPEN_RACES, {race: now})
            pipe.sadd(keys.hosted_races(host), race)
            await pipe.execute()
        return race

    async def create_seated_race(
        self, race: str, host: str, racers: dict[str, str], settings: RaceSettings
    ) -> bool:
        """Store an open race with its racers seated and no room for more, unless
        ``race`` exists already; True if this call made it.

        It has no join code and is not listed: only its host (a tournament)
        starts it, and only the racers seated may move in it.
        """
        meta = {
            **settings.to_meta(), "status": "open", "host": host, "created": time.time(),
            "code": "", "max_players": len(racers),
        }  # fmt: skip
        fields = [str(v) for item in meta.items() for v in item]
        seats = [v for item in racers.items() for v in item]
        made = await self.run(
            "seat", [keys.race_meta(race), keys.race_players(race)], [len(meta), *fields, *seats]
        )
        return bool(made)

    async def race_id_for_code(self, code: str) -> str | None:
        return optional_text(await self.redis.get(keys.race_code(code.upper())))

    async def meta(self, race: str) -> dict[str, str]:
        return _meta(await self.redis.hgetall(keys.race_meta(race)))

    async def players(self, race: str) -> dict[str, str]:
        return reply_texts(await self.redis.hgetall(keys.race_players(race)))

    async def metas_and_players(
        self, races: Sequence[str]
    ) -> list[tuple[dict[str, str], dict[str, str]]]:
        """Each race's meta and players (both empty for a race gone), in one round trip.

        A lobby lists up to a hundred races; one round trip per hash made a
        listing two hundred of them.
        """
        async with self.redis.pipeline(transaction=False) as pipe:
            for race in races:
                pipe.hgetall(keys.race_meta(race))
                pipe.hgetall(keys.race_players(race))
            replies = await pipe.execute()
        return [(_meta(replies[i]), reply_texts(replies[i + 1])) for i in range(0, len(replies), 2)]

    async def join(self, race: str, player: str, name: str, payload: bytes) -> tuple[str, int]:
        status, event = await self.run(
            "join",
            [keys.race_meta(race), keys.race_players(race), keys.race_events(race)],
            [race, player, name, keys.race_channel(race), payload],
        )
        return reply_text(status), int(event)

    async def leave(self, race: str, player: str, payload: bytes) -> tuple[str, int]:
        status, event, closed = await self.run(
            "leave",
            [keys.race_meta(race), keys.race_players(race), keys.race_events(race)],
            [race, player, keys.race_channel(race), payload],
        )
        if int(closed):
            await self.redis.zrem(keys.OPEN_RACES, race)
        return reply_text(status), int(event)

    async def set_ready(
        self, race: str, player: str, ready: bool, payload: bytes
    ) -> tuple[str, int, bool]:
        status, event, everyone = await self.run(
            "ready",
            [keys.race_meta(race), keys.race_players(race), keys.race_events(race)],
            [player, int(ready), keys.race_channel(race), payload],
        )
        return reply_text(status), int(event), bool(everyone)

    async def start(
        self,
        race: str,
        requester: str,
        *,
        started_at: float,
        ends_at: float,
        payload: bytes,
        force: bool,
        home: int = 0,
    ) -> tuple[str, int]:
        status, event = await self.run(
            "start",
            [keys.race_meta(race), keys.race_players(race), keys.race_events(race),
             keys.race_boards(race)],
            [race, requester, repr(started_at), repr(ends_at),
             keys.race_channel(race), payload, int(force), home],
        )  # fmt: skip
        if reply_text(status) == "ok":
            # Listed as live before it is no longer listed as open: a node
            # lost between the two leaves it in both lists, never in neither.
            await self.redis.zadd(keys.LIVE_RACES, {race: ends_at})
            await self.redis.zrem(keys.OPEN_RACES, race)
        return reply_text(status), int(event)

    async def resign(
        self, race: str, player: str, now: float, payload: bytes, *, how: str = "resigned"
    ) -> tuple[str, int, int]:
        """End a racer's game: ``resigned``, or ``left`` if away past the race's grace."""
        status, event, left = await self.run(
            "resign",
            [keys.race_meta(race), keys.race_boards(race), keys.race_events(race)],
            [player, repr(now), keys.race_channel(race), payload, how],
        )
        return reply_text(status), int(event), int(left)

    async def finish(self, race: str, now: float) -> bool:
        """Close the race if it is done; True for the one caller that closed it."""
        result = reply_text(
            await self.run(
                "finish",
                [keys.race_meta(race), keys.race_boards(race), keys.race_players(race)],
                [race, repr(now)],
            )
        )
        if result in ("closed", "not_started"):
            # Not live (any more): also mends the list after a node was lost
            # between a race's close and this step.
            await self.redis.zrem(keys.LIVE_RACES, race)
        return result == "closed"

    async def expire_race(self, race: str, seconds: float) -> None:
        """Let Redis drop every key of a finished race after ``seconds``."""
        meta, players = keys.race_meta(race), keys.race_players(race)
        code = await self.redis.hget(meta, "code")
        names = [reply_text(p) for p in await self.redis.hkeys(players)]
        ttl = max(1, int(seconds))
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in (meta, players, keys.race_boards(race), keys.race_events(race)):
                pipe.expire(key, ttl)
            for player in names:
                pipe.expire(keys.race_log(race, player), ttl)
            if code:
                pipe.expire(keys.race_code(reply_text(code)), ttl)
            await pipe.execute()
