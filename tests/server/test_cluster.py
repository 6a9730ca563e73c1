"""Two nodes on a real three-primary Redis Cluster: races and a tournament on every shard."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterator
from dataclasses import replace

import pytest
import redis
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.retry import Retry

from protocol.messages import (
    GetTournamentRecord,
    JoinRace,
    Progress,
    RaceInfo,
    StartRace,
    TournamentRecord,
)
from server.rules.record import verify
from server.storage import keys
from server.storage.cluster import (
    close_client,
    cluster_client,
    is_cluster_url,
    read_slot_map,
    redis_py_url,
)
from server.storage.exceptions import StoreUnavailable
from server.storage.local_cluster import ClusterNode, LocalCluster
from server.storage.resp import Subscriber
from server.storage.store import Store
from tests.server.cluster import flushed, owner, shard_channels, start_cluster
from tests.server.conftest import TIMEOUT, Clients, NodeFactory
from tests.server.faults import Racer, assert_logs_replay_to_snapshots
from tests.server.hosting import FAST, host_tournament, run_bots
from tests.server.shards import race_on_each_shard

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


@pytest.fixture(scope="module")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    yield from start_cluster(tmp_path_factory.mktemp("cluster"))


@pytest.fixture
def redis_url(redis_cluster: LocalCluster) -> str:
    """Every node and store of these tests is on the cluster, emptied."""
    return flushed(redis_cluster)


def test_cluster_urls_follow_redis_py() -> None:
    """`redis+cluster://` names a cluster; redis-py's client gets the URL without `+cluster`."""
    assert is_cluster_url("redis+cluster://h:7000/") and is_cluster_url("rediss+cluster://h:1")
    assert not is_cluster_url("redis://h:6379/0")
    assert redis_py_url("redis+cluster://u:pw@h:7000/") == "redis://u:pw@h:7000/"
    assert redis_py_url("REDISS+CLUSTER://h:7000") == "rediss://h:7000"
    assert redis_py_url("redis://h:6379/0") == "redis://h:6379/0"


async def test_a_cluster_url_may_name_several_nodes() -> None:
    """`redis+cluster://u:pw@a:1,b:2,c/`: the client starts from all three (port 6379 where
    none is given), with the credentials of the URL."""
    client = cluster_client("redis+cluster://u:pw@a:1,b:2,c/", require_full_coverage=False)
    starts = {(n.host, int(n.port)) for n in client.nodes_manager.startup_nodes.values()}
    assert starts == {("a", 1), ("b", 2), ("c", 6379)}
    for node in client.nodes_manager.startup_nodes.values():
        kwargs = node.connection_kwargs
        assert (kwargs["username"], kwargs["password"]) == ("u", "pw")
    await client.aclose()


def _connections_named(nodes: list[ClusterNode], name: str, *, kill: bool = False) -> int:
    """How many connections ``nodes`` have from clients called ``name`` (``kill``: and
    close them from the server's side)."""
    count = 0
    for node in nodes:
        with redis.Redis(port=node.port) as plain:
            for client in plain.client_list():
                if client.get("name") == name:
                    count += 1
                    if kill:
                        plain.client_kill_filter(_id=client["id"])
    return count


async def test_a_closed_cluster_client_leaves_no_connection_open(
    redis_cluster: LocalCluster, redis_url: str
) -> None:
    """A cluster client used as the health probe uses one (the slot map read, then INFO of
    each primary) closes every connection, even after one of them failed: redis-py's own
    close then does nothing (the client means to read the slot map again), and the
    sockets stayed open until the garbage collector logged 'Unclosed ClusterNode object'
    in whichever test ran then."""
    name = "closing-check"
    client = cluster_client(
        redis_url, require_full_coverage=False, client_name=name, retry=Retry(NoBackoff(), 0)
    )
    primaries = client.get_primaries

    async def info_of_each() -> None:
        for primary in primaries():
            await client.execute_command("INFO", "server", target_nodes=primary)

    await read_slot_map(client)
    await info_of_each()
    first, *others = redis_cluster.primaries
    assert await asyncio.to_thread(_connections_named, [first], name, kill=True) >= 1
    with pytest.raises(RedisConnectionError):
        await info_of_each()  # a connection the server closed: the client will map again
    assert await asyncio.to_thread(_connections_named, others, name) >= 1
    await close_client(client)
    async with asyncio.timeout(TIMEOUT):
        while await asyncio.to_thread(_connections_named, others, name):
            await asyncio.sleep(0.02)  # the primaries notice the closed sockets


async def test_a_race_on_each_shard(
    make_node: NodeFactory, clients: Clients, redis_cluster: LocalCluster, store: Store
) -> None:
    """A race on each primary, its racers on two nodes: every move is stored on the race's
    shard, each racer hears the other's progress through that shard's channel only, and
    the logs replay to the boards."""
    async with make_node() as a, make_node() as b:
        host = await clients.hello(a, "Host")
        guest = await clients.hello(b, "Guest")
        races = await race_on_each_shard(redis_cluster, store, clients, a)
        assert set(await store.lobby.open_races()) == set(races.values())  # the others left
        racers: list[tuple[Racer, Racer]] = []
        for race in races.values():
            await guest.request(JoinRace(race=race), RaceInfo)
            await host.request(StartRace(race=race), RaceInfo)
            racers.append((await Racer(host, race).started(), await Racer(guest, race).started()))
        assert await store.lobby.open_races() == []
        assert set(await store.lobby.live_races()) == set(races.values())

        for first, second in racers:
            await first.play(3)
            await second.play(2)
            heard = await second.session.next(
                Progress, functools.partial(_moves_made, first.race, 3)
            )
            assert heard.player == first.player
            await first.session.next(Progress, functools.partial(_moves_made, second.race, 2))

        for port, race in races.items():
            channel = keys.race_channel(race)
            for node in redis_cluster.primaries:
                assert (channel in shard_channels(node)) == (node.port == port), node.port
            logs = await assert_logs_replay_to_snapshots(redis_cluster.url, race)
            assert sorted(len(log) for log in logs.values()) == [2, 3]


