"""Helpers of the Redis Cluster tests: a real cluster on loopback, and where a key lives.

The cluster needs a Redis (or Valkey) 7+ server, which ``make test``
installs (the OS package redis-server); the tests skip, saying so, only
where none is installed and none could be.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from server.storage.local_cluster import (
    BINARY_VARIABLE,
    ClusterNode,
    LocalCluster,
    cluster_server_binary,
)
from server.storage.store import Store
from tests.server.conftest import TIMEOUT

__all__ = [
    "NO_SERVER",
    "flushed",
    "need_cluster_server",
    "owner",
    "shard_channels",
    "start_cluster",
]

NO_SERVER = (
    "no Redis/Valkey 7+ server for the cluster tests: `make redis7` installs the OS "
    f"package redis-server, or set ${BINARY_VARIABLE} to one"
)


def need_cluster_server() -> None:
    if cluster_server_binary() is None:
        pytest.skip(NO_SERVER)


def start_cluster(data_dir: Path, *, replicas: int = 0) -> Iterator[LocalCluster]:
    """Three primaries (each with ``replicas`` replicas) for as long as the generator runs."""
    need_cluster_server()
    with LocalCluster(
        data_dir, primaries=3, replicas=replicas, start_timeout=3 * TIMEOUT
    ) as cluster:
        yield cluster


def flushed(cluster: LocalCluster) -> str:
    """The cluster's URL, every primary emptied."""
    for node in cluster.primaries:
        if node.process is not None:
            client = redis.Redis(port=node.port)
            client.flushall()
            client.close()
    return cluster.url


def owner(cluster: LocalCluster, store: Store, key: str) -> ClusterNode:
    """The primary that holds ``key``, as the store's slot map says."""
    port = store.topology.endpoint_for(key).port
    (node,) = [n for n in cluster.nodes if n.port == port]
    return node


def shard_channels(node: ClusterNode) -> set[str]:
    """The shard channels someone is subscribed to on ``node``."""
    client = redis.Redis(port=node.port)
    try:
        return {c.decode() for c in client.execute_command("PUBSUB", "SHARDCHANNELS")}
    finally:
        client.close()
