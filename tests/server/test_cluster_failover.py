"""A cluster primary killed mid-race: its replica takes over and the race goes on.

Replication is asynchronous: a primary acknowledges a write before its
replica has it, so a primary that dies can take its last writes with it
(docs/cluster.md). The test kills the primary once its replica has caught
up, as the AOF tests crash Redis once its file holds every write: then no
acknowledged move may be lost, and none is. What a node does when writes
were lost (the check after a restart, rewinding what Redis no longer holds)
is the same as after a restart of one Redis, and is tested there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from protocol.messages import JoinRace, RaceInfo, Rewound, StartRace
from server.settings import Timeouts
from server.storage import keys
from server.storage.local_cluster import ClusterNode, LocalCluster
from server.storage.store import Store
from tests.server.cluster import owner, start_cluster
from tests.server.conftest import NODES, TIMEOUT, Clients, NodeFactory
from tests.server.faults import Racer, assert_logs_replay_to_snapshots, eventually, told
from tests.server.test_cluster import _race_on_each_shard

#: Nodes that notice a failover quickly: the probe asks every primary each 0.1 s.
QUICK_HEALTH = Timeouts(countdown=0.0, health=0.1, health_timeout=0.5)


@pytest.fixture
def redis_cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """Three primaries with a replica each, for this test alone (it kills one)."""
    yield from start_cluster(tmp_path / "cluster", replicas=1)


@pytest.fixture
def redis_url(redis_cluster: LocalCluster) -> str:
    return redis_cluster.url


async def _caught_up(primary: ClusterNode, replica: ClusterNode) -> None:
    """Until the replica has applied every write its primary acknowledged."""

    def in_step() -> bool:
        offset = int(primary.info("replication")["master_repl_offset"])
        return int(replica.info("replication")["master_repl_offset"]) >= offset

    await eventually(in_step, "the replica to catch up")


async def test_primary_killed_mid_race(
    make_node: NodeFactory, clients: Clients, redis_cluster: LocalCluster, store: Store
) -> None:
    """SIGKILL of the primary holding a race, its racers on two nodes: the replica is
    promoted, the nodes notice the new primary, and the racers carry on; every move
    acknowledged before and after is in the log, nothing rewound."""
    async with make_node(timeouts=QUICK_HEALTH) as a, make_node(timeouts=QUICK_HEALTH) as b:
        host = await clients.hello(a, "Host")
        guest = await clients.hello(b, "Guest")
        races = await _race_on_each_shard(redis_cluster, store, clients, a)
        race = next(iter(races.values()))
        await guest.request(JoinRace(race=race), RaceInfo)
        await host.request(StartRace(race=race), RaceInfo)
        first, second = await Racer(host, race).started(), await Racer(guest, race).started()
        await first.play(4)
        await second.play(3)

        primary = owner(redis_cluster, store, keys.race_meta(race))
        (replica,) = redis_cluster.replicas[redis_cluster.primaries.index(primary)]
        await _caught_up(primary, replica)
        before = NODES[a].health.run_id
        redis_cluster.kill(primary)

        async with asyncio.timeout(3 * TIMEOUT):
            await first.play(3)  # each move is tried again while the shard fails over
            await second.play(3)
        assert replica.info("replication")["role"] == "master"
        await eventually(lambda: NODES[a].health.run_id != before, "node a to see the failover")
        promoted = redis.Redis(port=replica.port)
        assert promoted.exists(keys.race_meta(race))
        promoted.close()

        logs = await assert_logs_replay_to_snapshots(redis_cluster.url, race)
        assert logs[first.player] == first.acknowledged
        assert logs[second.player] == second.acknowledged
        assert len(first.acknowledged) == 7 and len(second.acknowledged) == 6
        assert not told(host, Rewound) and not told(guest, Rewound)
