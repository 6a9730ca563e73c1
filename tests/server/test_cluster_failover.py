"""A cluster primary killed mid-race: its replica takes over and the race goes on.

Replication is asynchronous: a primary acknowledges a write before its
replica has it, so a primary that dies can take its last writes with it
(docs/cluster.md). The first test kills the primary once its replica has
caught up, as the AOF tests crash Redis once its file holds every write:
then no acknowledged move may be lost, and none is. The second cuts the
replica's link first, so the replica promoted lacks the last moves: the
nodes notice, as after a restart of one Redis from older files, and tell
the racers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from protocol.messages import JoinRace, Progress, RaceInfo, Rewound, StartRace
from server.storage import keys
from server.storage.local_cluster import ClusterNode, LocalCluster
from server.storage.store import Store
from tests.server.cluster import owner, start_cluster
from tests.server.conftest import NODES, TIMEOUT, Clients, NodeFactory
from tests.server.faults import Racer, assert_logs_replay_to_snapshots, eventually, told
from tests.server.replication import QUICK_HEALTH, caught_up, cut_link, in_step
from tests.server.shards import race_on_each_shard

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


@pytest.fixture
def redis_cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """Three primaries with a replica each, for this test alone (it kills one)."""
    yield from start_cluster(tmp_path / "cluster", replicas=1)


@pytest.fixture
def redis_url(redis_cluster: LocalCluster) -> str:
    return redis_cluster.url


async def _racing_on_one_shard(
    cluster: LocalCluster, store: Store, clients: Clients, a: str, b: str
) -> tuple[Racer, Racer, ClusterNode, ClusterNode]:
    """Two racers on nodes ``a`` and ``b`` who made 4 and 3 moves, the race's primary and
    its replica, in step."""
    host = await clients.hello(a, "Host")
    guest = await clients.hello(b, "Guest")
    races = await race_on_each_shard(cluster, store, clients, a)
    race = next(iter(races.values()))
    await guest.request(JoinRace(race=race), RaceInfo)
    await host.request(StartRace(race=race), RaceInfo)
    first, second = await Racer(host, race).started(), await Racer(guest, race).started()
    await first.play(4)
    await second.play(3)
    primary = owner(cluster, store, keys.race_meta(race))
    (replica,) = cluster.replicas[cluster.primaries.index(primary)]
    await caught_up(primary, replica)
    return first, second, primary, replica


async def _heard(listener: Racer, mover: Racer) -> None:
    """Until ``listener`` was told of all of ``mover``'s moves (from another node)."""
    moves = len(mover.acknowledged)
    await listener.session.next(
        Progress,
        lambda m: m.player == mover.player and m.progress.moves == moves,
        timeout=TIMEOUT,
    )


async def test_a_manual_failover_moves_the_race_and_its_channel(
    make_node: NodeFactory, clients: Clients, redis_cluster: LocalCluster, store: Store
) -> None:
    """CLUSTER FAILOVER of the race's shard (the old primary becomes its replica): the
    nodes commit to the new primary, each racer still hears the other, and nothing is
    lost or rewound. (Redis unsubscribes the feeds' shard channels on the old primary,
    or, if a feed is still there, passes each SPUBLISH on to the shard's replicas.)"""
    async with make_node(timeouts=QUICK_HEALTH) as a, make_node(timeouts=QUICK_HEALTH) as b:
        first, second, primary, replica = await _racing_on_one_shard(
            redis_cluster, store, clients, a, b
        )
        with redis.Redis(port=replica.port) as to_replica:
            to_replica.execute_command("CLUSTER", "FAILOVER")
        await eventually(
            lambda: replica.info("replication")["role"] == "master", "the replica to take over"
        )
        await eventually(
            lambda: primary.info("replication")["role"] == "slave", "the primary to step down"
        )
        async with asyncio.timeout(3 * TIMEOUT):
            await first.play(3)
            await second.play(3)
        await _heard(second, first)
        await _heard(first, second)
        logs = await assert_logs_replay_to_snapshots(redis_cluster.url, first.race)
        assert logs == {first.player: first.acknowledged, second.player: second.acknowledged}
        assert not told(first.session, Rewound) and not told(second.session, Rewound)


async def test_primary_killed_mid_race(
    make_node: NodeFactory, clients: Clients, redis_cluster: LocalCluster, store: Store
) -> None:
    """SIGKILL of the primary holding a race, its racers on two nodes: the replica is
    promoted, the nodes notice the new primary, and the racers carry on; every move
    acknowledged before and after is in the log, nothing rewound."""
    async with make_node(timeouts=QUICK_HEALTH) as a, make_node(timeouts=QUICK_HEALTH) as b:
        first, second, primary, replica = await _racing_on_one_shard(
            redis_cluster, store, clients, a, b
        )
        before = NODES[a].health.run_id
        redis_cluster.kill(primary)

        async with asyncio.timeout(3 * TIMEOUT):
            await first.play(3)  # each move is tried again while the shard fails over
            await second.play(3)
        await _heard(second, first)  # through the new primary's shard channel
        assert replica.info("replication")["role"] == "master"
        await eventually(lambda: NODES[a].health.run_id != before, "node a to see the failover")
        promoted = redis.Redis(port=replica.port)
        assert promoted.exists(keys.race_meta(first.race))
        promoted.close()

        logs = await assert_logs_replay_to_snapshots(redis_cluster.url, first.race)
        assert logs[first.player] == first.acknowledged
        assert logs[second.player] == second.acknowledged
        assert len(first.acknowledged) == 7 and len(second.acknowledged) == 6
        assert not told(first.session, Rewound) and not told(second.session, Rewound)


async def test_moves_the_replica_missed_are_reported_and_the_race_goes_on(
    make_node: NodeFactory, clients: Clients, redis_cluster: LocalCluster, store: Store
) -> None:
    """The replica's link cut, the primary acknowledges moves alone and is killed: the
    replica promoted lacks them; each racer is told what was lost, with the board the
    new primary holds, and plays on from it; every log replays to its board."""
    async with make_node(timeouts=QUICK_HEALTH) as a, make_node(timeouts=QUICK_HEALTH) as b:
        first, second, primary, replica = await _racing_on_one_shard(
            redis_cluster, store, clients, a, b
        )
        stored = len(first.acknowledged)
        cut_link(primary, replica)
        await first.play(2)  # acknowledged by the primary alone
        assert not in_step(primary, replica)
        redis_cluster.kill(primary)

        to_first = await first.session.next(Rewound, timeout=3 * TIMEOUT)
        assert to_first.seq is not None and stored <= to_first.seq < len(first.acknowledged)
        assert to_first.lost == len(first.acknowledged) - to_first.seq
        to_second = await second.session.next(Rewound, timeout=3 * TIMEOUT)
        assert (to_second.seq, to_second.lost) == (3, 0)
        first.rewound(to_first)
        second.rewound(to_second)
        async with asyncio.timeout(3 * TIMEOUT):
            await first.play(3)
            await second.play(3)
        logs = await assert_logs_replay_to_snapshots(redis_cluster.url, first.race)
        assert logs == {first.player: first.acknowledged, second.player: second.acknowledged}
