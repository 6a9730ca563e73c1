"""Redis Cluster: its URL, which node holds a key, and pub/sub by shard.

``--redis redis+cluster://host:port`` (or ``rediss+cluster://``) names a
cluster by any one of its nodes, or by several (``host1:port,host2:port``);
the rest of the URL follows redis-py's conventions
(``redis://user:password@host:port``), and redis-py's
:class:`~redis.asyncio.RedisCluster` is given it without the ``+cluster``.
Every key of a race carries the race's hash tag (:mod:`server.storage.keys`),
so a race lives in one slot, and so on one primary.

The move path's lean connections (:mod:`server.storage.resp`) must be sent
to that primary themselves: :class:`Topology` says which one, from
redis-py's map of the slots, and refreshes the map when a reply says it is
stale. :class:`ShardedSubscriber` follows each race's shard channel
(SSUBSCRIBE) on the primary that owns it, so a move's event travels only
from the shard that stored it to the nodes that follow the race.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol, TypeAlias

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode
from redis.exceptions import ClusterDownError, RedisClusterException

from server.storage.exceptions import storage_edge
from server.storage.resp import Endpoint, Subscriber

__all__ = [
    "Feed",
    "RedisClient",
    "ShardedSubscriber",
    "Topology",
    "close_client",
    "cluster_client",
    "is_cluster_url",
    "is_redirection",
    "read_slot_map",
    "redis_py_url",
]

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")

#: What the store talks to: one Redis, or a cluster of them.
RedisClient: TypeAlias = aioredis.Redis | aioredis.RedisCluster

#: Error replies of a cluster that mean "ask again, maybe elsewhere", not "refused".
_REDIRECTIONS = ("MOVED", "ASK", "TRYAGAIN", "CLUSTERDOWN")


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis+cluster://``, ``rediss+cluster://``)."""
    return url.partition("://")[0].lower() in CLUSTER_SCHEMES


def redis_py_url(url: str) -> str:
    """The URL as redis-py's clients take it: the scheme without ``+cluster``."""
    scheme, separator, rest = url.partition("://")
    return f"{scheme.lower().removesuffix('+cluster')}{separator}{rest}"


def cluster_client(url: str, **settings: Any) -> aioredis.RedisCluster:
    """redis-py's cluster client for ``url``, which may name several nodes.

    ``redis+cluster://h1:7000,h2:7000,h3:7000/`` gives the client all three
    to start from: a node started while the first is down still finds the
    cluster. ``settings`` go to every node's connections.
    """
    scheme, _, rest = redis_py_url(url).partition("://")
    netloc, slash, path = rest.partition("/")
    credentials, at, hosts = netloc.rpartition("@")
    first, *others = hosts.split(",")
    extra = [_node(address) for address in others]
    first_url = f"{scheme}://{credentials}{at}{first}{slash}{path}"
    if extra:
        settings = {**settings, "startup_nodes": extra}
    return aioredis.RedisCluster.from_url(first_url, **settings)


def _node(address: str) -> ClusterNode:
    host, _, port = address.rpartition(":")
    return ClusterNode(host or address, int(port) if host else 6379)


def is_redirection(error_text: str) -> bool:
    """An error reply saying the slot is served elsewhere, or not served right now."""
    return error_text.startswith(_REDIRECTIONS)


def _known_nodes(client: aioredis.RedisCluster) -> list[ClusterNode]:
    """Every node object the client holds (one node may be two objects: a startup node)."""
    manager = client.nodes_manager
    nodes = {id(n): n for n in (*manager.nodes_cache.values(), *manager.startup_nodes.values())}
    return list(nodes.values())


async def _disconnect(nodes: list[ClusterNode]) -> None:
    await asyncio.gather(*(node.disconnect() for node in nodes), return_exceptions=True)


async def read_slot_map(client: aioredis.RedisCluster) -> None:
    """Have redis-py read the slot map again; a Redis error if it cannot.

    redis-py raises a bare ``RedisClusterException`` when no node it knows
    answers; callers expect Redis errors, which they treat as storage away.
    A node the new map leaves out is disconnected here: redis-py closes only
    its idle connections, and the others stayed open until the garbage
    collector found them ("Unclosed ClusterNode object", logged wherever).
    """
    before = _known_nodes(client)
    try:
        await client.nodes_manager.initialize()
    except RedisClusterException as exc:
        raise ClusterDownError(str(exc)) from exc
    finally:
        kept = {id(node) for node in _known_nodes(client)}
        await _disconnect([node for node in before if id(node) not in kept])


async def close_client(client: RedisClient) -> None:
    """Close every connection of ``client``.

    redis-py's ``RedisCluster.aclose`` does nothing while the client means to
    read the slot map again (after a connection error, or before its first
    command), so the nodes' connections are closed here one by one as well.
    """
    await client.aclose()
    if isinstance(client, aioredis.RedisCluster):
        await _disconnect(_known_nodes(client))