def _shards(cluster: LocalCluster, store: Store, races: list[str]) -> set[int]:
    return {owner(cluster, store, keys.race_meta(race)).port for race in races}


async def test_a_tournament_across_shards(
    make_node: NodeFactory, clients: Clients, redis_cluster: LocalCluster, store: Store
) -> None:
    """A two-round tournament whose four races lie on at least two primaries, its entrants
    on two nodes, is played to the end; every seed and log of its record verifies."""
    async with make_node(timeouts=FAST) as a, make_node(timeouts=FAST) as b:
        for _ in range(20):
            host, doc = await host_tournament(a, format="rounds", variants=["gavotte"], rounds=2)
            clients.open.append(host)
            # A table's race id is fixed by the tournament: "<id>-<round>-<table>".
            planned = [f"{doc.id.lower()}-{n}-{t}" for n in (1, 2) for t in (1, 2)]
            if len(_shards(redis_cluster, store, planned)) >= 2:
                break
        else:
            raise AssertionError("20 tournaments, each on one shard")
        finals = await run_bots([a, b], doc.code, 10, host, doc.id)
        record = await host.request(GetTournamentRecord(code=doc.code), TournamentRecord)

    assert finals[0].status == "finished"
    races = sorted(record.record["races"])
    assert races == sorted(planned)
    assert len(_shards(redis_cluster, store, races)) >= 2
    assert verify(record.record) == []
    await asyncio.sleep(0)


def _move_slot(cluster: LocalCluster, slot: int, source: ClusterNode, target: ClusterNode) -> None:
    """Hand an empty slot from one primary to another, as a resharding does."""
    with redis.Redis(port=source.port) as old, redis.Redis(port=target.port) as new:
        new.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source.node_id)
        old.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target.node_id)
        for client in (new, old):
            client.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target.node_id)
    cluster.wait_healthy()


async def test_a_shard_channel_whose_slot_moves_counts_as_the_feed_lost(
    redis_cluster: LocalCluster, store: Store
) -> None:
    """A sharded subscriber hears SPUBLISH on its channel from the slot's primary; when
    the slot moves to another primary, Redis unsubscribes it and the owner is told the
    feed is lost (so the hub subscribes again where the slot now lives)."""
    channel = keys.race_channel("0slotmove")
    source = owner(redis_cluster, store, channel)
    target = next(n for n in redis_cluster.primaries if n is not source)
    slot = store.topology.slot(channel)
    heard: asyncio.Queue[bytes] = asyncio.Queue()
    lost: asyncio.Queue[Exception] = asyncio.Queue()
    endpoint = store.topology.endpoint_for(channel)
    subscriber = Subscriber(
        endpoint, lambda _, data: heard.put_nowait(data), lost.put_nowait, sharded=True
    )
    await subscriber.open()
    try:
        await subscriber.subscribe(channel)
        with redis.Redis(port=source.port) as publisher:
            assert publisher.execute_command("SPUBLISH", channel, b"1|x") == 1
        assert await asyncio.wait_for(heard.get(), TIMEOUT) == b"1|x"
        await asyncio.to_thread(_move_slot, redis_cluster, slot, source, target)
        assert "moved" in str(await asyncio.wait_for(lost.get(), TIMEOUT))
        assert not subscriber.usable
    finally:
        subscriber.close()
        await asyncio.to_thread(_move_slot, redis_cluster, slot, target, source)


async def test_a_shard_channel_asked_of_the_wrong_primary_fails_at_once(
    redis_cluster: LocalCluster, store: Store
) -> None:
    """SSUBSCRIBE sent to a primary that does not own the channel's slot (a stale slot
    map) fails at once and counts as the feed lost, instead of waiting for a timeout."""
    channel = keys.race_channel("0wrongnode")
    right = owner(redis_cluster, store, channel)
    wrong = next(n for n in redis_cluster.primaries if n is not right)
    lost: asyncio.Queue[Exception] = asyncio.Queue()
    endpoint = replace(store.topology.endpoint_for(channel), port=wrong.port)
    subscriber = Subscriber(endpoint, lambda *_: None, lost.put_nowait, sharded=True)
    await subscriber.open()
    try:
        async with asyncio.timeout(2.5):  # well under the 5 s reply timeout
            with pytest.raises(StoreUnavailable, match="MOVED"):
                await subscriber.subscribe(channel)
        assert "MOVED" in str(await asyncio.wait_for(lost.get(), TIMEOUT))
    finally:
        subscriber.close()


def _moves_made(race: str, moves: int, progress: Progress) -> bool:
    return progress.race == race and progress.progress.moves == moves
