"""A node's connection to Redis, and one store per kind of data kept there.

:func:`connect` opens the client (one Redis, or a cluster) and loads the Lua
scripts; the :class:`Store` it returns holds what every store shares (the
client, the cluster's topology, the scripts) and the stores themselves, each
in its own module with typed values in and out:

==================  ===================================================
``store.races``     races' meta and players, their lifecycle (:mod:`~server.storage.races`)
``store.boards``    racers' boards and move logs (:mod:`~server.storage.boards`)
``store.batcher``   move commits, the hot path (:mod:`~server.storage.commits`)
``store.events``    the event streams (:mod:`~server.storage.events`)
``store.presence``  who is connected, and seats (:mod:`~server.storage.presence`)
``store.results``   results, stored and announced (:mod:`~server.storage.results`)
``store.closing``   the reads and writes of closing a race (:mod:`~server.storage.closing`)
``store.lobby``     the lists of open and live races (:mod:`~server.storage.lobby`)
``store.sessions``  guest sessions (:mod:`~server.storage.sessions`)
==================  ===================================================

Accounts, queues, tournaments and the daily deal have their own stores
(:mod:`~server.storage.players`, :mod:`~server.storage.matchmaking`,
:mod:`~server.storage.tournaments`, :mod:`~server.storage.daily`), made from a
Store. Events are announced with SPUBLISH on a cluster, PUBLISH on one Redis.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.storage.boards import BoardStore
from server.storage.closing import ClosingStore
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
from server.storage.events import EventStore
from server.storage.exceptions import StoreUnavailable, converts_redis_errors, storage_edge
from server.storage.lobby import LobbyStore
from server.storage.pool import FairConnectionPool
from server.storage.presence import PresenceStore
from server.storage.races import RaceStore
from server.storage.results import ResultStore
from server.storage.scripts import ScriptRegistry
from server.storage.sessions import SessionStore

__all__ = ["CONNECT_ATTEMPTS", "Store", "connect"]

log = logging.getLogger(__name__)


#: Connections a cluster client may open to each node. redis-py's cluster
#: client fails a command outright when a node's are all busy, so the cap is
#: set far above what a node keeps in flight.
CLUSTER_CONNECTIONS_PER_NODE = 1024


#: Tries of a starting node to reach Redis (about 30 s in all), which may be starting too.
CONNECT_ATTEMPTS = 40


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
    for attempt in range(1, CONNECT_ATTEMPTS + 1):
        try:
            await client.ping()
            break
        except (RedisError, OSError) as exc:
            log.warning("redis at %s not answering (attempt %d): %s", url, attempt, exc)
            await asyncio.sleep(min(0.05 * attempt, 1.0))
    else:
        raise StoreUnavailable(f"redis at {url} did not answer")
    store = Store(client)
    await store.scripts.load()
    return store


@storage_edge
class Store:
    """The node's Redis client, its scripts, and a store per kind of data on it."""

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
        self.races = RaceStore(client, self.scripts, atomic_across_slots=self.atomic_across_slots)
        self.closing = ClosingStore(client, self.scripts)

    async def close(self) -> None:
        self.batcher.close()
        await close_client(self.redis)

    def feed(
        self, on_message: Callable[[bytes, bytes], None], on_lost: Callable[[Exception], None]
    ) -> Feed:
        """A new pub/sub feed of events: see :func:`server.storage.cluster.open_feed`."""
        return open_feed(self.topology, on_message, on_lost)