class Topology:
    """Which Redis holds a key: always the same one, or on a cluster the slot's primary."""

    def __init__(self, client: RedisClient) -> None:
        self.client = client
        self.sharded = isinstance(client, aioredis.RedisCluster)
        #: The one Redis, when it is not a cluster.
        self.single = None if isinstance(client, aioredis.RedisCluster) else Endpoint.of(client)
        self._endpoints: dict[str, Endpoint] = {}

    def slot(self, key: str) -> int:
        """The key's slot (0 for a single Redis, which has one place for everything)."""
        client = self.client
        return client.keyslot(key) if isinstance(client, aioredis.RedisCluster) else 0

    def endpoint_for(self, key: str) -> Endpoint:
        """Where the primary holding ``key`` listens, as the slot map last said.

        Raises :class:`~redis.exceptions.ClusterDownError` (a Redis error,
        which the node answers as storage unavailable) while the map has no
        node for the slot: before :meth:`refresh`, or after redis-py dropped
        a map it found stale.
        """
        if self.single is not None:
            return self.single
        assert isinstance(self.client, aioredis.RedisCluster)
        try:
            node = self.client.get_node_from_key(key)
        except RedisClusterException as exc:  # the slot is not covered
            raise ClusterDownError(str(exc)) from exc
        if node is None:
            raise ClusterDownError(f"no node holds {key!r}")
        endpoint = self._endpoints.get(node.name)
        if endpoint is None:
            settings = {**node.connection_kwargs, "host": node.host, "port": node.port}
            endpoint = self._endpoints[node.name] = Endpoint.from_settings(settings)
        return endpoint

    async def is_primary(self, endpoint: Endpoint) -> bool:
        """Whether the node at ``endpoint`` says (ROLE) that it is a primary now.

        Right after a failover another node's slot map may still name the
        old primary, now a replica: asking the node itself settles it.
        """
        if not isinstance(self.client, aioredis.RedisCluster):
            return True
        node = self.client.get_node(host=endpoint.host, port=endpoint.port)
        if node is None:
            return False
        role = await self.client.execute_command("ROLE", target_nodes=node)
        return bool(role) and role[0] in (b"master", "master")

    async def refresh(self) -> None:
        """Read the cluster's slot map again (after a failover, a resharding).

        Raises :class:`~redis.exceptions.ClusterDownError` if no node answers.
        """
        if isinstance(self.client, aioredis.RedisCluster):
            await read_slot_map(self.client)


class Feed(Protocol):
    """The hub's event feed: pub/sub on one Redis, or on every shard that owns a channel."""

    @property
    def usable(self) -> bool: ...

    async def open(self) -> None: ...

    async def subscribe(self, *channels: str) -> None: ...

    async def unsubscribe(self, *channels: str) -> None: ...

    def close(self) -> None: ...


def open_feed(
    topology: Topology,
    on_message: Callable[[bytes, bytes], None],
    on_lost: Callable[[Exception], None],
) -> Feed:
    """A feed for ``topology``: plain pub/sub on one Redis, shard channels on a cluster."""
    if topology.sharded:
        return ShardedSubscriber(topology, on_message, on_lost)
    return Subscriber(topology.endpoint_for(""), on_message, on_lost)


@storage_edge
class ShardedSubscriber:
    """Shard channels of a cluster: one sharded :class:`Subscriber` per primary followed.

    A channel is subscribed on the primary that owns its slot, with the
    channels of one slot in one SSUBSCRIBE (Redis refuses more). When any of
    the connections is lost, or a slot leaves its node, the whole feed
    counts as lost: the hub opens a new one, which reads the slot map again
    and subscribes wherever the slots now live, and catches up from the
    streams on what it missed.
    """

    def __init__(
        self,
        topology: Topology,
        on_message: Callable[[bytes, bytes], None],
        on_lost: Callable[[Exception], None],
    ) -> None:
        self._topology = topology
        self._on_message = on_message
        self._on_lost = on_lost
        self._shards: dict[Endpoint, Subscriber] = {}
        self._lost = False

    @property
    def usable(self) -> bool:
        return not self._lost and all(shard.usable for shard in self._shards.values())

    async def open(self) -> None:
        await self._topology.refresh()

    async def subscribe(self, *channels: str) -> None:
        for endpoint, same_slot in self._by_slot(channels):
            shard = self._shards.get(endpoint)
            if shard is None:
                if not await self._topology.is_primary(endpoint):
                    # A stale map (a failover still spreading): a replica is sent a
                    # shard's messages only once its primary knows it, so read the
                    # map again and subscribe at the primary (the hub retries).
                    raise ClusterDownError(f"{endpoint.host}:{endpoint.port} is not a primary")
                shard = Subscriber(endpoint, self._on_message, self._shard_lost, sharded=True)
                await shard.open()
                self._shards[endpoint] = shard
            await shard.subscribe(*same_slot)

    async def unsubscribe(self, *channels: str) -> None:
        for endpoint, same_slot in self._by_slot(channels):
            shard = self._shards.get(endpoint)
            if shard is not None and shard.usable:
                await shard.unsubscribe(*same_slot)

    def close(self) -> None:
        for shard in self._shards.values():
            shard.close()
        self._shards.clear()

    def _by_slot(self, channels: tuple[str, ...]) -> list[tuple[Endpoint, list[str]]]:
        groups: dict[int, list[str]] = {}
        for channel in channels:
            groups.setdefault(self._topology.slot(channel), []).append(channel)
        return [(self._topology.endpoint_for(same[0]), same) for same in groups.values()]

    def _shard_lost(self, error: Exception) -> None:
        if not self._lost:
            self._lost = True
            self.close()
            self._on_lost(error)
